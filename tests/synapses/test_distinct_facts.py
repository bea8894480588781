"""Issue 26, "distinct facts stay distinct" end to end: memories written through the API and
promoted by the task their write enqueued; the match test keeps a changed fact in a knot of its
own, resonance ranks the newer fact above the one it contradicts, and a knot's time comes from
the time its content names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial

import pytest

from memories.lifecycle import PROMOTE_TASK
from pipelinelog.models import LogEntry
from synapses import tasks
from synapses.config import synapse_settings
from synapses.models import Knot, LinkKind, MemoryKnot
from synapses.net.geometry import cosine_similarity
from tests.ui.conftest import logged_in

pytestmark = pytest.mark.django_db

ALLERGIC = "Alice is allergic to peanuts."
NOT_ALLERGIC = "Alice is not allergic to peanuts."


def _store_and_promote(client, capture, **fields) -> dict:
    """POST the memory (salient: mature at once), then run the promotion task it enqueued."""
    with capture() as callbacks:
        response = client.post("/memory", {"category": "fact", "salience": 0.9, **fields}, format="json")
    assert response.status_code == 201, response.json()
    enqueued = [cb.args[1] for cb in callbacks if isinstance(cb, partial) and cb.args[:1] == (PROMOTE_TASK,)]
    assert enqueued == [[response.json()["id"]]]
    tasks.memories_promote(*enqueued)
    return response.json()


def _match_decisions() -> list[dict]:
    rows = LogEntry.objects.filter(node="synapses.promotion", kind="decision").order_by("id")
    return [row.content for row in rows if row.content.get("decision") == "promotion.match"]


def test_a_negated_fact_makes_its_own_knot_and_outranks_the_older_at_once(
    mind, owner, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    older = _store_and_promote(mind.agent, capture, key="alice_allergy", content=ALLERGIC)
    newer = _store_and_promote(mind.agent, capture, key="alice_allergy_update", content=NOT_ALLERGIC)

    knots = {knot.memory_id: knot for knot in Knot.objects.filter(mind=mind.mind)}
    assert set(knots) == {older["id"], newer["id"]}  # two knots, not one
    # The embedder alone would have joined them: the contrast rule kept them apart.
    cosine = cosine_similarity(knots[older["id"]].embedding, knots[newer["id"]].embedding)
    assert cosine >= synapse_settings.MATCH_THRESHOLD
    decision = _match_decisions()[-1]
    assert decision["nearest_knot_id"] == knots[older["id"]].pk and decision["matched_knot_id"] is None
    assert decision["contrasts"] == [
        {"knot_id": knots[older["id"]].pk, "cosine": pytest.approx(cosine, abs=1e-5), "kind": "negation",
         "older": [], "newer": ["negated"]}
    ]  # fmt: skip

    response = mind.agent.get("/synapses/resonance", {"q": "Is Alice allergic to peanuts?"})
    assert response.status_code == 200, response.json()
    items = response.json()["items"]
    assert [item["content"] for item in items[:2]] == [NOT_ALLERGIC, ALLERGIC]
    assert [item["rank"] for item in items[:2]] == [1, 2]
    assert items[0]["contradicted_by"] is None
    assert items[1]["contradicted_by"] == knots[newer["id"]].pk

    # The agent's recall text and the owner's recall page say so.
    recall = mind.agent.get("/memory/recall", {"q": "Is Alice allergic to peanuts?"})
    text = recall.content.decode().split("Resonance for:")[1]
    assert f'"{ALLERGIC}"\n(contradicted by a newer memory shown below it)' in text
    assert text.index(ALLERGIC) < text.index(NOT_ALLERGIC)  # weakest first: the newer fact last
    page = logged_in(owner).get(f"/app/minds/{mind.mind.pk}/recall/", {"q": "Is Alice allergic to peanuts?"})
    assert f"Contradicted by a newer memory (knot <code>{knots[newer['id']].pk}</code>)" in page.content.decode()


def test_the_older_fact_would_rank_first_without_the_step(mind, django_capture_on_commit_callbacks):
    """The step is what puts the newer first: the query's own words favour the older fact."""
    capture = django_capture_on_commit_callbacks
    _store_and_promote(mind.agent, capture, key="a", content=ALLERGIC)
    _store_and_promote(mind.agent, capture, key="b", content=NOT_ALLERGIC)
    rows = LogEntry.objects.filter(node="synapses.resonance", kind="decision")
    mind.agent.get("/synapses/resonance", {"q": "Is Alice allergic to peanuts?"})
    moved = [row.content for row in rows if row.content.get("decision") == "contradictions"]
    anchors = [row.content for row in rows if row.content.get("decision") == "anchors"][-1]["anchors"]
    older_knot = Knot.objects.get(mind=mind.mind, content=ALLERGIC)
    assert anchors[0]["knot_id"] == older_knot.pk  # the ranking's first before the step
    assert len(moved) == 1


def test_a_restatement_still_joins_the_knot_and_a_changed_number_does_not(mind, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    first = _store_and_promote(mind.agent, capture, key="room_1", content="The meeting room is room 4.")
    again = _store_and_promote(mind.agent, capture, key="room_2", content="the meeting room is room 4")
    moved = _store_and_promote(mind.agent, capture, key="room_3", content="The meeting room is room 7.")
    link = MemoryKnot.objects.get(memory_id=again["id"])
    assert link.kind == LinkKind.DUPLICATE and link.knot.memory_id == first["id"]
    assert Knot.objects.filter(mind=mind.mind, memory_id=moved["id"]).exists()
    assert _match_decisions()[-1]["contrasts"][0]["kind"] == "number"


def test_a_knot_is_anchored_at_the_time_its_content_names(mind, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    given = _store_and_promote(
        mind.agent, capture, key="swim", content="We went swimming in the lake last Friday.", event_time="2024-05-15"
    )
    plain = _store_and_promote(mind.agent, capture, key="met", content="I met Anna yesterday at the station.")
    untimed = _store_and_promote(mind.agent, capture, key="plain", content="Anna likes tea.", event_time="2024-05-15")
    finer = _store_and_promote(
        mind.agent, capture, key="call", content="Anna called today.", event_time="2024-05-15T09:41:00Z"
    )
    knots = {knot.memory_id: knot for knot in Knot.objects.filter(mind=mind.mind)}
    # Relative to the event time (Wednesday 15 May 2024): the Friday before.
    assert (knots[given["id"]].event_time, knots[given["id"]].event_precision) == (
        datetime(2024, 5, 10, tzinfo=UTC),
        "day",
    )
    # Relative to the memory's creation when it has no event time.
    created = datetime.fromisoformat(plain["created_at"].replace("Z", "+00:00")).astimezone(UTC)
    day_before = (created - timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    assert (knots[plain["id"]].event_time, knots[plain["id"]].event_precision) == (day_before, "day")
    # No time in the content: the event time as given.
    assert (knots[untimed["id"]].event_time, knots[untimed["id"]].event_precision) == (
        datetime(2024, 5, 15, tzinfo=UTC),
        "day",
    )
    # "today" names the day the event time lies in: the event time keeps its minute.
    assert (knots[finer["id"]].event_time, knots[finer["id"]].event_precision) == (
        datetime(2024, 5, 15, 9, 41, tzinfo=UTC), "minute",
    )  # fmt: skip
