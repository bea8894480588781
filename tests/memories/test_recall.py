"""GET /memory/recall: the prompt text (golden files in tests/memories/golden/, written by hand
from the layout in docs/recall.md), its JSON form, its parameters and its query budget."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.models import RECALL_ORDER, Memory
from memories.recall import RecallCounts, RecallEntry, recall_render
from tests.memories.insights_support import T0, agent_caller, human_caller, minutes, remember

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str) -> str:
    return (GOLDEN / name).read_text(encoding="utf-8")


# Stored out of recall order: (who, minutes after T0 of the last update, fields).
FIVE = [
    ("agent", 1, {"category": "note", "key": "cache_idea", "content": "Try Redis for caching", "priority": "low",
                  "tags": ["ideas", "redis"]}),
    ("agent", 2, {"category": "project", "key": "deploy_notes",
                  "content": "Deploy steps:\n1. build the image\n2. push it to the registry"}),
    ("human", 3, {"category": "identity", "key": "user_name", "content": "Michael Schäfer", "priority": "critical",
                  "tags": ["person", "identity"]}),
    ("agent", 4, {"category": "fact", "key": "office_city", "content": "Office is in Berlin", "tags": ["work"],
                  "expires_at": "tomorrow"}),
    ("human", 5, {"category": "preference", "key": "communication_style",
                  "content": "Prefers concise technical responses", "priority": "high", "tags": ["communication"]}),
    # Expired: it would come first, but recall leaves it out.
    ("agent", 6, {"category": "context", "key": "debugging_login", "content": "Debugging login",
                  "priority": "critical", "expires_at": "a second ago"}),
]  # fmt: skip


@pytest.fixture
def five(owner, mind):
    callers = {"agent": agent_caller(mind.mind), "human": human_caller(owner.user)}
    expiry = {"tomorrow": timezone.now() + timedelta(days=1), "a second ago": timezone.now() - timedelta(seconds=1)}
    for who, minute, fields in FIVE:
        fields = {**fields, "expires_at": expiry[fields["expires_at"]]} if "expires_at" in fields else fields
        remember(mind.mind, callers[who], at=T0 + minutes(minute), **fields)
    return mind


def recall(client, **params):
    return client.get("/memory/recall", params)


def test_recall_lists_current_memories_by_priority_then_recency_in_the_spec_layout(five):
    response = recall(five.agent)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode("utf-8") == golden("recall_full.txt")


def test_limit_cuts_the_list_and_the_last_line_says_how_many_were_left_out(five):
    response = recall(five.agent, limit="2")
    assert response.content.decode("utf-8") == golden("recall_limit_2.txt")


def test_the_omission_line_says_memory_for_a_single_one(five):
    response = recall(five.agent, limit="4")
    assert response.content.decode("utf-8") == golden("recall_limit_4_one_left.txt")


def test_max_chars_keeps_whole_entries_and_the_omission_line_within_the_limit(five):
    text = recall(five.agent, max_chars="323").content.decode("utf-8")
    assert text == golden("recall_max_chars_323.txt")
    assert len(text) == 323


def test_one_character_less_than_two_entries_need_leaves_one_entry(five):
    body = recall(five.agent, max_chars="322", format="json").json()
    assert [memory["key"] for memory in body["memories"]] == ["user_name"]
    assert (body["omitted"], body["cut_by"]) == (4, "max_chars")


def test_an_empty_mind_says_no_memories_yet(mind):
    assert recall(mind.agent).content.decode("utf-8") == golden("recall_empty.txt")


def test_a_mind_with_only_expired_memories_recalls_nothing(mind):
    remember(
        mind.mind,
        agent_caller(mind.mind),
        category="context",
        content="Old context",
        expires_at=timezone.now() - timedelta(hours=1),
    )
    assert recall(mind.agent).content.decode("utf-8") == golden("recall_empty.txt")


def test_format_json_returns_the_same_selection_with_the_counts(five):
    body = recall(five.agent, format="json", limit="3").json()
    assert body["mind"] == {"id": five.mind.pk, "name": "Michael's Mind"}
    assert (body["total"], body["verified"], body["unverified"]) == (5, 2, 3)
    assert [memory["key"] for memory in body["memories"]] == ["user_name", "communication_style", "office_city"]
    assert (body["omitted"], body["cut_by"]) == (2, "limit")
    assert body["memories"][0]["content"] == "Michael Schäfer"


def test_format_json_without_a_cut_omits_nothing(five):
    body = recall(five.agent, format="json").json()
    assert len(body["memories"]) == 5
    assert (body["omitted"], body["cut_by"]) == (0, None)


def test_without_a_limit_recall_lists_100_memories(mind):
    memories = [{"category": "fact", "key": f"k{n}", "content": f"Fact {n}"} for n in range(101)]
    assert mind.agent.post("/memory/sync", {"memories": memories}, format="json").status_code == 200
    body = recall(mind.agent, format="json").json()
    assert (len(body["memories"]), body["omitted"], body["cut_by"]) == (100, 1, "limit")


def test_q_on_a_mind_without_knots_adds_a_resonance_section_saying_nothing_resonates(five):
    response = recall(five.agent, q="Anna's birthday", mode="werkstatt", intent="instruction", mood="joy")
    assert response.status_code == 200
    assert response.content.decode("utf-8") == (
        golden("recall_full.txt") + '\nResonance for: "Anna\'s birthday"\nNothing in the long-term net resonates.\n'
    )


def test_an_agent_asking_for_text_plain_gets_the_text(five):
    response = five.agent.get("/memory/recall", HTTP_ACCEPT="text/plain")
    assert response.status_code == 200
    assert response.content.decode("utf-8") == golden("recall_full.txt")


def test_recall_answers_with_a_trailing_slash_too(five):
    assert five.agent.get("/memory/recall/").content.decode("utf-8") == golden("recall_full.txt")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "1001"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": "2.5"}, "limit"),
        ({"max_chars": "0"}, "max_chars"),
        ({"max_chars": "-5"}, "max_chars"),
        ({"format": "xml"}, "format"),
        ({"q": "x" * 1001}, "q"),
        ({"mode": "m" * 101}, "mode"),
        ({"mood": "m" * 101}, "mood"),
        ({"intent": "i" * 101}, "intent"),
    ],
)
def test_bad_parameters_answer_400_naming_the_parameter(five, params, field):
    response = recall(five.agent, **params)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert list(response.json()["error"]["fields"]) == [field]


@pytest.mark.parametrize(
    ("q", "message"),
    [
        ("x" * 1001, "q is at most 1,000 characters; shorten the query."),
        ("ab\x00c", "q must not contain NUL characters (\\u0000); remove them."),
    ],
)
def test_a_bad_q_is_refused_as_search_refuses_it(five, q, message):
    response = recall(five.agent, q=q)
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"q": [message]}


def test_an_unknown_parameter_answers_400_naming_it(five):
    response = recall(five.agent, limt="5", format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "limt": ["Unknown parameter. This endpoint takes: q, mode, intent, mood, limit, max_chars, format, mind."]
    }


def test_every_bad_parameter_is_named_at_once(five):
    response = recall(five.agent, limit="0", format="yaml")
    assert sorted(response.json()["error"]["fields"]) == ["format", "limit"]
    assert "text, json" in response.json()["error"]["fields"]["format"][0]


def test_a_reader_recalls_a_shared_mind_by_naming_it(five, reader):
    response = reader.client.get("/memory/recall", {"mind": five.mind.pk})
    assert response.content.decode("utf-8") == golden("recall_full.txt")


def test_an_outsider_gets_404_for_a_mind_they_cannot_see(five, outsider):
    response = outsider.client.get("/memory/recall", {"mind": five.mind.pk})
    assert response.status_code == 404


def test_recall_without_credentials_is_401(api):
    assert api.get("/memory/recall").status_code == 401


def test_another_minds_key_recalls_only_its_own_memories(five, other_mind):
    remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", key="their_fact", content="Theirs")
    text = recall(other_mind.agent).content.decode("utf-8")
    assert text == (
        "Mind: Someone else's mind\n"
        "Memories: 1 total (0 verified, 1 unverified)\n"
        "\n"
        "[001] fact (NORMAL) [unverified]\n"
        "  their_fact\n"
        "  Theirs\n"
    )


def test_recall_does_not_grow_queries_with_the_number_of_memories(mind):
    agent = agent_caller(mind.mind)
    for index in range(3):
        remember(mind.mind, agent, category="fact", key=f"small_{index}", content=f"Fact {index}", tags=["a"])
    recall(mind.agent)  # the key's first use writes last_used_at; measure from the second call on
    with CaptureQueriesContext(connection) as few:
        assert recall(mind.agent).status_code == 200
    for index in range(40):
        remember(mind.mind, agent, category="note", key=f"more_{index}", content=f"Note {index}", tags=["b", "c"])
    with CaptureQueriesContext(connection) as many:
        assert recall(mind.agent, format="json").status_code == 200
    with CaptureQueriesContext(connection) as many_text:
        assert recall(mind.agent).status_code == 200
    assert len(many) == len(few)
    assert len(many_text) == len(few)
    assert sum("memories_memory" in query["sql"] for query in few.captured_queries) == 2


def test_recall_order_is_priority_then_most_recently_updated_then_id_as_its_index_stores_it():
    assert RECALL_ORDER == ("priority_rank", "-updated_at", "id")
    index = next(index for index in Memory._meta.indexes if index.name == "memory_recall_order_idx")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [index.name])
        (definition,) = cursor.fetchone()
    assert definition.endswith("(mind_id, priority_rank, updated_at DESC, id)")


# --- the pure renderer ------------------------------------------------------------------------


def test_line_breaks_in_a_key_or_tag_cannot_break_the_layout():
    rendered = recall_render(
        mind_name="Two\nLines",
        counts=RecallCounts(total=1, verified=1, unverified=0),
        entries=[
            RecallEntry(category="fact", priority="high", verified=True, key="k", content="a\n\nb", tags=["x\ny"])
        ],
        limit=10,
    )
    assert rendered.text == (
        "Mind: Two Lines\n"
        "Memories: 1 total (1 verified, 0 unverified)\n"
        "\n"
        "[001] fact (HIGH) [verified]\n"
        "  k\n"
        "  a\n"
        "  \n"
        "  b\n"
        "  Tags: x y\n"
    )


def test_a_max_chars_shorter_than_the_header_leaves_the_header_and_the_omission_line():
    rendered = recall_render(
        mind_name="M",
        counts=RecallCounts(total=2, verified=0, unverified=2),
        entries=[RecallEntry(category="note", priority="low", verified=False, key="k", content="c", tags=[])] * 2,
        limit=10,
        max_chars=5,
    )
    assert rendered.text == (
        "Mind: M\nMemories: 2 total (0 verified, 2 unverified)\n\n… 2 more memories not shown (max_chars 5).\n"
    )
    assert (rendered.shown, rendered.omitted) == (0, 2)


def test_entry_numbers_grow_past_three_digits():
    entries = [RecallEntry(category="note", priority="low", verified=False, key="k", content="c", tags=[])] * 1000
    rendered = recall_render(
        mind_name="M", counts=RecallCounts(total=1000, verified=0, unverified=1000), entries=entries, limit=1000
    )
    assert "\n[999] note (LOW) [unverified]\n" in rendered.text
    assert rendered.text.endswith("\n[1000] note (LOW) [unverified]\n  k\n  c\n")
