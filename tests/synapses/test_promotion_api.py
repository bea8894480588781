"""Acceptance 2 end to end: memories written through the API, promoted by the task the write
enqueued (called here with exactly the ids the lifecycle handed it on commit, not by a sleeping
worker), read back through the database and the API."""

from __future__ import annotations

import math
from datetime import timedelta
from functools import partial

import pytest
from django.utils import timezone

from memories.lifecycle import PROMOTE_TASK
from synapses import tasks
from synapses.config import synapse_settings
from synapses.models import Edge, Knot, KnotPresence, LinkKind, MemoryKnot
from synapses.net.geometry import cosine_similarity
from synapses.upkeep.decay import knots_decay

pytestmark = pytest.mark.django_db

# Two memories about Mira that share no other word, so only the entity layer can join them.
GARDEN = "Mira planted three apple trees behind the old barn last spring."
TAXES = "Quarterly returns were filed electronically by Mira on Tuesday morning."


def _damp(raw: float) -> float:
    """damp() written out from the formula, independently of synapses.net.geometry."""
    return 10 * math.sin(min(raw / 10, 1) * math.pi / 2) ** 0.5


def _store_and_promote(client, capture, path="/memory", **fields) -> dict:
    """POST the memory, then run the promotion task the write enqueued on commit."""
    with capture() as callbacks:
        response = client.post(path, {"category": "fact", **fields}, format="json")
    assert response.status_code in (200, 201), response.json()
    enqueued = [cb.args[1] for cb in callbacks if isinstance(cb, partial) and cb.args[:1] == (PROMOTE_TASK,)]
    assert enqueued == [[response.json()["id"]]]
    tasks.memories_promote(*enqueued)
    return response.json()


def test_two_memories_sharing_an_entity_become_two_knots_joined_by_the_entity_layer(
    mind, owner, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    garden = _store_and_promote(mind.agent, capture, key="garden", content=GARDEN, entities=["Mira"], salience=0.9)
    # A human's write is verified, so it is mature at once whatever its salience.
    taxes = _store_and_promote(
        owner.client, capture, path=f"/memory?mind={mind.mind.pk}", key="taxes", content=TAXES,
        entities=["mira"], salience=0.3,
    )  # fmt: skip
    knots = {knot.memory_id: knot for knot in Knot.objects.filter(mind=mind.mind)}
    assert set(knots) == {garden["id"], taxes["id"]}
    strong, weak = knots[garden["id"]], knots[taxes["id"]]
    assert cosine_similarity(strong.embedding, weak.embedding) <= synapse_settings.EMBEDDING_THRESHOLD
    assert strong.entities == weak.entities and len(strong.entities) == 1

    edges = {(edge.source_id, edge.target_id): edge for edge in Edge.objects.filter(mind=mind.mind)}
    assert set(edges) == {(weak.pk, strong.pk), (strong.pk, weak.pk)}
    assert all(edge.layers == ["entity"] and edge.shared_entities == strong.entities for edge in edges.values())
    # §3 with the entity layer alone: factor 1, depth 1, no bonus; the weak knot is pulled up by
    # 0.444 of the gap, the strong one down by 0.297 of it.
    anchor_strong, anchor_weak = _damp(0.9), _damp(0.3)
    gap = anchor_strong - anchor_weak
    up, down = anchor_weak + gap * 0.444, anchor_strong - gap * 0.297
    assert edges[(weak.pk, strong.pk)].weight_raw == pytest.approx(up, abs=1e-9)
    assert edges[(strong.pk, weak.pk)].weight_raw == pytest.approx(down, abs=1e-9)
    assert edges[(weak.pk, strong.pk)].weight_anchor == pytest.approx(_damp(up), abs=1e-9)
    assert edges[(strong.pk, weak.pk)].weight_anchor == pytest.approx(_damp(down), abs=1e-9)
    assert (round(up, 3), round(down, 3)) == (2.873, 3.283)  # by hand: anchors 3.7537 and 2.1704

    # The same content under another key links to the existing knot and changes no weight.
    weights = sorted(Edge.objects.values_list("id", "weight_raw", "weight_anchor"))
    presence = KnotPresence.objects.values().get(knot=strong)
    copy = _store_and_promote(mind.agent, capture, key="garden-again", content=GARDEN, salience=0.9)
    link = MemoryKnot.objects.get(memory_id=copy["id"])
    assert (link.knot_id, link.kind) == (strong.pk, LinkKind.DUPLICATE)
    assert Knot.objects.filter(mind=mind.mind).count() == 2
    assert sorted(Edge.objects.values_list("id", "weight_raw", "weight_anchor")) == weights
    assert KnotPresence.objects.values().get(knot=strong) == presence
    assert mind.agent.get(f"/memory/{copy['id']}").json()["knot_id"] == strong.pk

    # Faded below the minimum, a twin brings the knot back at half presence.
    knots_decay(rate=1.0, min_weight=0.1, now=timezone.now() + timedelta(days=30))
    assert not KnotPresence.objects.filter(knot=weak).values_list("is_active", flat=True)[0]
    twin = _store_and_promote(mind.agent, capture, key="taxes-again", content=TAXES, salience=0.9)
    assert MemoryKnot.objects.get(memory_id=twin["id"]).kind == LinkKind.REACTIVATED
    revived = KnotPresence.objects.get(knot=weak)
    assert revived.is_active
    assert revived.weight_present == pytest.approx((anchor_weak + 0.1) / 2, abs=1e-9)
    assert sorted(Edge.objects.values_list("id", "weight_raw", "weight_anchor")) == weights

    # Deleting a memory leaves no knot or edge of it; its duplicate is pending again.
    assert mind.agent.delete(f"/memory/{garden['id']}").status_code == 200
    assert not Knot.objects.filter(memory_id=garden["id"]).exists()
    assert not Edge.objects.filter(mind=mind.mind).exists()
    assert not MemoryKnot.objects.filter(memory_id=copy["id"]).exists()
    again = mind.agent.get(f"/memory/{copy['id']}").json()
    assert (again["knot_id"], again["promoted_at"]) == (None, None)
    # …and the next promotion makes it a knot of its own.
    assert tasks.memories_promote([copy["id"]])["created"] == 1
