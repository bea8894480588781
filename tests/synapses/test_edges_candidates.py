"""Edge candidates against the real database: the timeline list of a crowded window, and what a
promotion batch keeps of the net between its knots (synapses.net.selectors.candidates.NetFacts)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.test.utils import override_settings

from memories.models import Memory
from synapses import constants
from synapses.models import Knot
from synapses.net.selectors.candidates import NetFacts, edge_candidates, knot_vector_plan
from tests.factories import knot_make, knots_save
from tests.vectors import at_cosine, axis

pytestmark = pytest.mark.django_db

DAY = datetime(2026, 3, 10, 12, tzinfo=UTC)


def _default_candidates(knot: Knot):
    """The knot's candidates with the product's default list sizes, window and cap."""
    return edge_candidates(
        knot=knot,
        embedding_candidates=constants.EMBEDDING_CANDIDATES,
        layer_candidates=constants.LAYER_CANDIDATES,
        tolerances=constants.TIMELINE_TOLERANCES,
        common_carriers=constants.MAX_EDGE_PAIRS_PER_KNOT,
        carriers_probe=201,
    )


def _knots_at(mind, offsets_minutes: list[int], *, rng: np.random.Generator, inactive_every: int) -> list[Knot]:
    """One knot of precision "day" per offset from DAY, random vectors; every `inactive_every`-th inactive."""
    knots = []
    for number, offset in enumerate(offsets_minutes):
        vector = rng.standard_normal(384)
        knots.append(
            knot_make(
                mind=mind,
                weight_anchor=2.0,
                embedding=(vector / np.linalg.norm(vector)).tolist(),
                event_time=DAY + timedelta(minutes=offset),
                event_precision="day",
                is_active=number % inactive_every != 0,
                save=False,
            )
        )
    return knots_save(knots)


def test_a_crowded_window_offers_the_nearest_active_anchors_on_both_sides_of_the_new_one(the_mind):
    rng = np.random.default_rng(11)
    # 330 anchors after DAY (even minutes) and 170 before it (odd minutes): no two equally far
    # from DAY, all inside the day precision's 21-day tolerance, every 7th inactive.
    after = rng.choice(np.arange(2, 20 * 1440, 2), size=330, replace=False).tolist()
    before = (-rng.choice(np.arange(1, 20 * 1440, 2), size=170, replace=False)).tolist()
    knots = _knots_at(the_mind, after + before, rng=rng, inactive_every=7)
    new = knot_make(mind=the_mind, weight_anchor=1.0, event_time=DAY, event_precision="day", embedding=axis(0))

    found = _default_candidates(new)

    active = [(knot, number) for number, knot in enumerate(knots) if number % 7 != 0]
    by_time = sorted(active, key=lambda pair: abs((pair[0].event_time - DAY).total_seconds()))
    by_cosine = sorted(active, key=lambda pair: -float(np.dot(pair[0].embedding, axis(0))))
    nearest_in_time = {knot.pk for knot, _ in by_time[: constants.LAYER_CANDIDATES]}
    nearest_by_cosine = {knot.pk for knot, _ in by_cosine[: constants.EMBEDDING_CANDIDATES]}
    offered = {candidate.knot_id for candidate in found.candidates}
    assert nearest_in_time <= offered
    assert offered == nearest_in_time | nearest_by_cosine
    # Both sides of DAY are among the nearest in time, so neither direction's scan alone would do.
    sides = {knot.event_time > DAY for knot, _ in by_time[: constants.LAYER_CANDIDATES]}
    assert sides == {True, False}


def _carriers(mind, count: int, entity: int) -> list[Knot]:
    return [
        knot_make(mind=mind, weight_anchor=2.0, entities=[entity], embedding=axis(n % 300 + 1)) for n in range(count)
    ]


@override_settings(SYNAPSE_EXACT_SCAN_MAX_ROWS=5)
def test_a_batch_counts_a_mind_above_the_bound_and_a_common_entity_once_and_a_rare_one_each_time(the_mind):
    common = _carriers(the_mind, 12, entity=7)
    _carriers(the_mind, 2, entity=8)
    facts = NetFacts()

    first = knot_vector_plan(mind_id=the_mind.pk, candidates=200, entities=[7, 8], carriers_probe=10, facts=facts)
    assert (first.vector_plan, first.carriers) == ("hnsw", {7: 10, 8: 2})
    assert facts.active_above_bound == {the_mind.pk}

    # Another transaction deletes the common entity's knots: the batch keeps what it counted for
    # its own remaining knots, and counts the rare entity again (its two carriers became three).
    Memory.objects.filter(pk__in=[knot.memory_id for knot in common]).delete()
    _carriers(the_mind, 1, entity=8)
    second = knot_vector_plan(mind_id=the_mind.pk, candidates=200, entities=[7, 8], carriers_probe=10, facts=facts)
    assert (second.vector_plan, second.carriers) == ("hnsw", {7: 10, 8: 3})

    fresh = knot_vector_plan(mind_id=the_mind.pk, candidates=200, entities=[7, 8], carriers_probe=10)
    assert (fresh.vector_plan, fresh.carriers) == ("exact", {7: 0, 8: 3})


def test_a_candidate_carries_its_entities_themes_and_time_only_where_they_can_make_a_layer(the_mind):
    month = datetime(2026, 3, 1, tzinfo=UTC)
    sharing = knot_make(
        mind=the_mind,
        weight_anchor=2.0,
        embedding=at_cosine(0.9),
        entities=[1, 2],
        themes=["work", "sport"],
        event_time=DAY - timedelta(days=2),
        event_precision="day",
    )
    apart = knot_make(
        mind=the_mind,
        weight_anchor=2.0,
        embedding=at_cosine(0.8),
        entities=[3],
        themes=["music"],
        event_time=month,
        event_precision="month",
    )
    new = knot_make(
        mind=the_mind,
        weight_anchor=1.0,
        embedding=axis(0),
        entities=[1],
        themes=["work"],
        event_time=DAY,
        event_precision="day",
    )

    found = _default_candidates(new)

    by_id = {candidate.knot_id: candidate for candidate in found.candidates}
    assert set(by_id) == {sharing.pk, apart.pk}
    shared, other = by_id[sharing.pk], by_id[apart.pk]
    assert (shared.entities, set(shared.themes), shared.event_time) == ((1, 2), {"work", "sport"}, sharing.event_time)
    assert (other.entities, other.themes, other.event_time, other.event_precision) == ((), (), None, "month")
    assert (round(shared.cosine, 6), round(other.cosine, 6)) == (0.9, 0.8)
