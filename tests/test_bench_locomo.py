"""The LoCoMo harness (bench/locomo): reading the format, building memories, scoring, the systems.

Expected values are worked out by hand from the synthetic file (bench/locomo/synthetic.py) and
the product's full-text query processing (memories.selectors.search): the plain words of a
question are alternatives (OR), a word that English or German drops as a stop word ("where",
"does", "what", "is", "when", "did", "the") is dropped, the rest match as written or as a stem
("lives" → "live", "running" → "run"); ts_rank_cd without normalisation counts the matching
word occurrences, so the turn holding more of the question's words ranks first.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pytest

from bench.locomo.dataset import (
    conversation_parse,
    evidence_resolve,
    names_in,
    session_date_parse,
    session_start_parse,
    turn_memory,
)
from bench.locomo.metrics import Outcome, recall_at_k, system_summary
from bench.locomo.synthetic import EDGE_SAMPLE, SYNTHETIC_SAMPLES, synthetic_write

REPO = Path(__file__).resolve().parent.parent
MARATHON = "Bob: I finished the marathon in Porto last Sunday."


def _conversations():
    return [conversation_parse(sample) for sample in SYNTHETIC_SAMPLES]


# --- Reading the file ------------------------------------------------------------------------


def test_an_evidence_string_naming_two_turns_counts_both_and_parts_naming_no_turn_are_skipped():
    found, skipped = evidence_resolve(["D8:6; D9:17", "D", "D1:1", "D:11:26"], {"D8:6", "D1:1", "D2:2"})
    assert found == {"D8:6", "D1:1"}
    assert skipped == 3  # D9:17, D, D:11:26


def test_only_questions_of_categories_one_to_four_with_an_evidence_turn_are_scored():
    conversation = _conversations()[0]
    assert [question.text for question in conversation.questions] == [
        "Where does Clara live?",
        "What is Pixel?",
        "When did Bob run the marathon?",  # "D2:1; D9:9" → D2:1
        MARATHON,
    ]  # not: "What does Alice play?" (D7:1 is no turn), category 5, "Who is Clara?" (no evidence)
    assert conversation.questions[2].evidence == {"D2:1"}
    assert conversation.skipped_evidence == 2  # D9:9 and D7:1; category 5 is not read at all


def test_turns_come_in_session_order_with_their_session_dates_and_a_date_without_session_is_ignored():
    conversation = _conversations()[0]
    assert [turn.dia_id for turn in conversation.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"]
    assert {turn.session_date for turn in conversation.turns} == {date(2023, 5, 8), date(2023, 6, 2)}


def test_a_session_date_parses_with_or_without_the_clock_time_and_anything_else_is_no_date():
    assert session_date_parse("1:56 pm on 8 May, 2023") == date(2023, 5, 8)
    assert session_date_parse("12:09 am on 13 September, 2023") == date(2023, 9, 13)
    assert session_date_parse("8 May, 2023") == date(2023, 5, 8)
    assert session_date_parse("yesterday") is None
    assert session_date_parse(None) is None


def test_a_session_start_is_its_date_and_clock_time_and_none_when_the_clock_time_is_missing():
    assert session_start_parse("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert session_start_parse("12:09 am on 13 September, 2023") == datetime(2023, 9, 13, 0, 9)
    assert session_start_parse("8 May, 2023") is None
    assert session_start_parse("yesterday") is None


# --- Building memories -----------------------------------------------------------------------


def test_names_are_capitalised_runs_not_starting_a_sentence_unless_a_speaker_and_never_a_weekday():
    text = 'Hey Mel! Good to see you. I met Dr Jones in New York on Monday. Caroline\'s "Harry Potter" book is LGBTQ.'
    assert names_in(text, speakers=["Caroline", "Melanie"]) == [
        "Mel",
        "Dr Jones",
        "New York",
        "Caroline",
        "Harry Potter",
    ]
    # "Hey", "Good" start sentences; "I" and "LGBTQ" have no lower-case letter; Monday is a time.
    assert names_in("Mel met mel and MEL.", speakers=[]) == []  # "Mel" starts the text; the others are not capitalised


def test_a_turn_becomes_speaker_and_text_with_its_caption_session_date_and_names():
    conversation = _conversations()[0]
    assert turn_memory(conversation.turns[0], speakers=conversation.speakers) == {
        "category": "context",
        "key": "D1:1",
        "content": "Alice: Hey Bob! I adopted a greyhound named Pixel yesterday. [shares a photo of a dog on a sofa]",
        "entities": ["Alice", "Bob", "Pixel"],
        "event_time": "2023-05-08",
    }
    assert turn_memory(conversation.turns[3], speakers=conversation.speakers)["content"] == MARATHON


def test_turns_are_spoken_one_minute_apart_from_the_session_clock_time_or_all_on_the_session_date():
    conversation = _conversations()[0]  # session 1 at 1:56 pm on 8 May 2023, session 2 at 10:00 am on 2 June
    in_order = [
        turn_memory(turn, speakers=conversation.speakers, turn_time="turn-order")["event_time"]
        for turn in conversation.turns
    ]
    assert in_order == [
        "2023-05-08T13:56:00Z",
        "2023-05-08T13:57:00Z",
        "2023-05-08T13:58:00Z",
        "2023-06-02T10:00:00Z",
        "2023-06-02T10:01:00Z",
        "2023-06-02T10:02:00Z",
    ]
    by_date = [turn_memory(turn, speakers=conversation.speakers)["event_time"] for turn in conversation.turns]
    assert by_date == ["2023-05-08"] * 3 + ["2023-06-02"] * 3


def test_a_session_dated_without_a_clock_time_gives_its_turns_the_date_in_either_model():
    sample = copy.deepcopy(SYNTHETIC_SAMPLES[0])
    sample["conversation"]["session_1_date_time"] = "8 May, 2023"
    conversation = conversation_parse(sample)
    for turn_time in ("turn-order", "session-date"):
        assert [
            turn_memory(turn, speakers=conversation.speakers, turn_time=turn_time)["event_time"]
            for turn in conversation.turns[:3]
        ] == ["2023-05-08"] * 3


def test_building_memories_never_reads_the_questions():
    sample = SYNTHETIC_SAMPLES[0]
    without_questions = copy.deepcopy(sample)
    without_questions["qa"] = []
    with_them, without = conversation_parse(sample), conversation_parse(without_questions)
    assert [turn_memory(turn, speakers=with_them.speakers) for turn in with_them.turns] == [
        turn_memory(turn, speakers=without.speakers) for turn in without.turns
    ]


# --- Scoring ---------------------------------------------------------------------------------


def test_recall_at_k_is_the_share_of_evidence_turns_among_the_first_k_items():
    items = [("D3",), ("D1",), ("D2",)]
    evidence = frozenset({"D1", "D2"})
    assert [recall_at_k(evidence, items, k) for k in (1, 2, 3, 10)] == [0.0, 0.5, 1.0, 1.0]
    assert recall_at_k(evidence, [], 5) == 0.0


def test_an_item_standing_for_several_memories_counts_each_of_them():
    assert recall_at_k(frozenset({"D1", "D2"}), [("D9", "D1"), ("D2",)], 1) == 0.5


def test_a_system_summary_is_the_mean_over_questions_overall_and_per_category():
    outcomes = [
        Outcome(category=1, recall={5: 1.0, 10: 1.0}, results=5, latency_ms=1.0),
        Outcome(category=1, recall={5: 0.0, 10: 0.5}, results=5, latency_ms=2.0),
        Outcome(category=4, recall={5: 0.5, 10: 0.5}, results=3, latency_ms=3.0),
        Outcome(category=4, recall={5: 0.0, 10: 0.0}, results=0, latency_ms=4.0),
    ]
    summary = system_summary(outcomes, [5, 10])
    assert summary["recall@5"] == 0.375  # (1 + 0 + 0.5 + 0) / 4
    assert summary["recall@10"] == 0.5  # (1 + 0.5 + 0.5 + 0) / 4
    assert summary["by_category"] == {
        "1": {"name": "multi-hop", "questions": 2, "recall@5": 0.5, "recall@10": 0.75},
        "4": {"name": "single-hop", "questions": 2, "recall@5": 0.25, "recall@10": 0.25},
    }
    assert summary["p50_ms"] == 2.5  # the median of 1, 2, 3, 4
    assert summary["p95_ms"] == 3.85  # numpy's linear interpolation: 3 + 0.85 × (4 - 3)
    assert summary["questions_with_results"] == 3
    assert summary["questions_with_evidence@5"] == 2
    assert summary["questions_with_evidence@10"] == 3


# --- The systems, against the real database --------------------------------------------------


@pytest.fixture
def stored(db):
    from bench.locomo.harness import conversation_store
    from minds.services import user_register

    owner = user_register(email="locomo-test@example.com", password="a password that is long enough")
    return [conversation_store(conversation, owner=owner) for conversation in _conversations()]


def _turns(stored_conversation, items) -> list[tuple[str, ...]]:
    return [tuple(stored_conversation.turn_of[pk] for pk in item) for item in items]


def test_every_turn_is_one_memory_of_its_conversations_mind(stored):
    from memories.models import Memory

    first, second = stored
    assert sorted(first.turn_of.values()) == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"]
    memory = Memory.objects.get(pk=next(pk for pk, dia_id in second.turn_of.items() if dia_id == "D1:1"))
    assert (memory.mind_id, memory.content) == (second.mind.pk, "Carmen: Dmitri, my cousin Clara lives in Berlin.")
    assert memory.entities == ["Carmen", "Dmitri", "Clara", "Berlin"]
    assert (memory.event_time.date().isoformat(), memory.event_precision) == ("2024-03-03", "day")


def test_turns_stored_in_turn_order_hold_their_own_minute_of_the_session(db):
    from bench.locomo.harness import conversation_store
    from memories.models import Memory
    from minds.services import user_register

    owner = user_register(email="locomo-order@example.com", password="a password that is long enough")
    stored = conversation_store(_conversations()[1], owner=owner, turn_time="turn-order")
    # Session 1 of "synthetic-2" is "9:15 am on 3 March, 2024": D1:1 at 09:15, D1:2 a minute later.
    times = {
        stored.turn_of[memory.pk]: (memory.event_time.isoformat(), memory.event_precision)
        for memory in Memory.objects.filter(mind=stored.mind)
    }
    assert times == {
        "D1:1": ("2024-03-03T09:15:00+00:00", "minute"),
        "D1:2": ("2024-03-03T09:16:00+00:00", "minute"),
    }


def test_a_question_whose_words_one_turn_holds_most_of_is_full_text_top_one_in_each_mind(stored):
    from bench.locomo.systems import SYSTEMS

    fulltext = SYSTEMS["fulltext"]
    first, second = stored
    # 'where' and 'does' are stop words; 'clara' or 'live': mind 1's D1:2 holds both ("Clara
    # lives"), D2:3 only Clara; mind 2's D1:1 holds both, D1:2 neither.
    assert _turns(first, fulltext.top_k(first.mind.pk, "Where does Clara live?", 5)) == [("D1:2",), ("D2:3",)]
    assert _turns(second, fulltext.top_k(second.mind.pk, "Where does Clara live?", 5)) == [("D1:1",)]


def test_full_text_takes_any_word_of_the_question_and_ranks_the_turn_with_more_of_them_first(stored):
    from bench.locomo.systems import SYSTEMS

    first, _ = stored
    # 'bob' | 'run' | 'marathon': D2:1 holds Bob and marathon; Bob alone is in D1:1 ("Hey Bob"),
    # D1:2 and D2:3 (his turns); 'run' is the stem of D2:2's "running". D1:3 holds none.
    found = _turns(first, SYSTEMS["fulltext"].top_k(first.mind.pk, "When did Bob run the marathon?", 5))
    assert found[0] == ("D2:1",)
    assert sorted(found) == [("D1:1",), ("D1:2",), ("D2:1",), ("D2:2",), ("D2:3",)]


def test_a_question_repeating_a_turn_word_for_word_is_every_systems_top_one(stored):
    from bench.locomo.systems import SYSTEMS

    first, _ = stored
    for name in ("vector", "fulltext", "hybrid"):  # cosine 1.0; every word matches; first in both lists
        assert _turns(first, SYSTEMS[name].top_k(first.mind.pk, MARATHON, 1)) == [("D2:1",)], name


def test_exact_vector_search_returns_every_memory_of_a_mind_smaller_than_k_and_no_other_minds(stored):
    from bench.locomo.systems import SYSTEMS

    _, second = stored
    found = _turns(second, SYSTEMS["vector"].top_k(second.mind.pk, "Where does Clara live?", 20))
    assert sorted(found) == [("D1:1",), ("D1:2",)]


def test_a_run_scores_full_text_as_worked_out_by_hand(db):
    from bench.locomo.harness import locomo_run
    from bench.locomo.systems import SYSTEMS

    result = locomo_run(_conversations(), systems=list(SYSTEMS.values()), ks=[1, 2, 5])
    assert (result["conversations"], result["questions"], result["turns"], result["skipped_evidence"]) == (2, 5, 8, 2)
    fulltext = result["systems"]["fulltext"]
    # Per question (recall@1, @2, @5): Clara in mind 1 (1, 1, 1); "What is Pixel?" → 'pixel'
    # matches exactly its two evidence turns, tied, in some order (0.5, 1, 1); the marathon
    # question's D2:1 holds two of its words, more than any other turn (1, 1, 1); the
    # word-for-word turn (1, 1, 1); Clara in mind 2 (1, 1, 1).
    assert (fulltext["recall@1"], fulltext["recall@2"], fulltext["recall@5"]) == (0.9, 1.0, 1.0)
    assert fulltext["by_category"]["1"] == {"name": "multi-hop", "questions": 1, "recall@1": 0.5, "recall@2": 1.0,
                                            "recall@5": 1.0}  # fmt: skip
    assert fulltext["by_category"]["2"]["recall@5"] == 1.0
    assert fulltext["by_category"]["4"] == {"name": "single-hop", "questions": 3, "recall@1": 1.0, "recall@2": 1.0,
                                            "recall@5": 1.0}  # fmt: skip
    assert fulltext["questions_with_results"] == 5
    assert fulltext["questions_with_evidence@5"] == 5
    # Exact vector search always fills k (mind 2 has 2 turns, mind 1 has 6): every question answered.
    assert result["systems"]["vector"]["questions_with_results"] == 5


@pytest.mark.slow
def test_the_command_writes_the_documented_json(tmp_path):
    data = synthetic_write(tmp_path / "locomo.json")
    out = tmp_path / "result.json"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "locomo",
            "--data",
            str(data),
            "--k",
            "1,5",
            "--json",
            str(out),
            "--database",
            f"bench_locomo_test_{os.getpid()}",
        ],  # fmt: skip
        cwd=REPO,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "memoryproject.settings"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(out.read_text())
    assert {"embedder", "conversations", "questions", "turns", "systems"} <= set(result)
    assert (result["embedder"], result["conversations"], result["questions"], result["turns"]) == ("hashing", 2, 5, 8)
    assert set(result["systems"]) == {"vector", "fulltext", "hybrid", "synapse"}
    assert result["prepare_s"] > 0.0  # synapse's promotion ran
    for summary in result["systems"].values():
        assert {"recall@1", "recall@5", "by_category", "p50_ms", "p95_ms"} <= set(summary)
        assert set(summary["by_category"]) == {"1", "2", "4"}
        assert all(0.0 <= summary[f"recall@{k}"] <= 1.0 for k in (1, 5))
        assert 0.0 < summary["p50_ms"] <= summary["p95_ms"]
    assert result["systems"]["fulltext"]["recall@1"] == 0.9  # as the run above, worked out by hand
    assert "recall@5" in completed.stdout and "fulltext" in completed.stdout


# --- The synapse system: promotion, then resonance over the net -------------------------------


def test_there_are_four_systems_and_only_synapse_prepares_the_mind():
    from bench.locomo.systems import SYSTEMS, promotion_step

    assert list(SYSTEMS) == ["vector", "fulltext", "hybrid", "synapse"]
    assert [name for name, system in SYSTEMS.items() if system.prepare is not None] == ["synapse"]
    assert SYSTEMS["synapse"].prepare is promotion_step


def test_the_prepare_step_promotes_every_turn_into_one_knot_each_in_the_conversations_order(db):
    from bench.locomo.harness import conversation_store
    from bench.locomo.systems import promotion_step
    from minds.services import user_register
    from synapses.models import Knot

    owner = user_register(email="locomo-order@example.com", password="a password that is long enough")
    stored = conversation_store(_conversations()[0], owner=owner, prepare=[promotion_step])
    knots = Knot.objects.filter(mind_id=stored.mind.pk).order_by("id").values_list("memory_id", flat=True)
    # Knot ids grow with each insert: the knots were made turn by turn, as the turns were said.
    assert [stored.turn_of[memory_id] for memory_id in knots] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"]


def test_synapse_finds_an_evidence_turn_that_only_an_edge_of_the_net_leads_to(db):
    from bench.locomo.harness import conversation_store
    from bench.locomo.systems import SYSTEMS
    from minds.services import user_register
    from synapses.resonance.service import resonance_of

    owner = user_register(email="locomo-edge@example.com", password="a password that is long enough")
    conversation = conversation_parse(EDGE_SAMPLE)
    synapse = SYSTEMS["synapse"]
    stored = conversation_store(conversation, owner=owner, prepare=[synapse.prepare])
    question = conversation.questions[0].text
    # Full text: 'instrument', 'village', 'clockmaker', 'buy' — only D1:1 holds any ("bought"
    # is not a stem of "buy").
    assert _turns(stored, SYSTEMS["fulltext"].top_k(stored.mind.pk, question, 5)) == [("D1:1",)]
    found = [turn for item in _turns(stored, synapse.top_k(stored.mind.pk, question, 3)) for turn in item]
    assert {"D1:1", "D1:2"} <= set(found)
    memory_of = {dia_id: pk for pk, dia_id in stored.turn_of.items()}
    items = resonance_of(mind=stored.mind, q=question, limit=3)["items"]
    bassoon = next(item for item in items if memory_of["D1:2"] in item["memory_ids"])
    assert bassoon["shell"] >= 1 and bassoon["path"], "reached by spreading, not as an anchor"
