"""Promotion (docs/synapse-model.md §4) against the real database: maturity, the match test and its
three outcomes, superseded versions, magnets, failures and parking, the task, the schedule, the
command and /memory/health."""

from __future__ import annotations

import hashlib
import math
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone
from django_q.models import Schedule

from memories.models import Memory
from memories.selectors.knots import memories_knot_ids_attach
from memories.selectors.memory import memories_of
from memories.services.memory import embed_all
from pipelinelog.models import LogEntry
from synapses import tasks
from synapses.config import synapse_settings
from synapses.events import KnotEvent, knots_changed
from synapses.models import Entity, Knot, KnotPresence, LinkKind, MemoryKnot, PromotionAttempt
from synapses.promotion import service as promotion
from synapses.promotion.service import Outcome, candidates_select, memories_promote
from synapses.upkeep.decay import knots_decay
from tests.factories import knot_make, memory_make

pytestmark = pytest.mark.django_db

ALICE = "Alice planted three apple trees behind the old barn last spring."
BOB = "The quarterly tax return was filed electronically on Tuesday morning."


def _promoted_at(memory: Memory):
    """The memory object's `promoted_at` as the API derives it (the link of its current content)."""
    (fresh,) = memories_of(memory.mind_id).filter(pk=memory.pk)
    memories_knot_ids_attach([fresh])
    return fresh.promoted_at


def _promoted(memory: Memory) -> MemoryKnot | None:
    memory.refresh_from_db()
    return MemoryKnot.objects.filter(memory=memory, content_hash=memory.content_hash).first()


# --- maturity --------------------------------------------------------------------------------------


def test_a_verified_memory_is_mature_at_once(mind):
    memory = memory_make(mind=mind.mind, key="v", content=ALICE, salience=0.2, verified=True, embedded=True)
    summary = memories_promote(memory_ids=[memory.pk])
    assert (summary.selected, summary.created) == (1, 1)
    assert _promoted(memory).kind == LinkKind.ORIGIN


def test_a_salience_of_0_85_is_mature_at_once_and_0_84_waits(mind):
    salient = memory_make(mind=mind.mind, key="s", content=ALICE, salience=0.85, embedded=True)
    waiting = memory_make(mind=mind.mind, key="w", content=BOB, salience=0.84, embedded=True)
    summary = memories_promote(memory_ids=[salient.pk, waiting.pk])
    assert (summary.selected, summary.not_pending, summary.created) == (1, 1, 1)
    assert _promoted(salient) is not None
    assert _promoted(waiting) is None


def test_a_memory_unwritten_for_ten_minutes_is_mature_and_one_of_nine_minutes_is_not(mind):
    now = timezone.now()
    settled = memory_make(
        mind=mind.mind, key="old", content=ALICE, salience=0.3, created_at=now - timedelta(minutes=11), embedded=True
    )
    fresh = memory_make(
        mind=mind.mind, key="new", content=BOB, salience=0.3, created_at=now - timedelta(minutes=9), embedded=True
    )
    summary = memories_promote(mind_id=mind.mind.pk)
    assert (summary.selected, summary.created) == (1, 1)
    assert _promoted(settled) is not None
    assert _promoted(fresh) is None


def test_an_expired_memory_is_never_promoted_not_even_with_now(mind):
    past = timezone.now() - timedelta(seconds=1)
    memory = memory_make(
        mind=mind.mind, key="gone", content=ALICE, verified=True, expires_at=past, embedded=True, salience=0.9
    )
    assert memories_promote(memory_ids=[memory.pk]).selected == 0
    assert memories_promote(now_all=True).selected == 0
    assert not Knot.objects.exists()


def test_now_takes_every_pending_memory_whatever_its_age_and_salience(mind):
    memory = memory_make(mind=mind.mind, key="fresh", content=ALICE, salience=0.1, embedded=True)
    assert memories_promote().selected == 0
    summary = memories_promote(now_all=True)
    assert (summary.selected, summary.created) == (1, 1)
    assert _promoted(memory) is not None


def test_a_promoted_version_is_not_taken_again(mind):
    memory = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[memory.pk])
    again = memories_promote(memory_ids=[memory.pk])
    assert (again.selected, again.not_pending) == (0, 1)
    assert Knot.objects.count() == 1


def test_a_claim_that_raced_a_commit_ends_in_the_unique_constraint_and_counts_as_skipped(mind, monkeypatch):
    memory = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    (candidate,) = candidates_select(now=timezone.now(), memory_ids=[memory.pk])
    memories_promote(memory_ids=[memory.pk])
    # As if the claim's snapshot predated the other worker's commit: the row is taken although linked.
    monkeypatch.setattr(
        promotion, "batch_claim", lambda candidates, **_: [Memory.objects.get(pk=c.memory_id) for c in candidates]
    )
    (result,) = promotion.batch_promote([candidate], size=1).outcomes
    assert result.outcome == Outcome.SKIPPED
    assert Knot.objects.count() == 1 and MemoryKnot.objects.count() == 1
    assert not PromotionAttempt.objects.exists()


# --- creating a knot -------------------------------------------------------------------------------


def test_a_new_knot_freezes_the_memory_and_starts_at_its_damped_salience(mind):
    moment = timezone.now() - timedelta(days=3)
    memory = memory_make(
        mind=mind.mind, key="a", content=ALICE, salience=0.9, tags=["garden", "family", "garden"], embedded=True
    )
    Memory.objects.filter(pk=memory.pk).update(event_time=moment, event_precision="day", emotion="joy")
    memories_promote(memory_ids=[memory.pk])
    knot = Knot.objects.get()
    memory.refresh_from_db()
    expected_anchor = 10 * math.sin(0.09 * math.pi / 2) ** 0.5  # damp(0.9), by the formula
    assert (knot.content, knot.content_hash, knot.memory_id) == (ALICE, memory.content_hash, memory.pk)
    assert knot.themes == ["family", "garden"]
    assert (knot.event_time, knot.event_precision, knot.emotion) == (moment, "day", "joy")
    assert knot.weight_raw == 0.9
    assert knot.weight_anchor == pytest.approx(expected_anchor)
    assert knot.activation_count == 1
    presence = KnotPresence.objects.get(knot=knot)
    assert presence.presence_base == presence.weight_present == pytest.approx(expected_anchor)
    assert presence.is_active
    assert _promoted_at(memory) is not None
    assert list(knot.embedding) == pytest.approx(list(memory.embedding))


def test_a_memory_without_a_vector_gets_one_before_its_knot(mind):
    memory = memory_make(mind=mind.mind, key="a", content=ALICE, salience=0.9)
    assert memory.embedding is None
    memories_promote(memory_ids=[memory.pk])
    memory.refresh_from_db()
    knot = Knot.objects.get()
    assert memory.embedding is not None and memory.embedding_model == "hashing-v1"
    assert knot.embedding_model == "hashing-v1"
    assert list(knot.embedding) == pytest.approx(list(memory.embedding))


def test_a_changed_content_becomes_a_new_knot_and_the_old_one_stays_superseded(mind):
    memory = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[memory.pk])
    first = Knot.objects.get()
    Memory.objects.filter(pk=memory.pk).update(content=BOB, content_hash=hashlib.sha256(BOB.encode()).hexdigest())
    memory.refresh_from_db()
    embed_all([memory])
    memory.save(update_fields=["embedding", "embedding_model"])
    summary = memories_promote(memory_ids=[memory.pk])
    assert summary.created == 1
    second = Knot.objects.exclude(pk=first.pk).get()
    assert second.content == BOB
    assert Knot.objects.filter(pk=first.pk, content=ALICE).exists()  # stays, now superseded
    assert first.content_hash != memory.content_hash == second.content_hash


def test_the_same_content_of_the_same_memory_after_an_edit_back_is_promoted_already(mind):
    memory = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[memory.pk])
    # An edit that comes back to a promoted content finds its link: nothing to do.
    assert memories_promote(memory_ids=[memory.pk], now_all=True).selected == 0


# --- the match test --------------------------------------------------------------------------------


def test_the_same_content_under_another_key_links_to_the_knot_and_strengthens_nothing(mind):
    first = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[first.pk])
    knot = Knot.objects.get()
    before = KnotPresence.objects.values().get(knot=knot)
    twin = memory_make(mind=mind.mind, key="b", content=ALICE, embedded=True, salience=0.9)
    summary = memories_promote(memory_ids=[twin.pk])
    assert (summary.duplicates, summary.created) == (1, 0)
    link = _promoted(twin)
    assert (link.kind, link.knot_id) == (LinkKind.DUPLICATE, knot.pk)
    assert KnotPresence.objects.values().get(knot=knot) == before
    knot_after = Knot.objects.get()
    assert (knot_after.weight_raw, knot_after.weight_anchor, knot_after.activation_count) == (
        knot.weight_raw,
        knot.weight_anchor,
        1,
    )
    assert _promoted_at(twin) is not None


def test_an_inactive_twin_is_half_reactivated_and_decay_continues_from_there(mind, settings):
    settings.SYNAPSE_MIN_WEIGHT = 0.5
    faded = memory_make(mind=mind.mind, key="old", content=ALICE, embedded=True, salience=0.9)
    knot = knot_make(
        memory=faded,
        weight_anchor=4.0,
        is_active=False,
        presence=0.3,
        embedding=faded.embedding,
        embedding_model=faded.embedding_model,
    )
    twin = memory_make(mind=mind.mind, key="new", content=ALICE, embedded=True, salience=0.9)
    summary = memories_promote(memory_ids=[twin.pk])
    assert summary.reactivated == 1
    assert _promoted(twin).kind == LinkKind.REACTIVATED
    presence = KnotPresence.objects.get(knot=knot)
    assert presence.is_active
    assert presence.presence_base == presence.weight_present == pytest.approx(2.25)
    knot.refresh_from_db()
    assert (knot.weight_anchor, knot.activation_count) == (4.0, 1)
    # Thirty days later, at rate 0.02, the presence has decayed from 2.25 (not from the anchor 4.0).
    knots_decay(rate=0.02, min_weight=0.5, now=presence.reinforced_at + timedelta(days=30))
    assert KnotPresence.objects.get(knot=knot).weight_present == pytest.approx(2.25 * math.exp(-0.6), abs=1e-4)


def test_below_the_match_threshold_a_similar_memory_gets_its_own_knot(mind, settings):
    first = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[first.pk])
    settings.SYNAPSE_MATCH_THRESHOLD = 1.01  # nothing is ever close enough
    twin = memory_make(mind=mind.mind, key="b", content=ALICE, embedded=True, salience=0.9)
    assert memories_promote(memory_ids=[twin.pk]).created == 1
    assert Knot.objects.count() == 2


def test_the_match_test_looks_at_knots_of_the_mind_only(mind, other_mind):
    theirs = memory_make(mind=other_mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[theirs.pk])
    mine = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    assert memories_promote(memory_ids=[mine.pk]).created == 1


# --- magnets ---------------------------------------------------------------------------------------


def test_explicit_names_become_entities_once_per_mind_whatever_their_case(mind):
    first = memory_make(mind=mind.mind, key="a", content=ALICE, entities=["Alice", "Barn"], embedded=True, salience=0.9)
    second = memory_make(mind=mind.mind, key="b", content=BOB, entities=["ALICE"], embedded=True, salience=0.9)
    memories_promote(memory_ids=[first.pk, second.pk])
    entities = dict(Entity.objects.filter(mind=mind.mind).values_list("name", "pk"))
    assert sorted(entities) == ["Alice", "Barn"]
    knots = {knot.memory_id: knot for knot in Knot.objects.all()}
    assert sorted(knots[first.pk].entities) == sorted([entities["Alice"], entities["Barn"]])
    assert knots[second.pk].entities == [entities["Alice"]]


def test_known_names_and_aliases_are_found_in_the_content_as_whole_words(mind, other_mind):
    anna = Entity.objects.create(mind=mind.mind, name="Anna Schmidt", aliases=["Anni", "Dr. Schmidt"])
    # "barn" is in the content, but a common word counts only written with its capital: not found.
    Entity.objects.create(mind=mind.mind, name="Barn")
    Entity.objects.create(mind=mind.mind, name="Ann")  # only inside "Annie": not found
    Entity.objects.create(mind=other_mind.mind, name="Annie")  # another mind's: never
    memory = memory_make(
        mind=mind.mind, key="a", content="annie and ANNI met dr. schmidt at the barn.", embedded=True, salience=0.9
    )
    memories_promote(memory_ids=[memory.pk])
    names = set(Entity.objects.filter(pk__in=Knot.objects.get().entities).values_list("name", flat=True))
    assert names == {"Anna Schmidt"}
    assert anna.pk in Knot.objects.get().entities
    later = memory_make(mind=mind.mind, key="b", content="We painted the Barn red.", embedded=True, salience=0.9)
    memories_promote(memory_ids=[later.pk])
    knot = Knot.objects.get(memory=later)
    assert set(Entity.objects.filter(pk__in=knot.entities).values_list("name", flat=True)) == {"Barn"}
    assert knot.magnets["entities"][0]["rule"] in ("known", "mid-sentence")


def test_an_explicit_name_that_is_a_known_alias_resolves_to_that_entity(mind):
    anna = Entity.objects.create(mind=mind.mind, name="Anna Schmidt", aliases=["Anni"])
    memory = memory_make(mind=mind.mind, key="a", content=BOB, entities=["anni"], embedded=True, salience=0.9)
    memories_promote(memory_ids=[memory.pk])
    assert Knot.objects.get().entities == [anna.pk]
    assert Entity.objects.filter(mind=mind.mind).count() == 1


# --- failures and parking --------------------------------------------------------------------------


def test_a_failing_memory_is_counted_logged_retried_and_parked_after_three_attempts(mind):
    broken = memory_make(mind=mind.mind, key="blank", content="   ", embedded=True, salience=0.9)
    outcomes = [memories_promote(mind_id=mind.mind.pk) for _ in range(3)]
    assert [(s.failed, s.parked) for s in outcomes] == [(1, 0), (1, 0), (0, 1)]
    attempt = PromotionAttempt.objects.get(memory=broken)
    assert attempt.attempts == 3 and attempt.parked_at is not None
    assert "no content" in attempt.last_error
    assert memories_promote(mind_id=mind.mind.pk).selected == 0  # parked: left alone
    errors = LogEntry.objects.filter(node="synapses.promotion", kind="error")
    assert [row.content["attempts"] for row in errors.order_by("created_at", "id")] == [1, 2, 3]
    # A new version of the content starts afresh.
    Memory.objects.filter(pk=broken.pk).update(content=ALICE, content_hash=hashlib.sha256(ALICE.encode()).hexdigest())
    assert memories_promote(mind_id=mind.mind.pk).created == 1


@override_settings(SYNAPSE_EMBEDDER="openai", SYNAPSE_OPENAI_URL="http://127.0.0.1:9/v1/embeddings")
def test_an_embedder_that_is_down_stops_the_run_and_counts_nothing(mind):
    first = memory_make(mind=mind.mind, key="a", content=ALICE, salience=0.9)
    memory_make(mind=mind.mind, key="b", content=BOB, salience=0.9)
    summary = memories_promote(memory_ids=[first.pk], now_all=True)
    assert (summary.deferred, summary.failed, summary.parked) == (1, 0, 0)
    assert summary.stopped
    everything = memories_promote(now_all=True)
    assert (everything.selected, everything.deferred) == (2, 1)  # stopped after the first
    assert not PromotionAttempt.objects.exists()
    assert not Knot.objects.exists()


# --- the log ---------------------------------------------------------------------------------------


def test_one_span_per_memory_holds_the_magnets_the_match_and_the_outcome(mind):
    first = memory_make(mind=mind.mind, key="a", content=ALICE, entities=["Alice"], embedded=True, salience=0.9)
    memories_promote(memory_ids=[first.pk])
    twin = memory_make(mind=mind.mind, key="b", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[twin.pk])
    rows = LogEntry.objects.filter(node="synapses.promotion").order_by("created_at", "id")
    spans = {row.span_id for row in rows}
    assert len(spans) == 2
    decisions = [row.content for row in rows if row.kind == "decision"]
    assert [d["outcome"] for d in decisions] == ["created", "duplicate"]
    assert decisions[0]["cosine"] is None  # an empty net: no nearest knot
    assert (
        decisions[1]["cosine"] == pytest.approx(1.0) and decisions[1]["threshold"] == synapse_settings.MATCH_THRESHOLD
    )
    magnets = [row.content for row in rows if row.kind == "calculation" and row.content.get("step") == "magnets"]
    assert magnets[0]["explicit_names"] == ["Alice"] and magnets[0]["entities_created"] == 1
    edges = [row.content for row in rows if row.kind == "db_write" and row.content.get("table") == "synapses_edge"]
    assert edges == [
        {
            "table": "synapses_edge",
            "operation": "insert",
            "candidates": 0,
            "pairs_firing": 0,
            "pairs_written": 0,
            "layer_counts": {},
        }
    ]
    assert all(row.mind_id == mind.mind.pk for row in rows)


# --- task, schedule, command, health ---------------------------------------------------------------


def test_the_task_promotes_the_ids_it_is_given_and_the_sweep_the_rest(mind):
    now = timezone.now()
    salient = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    settled = memory_make(
        mind=mind.mind, key="b", content=BOB, salience=0.1, created_at=now - timedelta(hours=1), embedded=True
    )
    assert tasks.memories_promote([salient.pk])["created"] == 1
    assert tasks.memory_promote(settled.pk)["created"] == 1  # the older single-id task name
    third = memory_make(
        mind=mind.mind,
        key="c",
        content="Completely unrelated words here.",
        salience=0.1,
        created_at=now - timedelta(hours=1),
        embedded=True,
    )
    assert tasks.promotion_sweep()["created"] == 1
    assert _promoted(third) is not None


def test_a_long_list_of_ids_is_cut_and_the_rest_handed_to_a_new_task_first(mind, settings, monkeypatch):
    settings.SYNAPSE_PROMOTION_BATCH_SIZE = 2
    contents = [ALICE, BOB, "Seven violins were tuned before the evening concert."]
    memories = [
        memory_make(mind=mind.mind, key=f"m{n}", content=content, embedded=True, salience=0.9)
        for n, content in enumerate(contents)
    ]
    enqueued = []
    monkeypatch.setattr(tasks, "async_task", lambda path, ids: enqueued.append((path, ids)))
    counts = tasks.memories_promote([memory.pk for memory in memories])
    assert (counts["selected"], counts["created"], counts["handed_on"]) == (2, 2, 1)
    assert enqueued == [("synapses.tasks.memories_promote", [memories[2].pk])]
    assert tasks.memories_promote(*enqueued[0][1:])["created"] == 1


def test_syncing_the_schedules_makes_a_sweep_every_minute(db):
    call_command("sync_schedules")
    sweep = Schedule.objects.get(name="synapse:promotion-sweep")
    assert (sweep.func, sweep.schedule_type, sweep.minutes) == ("synapses.tasks.promotion_sweep", Schedule.MINUTES, 1)


def test_the_command_promotes_a_mind_with_now_and_prints_the_summary(mind, other_mind, capsys):
    memory_make(mind=mind.mind, key="a", content=ALICE, salience=0.1, embedded=True)
    memory_make(mind=mind.mind, key="b", content=ALICE, salience=0.1, embedded=True)
    memory_make(mind=other_mind.mind, key="c", content=BOB, salience=0.1, embedded=True)
    call_command("promote", "--mind", mind.mind.pk, "--now", "--batch-size", "1")
    out = capsys.readouterr().out
    assert "promoted 2 of 2 memories: 1 new knots, 1 duplicates, 0 reactivated" in out
    assert Knot.objects.filter(mind=mind.mind).count() == 1
    assert not Knot.objects.filter(mind=other_mind.mind).exists()


def test_the_command_refuses_an_unknown_mind(db):
    with pytest.raises(CommandError, match="No mind"):
        call_command("promote", "--mind", "nope")


def test_health_shows_parked_memories_and_the_last_promotion(mind):
    answer = mind.agent.get("/memory/health").json()
    assert (answer["parked"], answer["parked_memory_ids"], answer["last_promotion_at"]) == (0, [], None)
    good = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    broken = memory_make(mind=mind.mind, key="blank", content=" ", embedded=True, salience=0.9)
    for _ in range(3):
        memories_promote(mind_id=mind.mind.pk)
    answer = mind.agent.get("/memory/health").json()
    assert answer["parked"] == 1
    assert answer["parked_memory_ids"] == [broken.pk]
    link = MemoryKnot.objects.get(memory=good)
    assert answer["last_promotion_at"] == link.created_at.isoformat().replace("+00:00", "Z")


# --- batches ---------------------------------------------------------------------------------------


def test_twins_in_one_batch_make_one_knot_and_the_second_links_to_it_as_a_duplicate(mind):
    first = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    second = memory_make(mind=mind.mind, key="b", content=ALICE, embedded=True, salience=0.9)
    with CaptureQueriesContext(connection) as queries:
        summary = memories_promote(memory_ids=[first.pk, second.pk])
    claims = [query["sql"] for query in queries.captured_queries if "SKIP LOCKED" in query["sql"]]
    assert len(claims) == 1  # one batch claimed both
    assert (summary.created, summary.duplicates) == (1, 1)
    (knot,) = Knot.objects.filter(mind=mind.mind)
    links = dict(MemoryKnot.objects.filter(knot=knot).values_list("memory_id", "kind"))
    assert links == {first.pk: LinkKind.ORIGIN, second.pk: LinkKind.DUPLICATE}


def test_a_failing_memory_rolls_back_alone_and_the_rest_of_its_batch_is_promoted(mind):
    broken = memory_make(mind=mind.mind, key="blank", content="   ", entities=["Nobody"], embedded=True, salience=0.9)
    good = memory_make(mind=mind.mind, key="good", content=BOB, entities=["Quentin"], embedded=True, salience=0.9)
    summary = memories_promote(memory_ids=[broken.pk, good.pk])
    assert (summary.failed, summary.created) == (1, 1)
    assert _promoted(good).kind == LinkKind.ORIGIN and _promoted_at(good) is not None
    assert _promoted(broken) is None and _promoted_at(broken) is None
    assert PromotionAttempt.objects.get(memory=broken).attempts == 1


def test_a_second_batch_takes_what_the_first_left_and_every_memory_is_counted_once(mind, monkeypatch):
    monkeypatch.setattr(promotion, "PROMOTION_CLAIM_SIZE", 2)
    contents = [ALICE, BOB, "Seven violins were tuned before the evening concert.", "The ferry left at dawn."]
    memories = [
        memory_make(mind=mind.mind, key=f"m{n}", content=text, embedded=True, salience=0.9)
        for n, text in enumerate(contents)
    ]
    with CaptureQueriesContext(connection) as queries:
        summary = memories_promote(memory_ids=[memory.pk for memory in memories])
    assert sum("SKIP LOCKED" in query["sql"] for query in queries.captured_queries) == 2
    assert (summary.selected, summary.created, summary.skipped) == (4, 4, 0)
    assert Knot.objects.filter(mind=mind.mind).count() == 4


def test_a_batch_sends_one_knot_created_per_mind_naming_the_knots_it_created_but_not_its_duplicate(mind):
    received = []

    def listener(sender, **kwargs):
        received.append((kwargs["event"], kwargs["mind_id"], kwargs["knot_ids"]))

    memories = [
        memory_make(mind=mind.mind, key=f"m{n}", content=text, embedded=True, salience=0.9)
        for n, text in enumerate((ALICE, BOB, ALICE))
    ]
    knots_changed.connect(listener)
    try:
        summary = memories_promote(memory_ids=[memory.pk for memory in memories])
    finally:
        knots_changed.disconnect(listener)
    assert (summary.created, summary.duplicates) == (2, 1)
    created = tuple(Knot.objects.filter(mind=mind.mind).order_by("id").values_list("id", flat=True))
    assert received == [(KnotEvent.CREATED, mind.mind.pk, created)]


def test_a_content_change_makes_the_memory_pending_and_an_edit_back_restores_the_links_time(mind):
    memory = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[memory.pk])
    link = MemoryKnot.objects.get(memory=memory)
    bob_hash = hashlib.sha256(BOB.encode()).hexdigest()

    Memory.objects.filter(pk=memory.pk).update(content=BOB, content_hash=bob_hash)  # a bulk write path
    memory.refresh_from_db()
    assert _promoted_at(memory) is None
    assert [c.memory_id for c in candidates_select(now=timezone.now(), now_all=True)] == [memory.pk]

    Memory.objects.filter(pk=memory.pk).update(content=ALICE, content_hash=link.content_hash)
    memory.refresh_from_db()
    assert _promoted_at(memory) == link.created_at
    assert candidates_select(now=timezone.now(), now_all=True) == []


def test_a_write_that_keeps_the_content_leaves_promoted_at_alone(mind):
    memory = memory_make(mind=mind.mind, key="a", content=ALICE, embedded=True, salience=0.9)
    memories_promote(memory_ids=[memory.pk])
    memory.refresh_from_db()
    promoted = _promoted_at(memory)
    Memory.objects.filter(pk=memory.pk).update(salience=0.2, content_hash=memory.content_hash)
    memory.refresh_from_db()
    assert _promoted_at(memory) == promoted is not None
