"""Triggers 2 and 3 against the real database: existing edges recomputed, never re-found."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from memories.models import EMBEDDING_DIMENSIONS
from synapses.models import Edge, Knot
from synapses.net.edges import knot_edges_form
from synapses.net.geometry import EdgeParameters
from synapses.upkeep.triggers import entity_edges_recompute, knot_edges_recompute, knot_time_anchor_correct
from tests.factories import knot_make
from tests.vectors import at_cosine, axis, damp_reference

pytestmark = pytest.mark.django_db

WORKED = EdgeParameters(embedding_threshold=0.85)
DAY = datetime(2026, 3, 10, 12, tzinfo=UTC)


def raws(a: Knot, b: Knot) -> tuple[float, float]:
    return Edge.objects.get(source=a, target=b).weight_raw, Edge.objects.get(source=b, target=a).weight_raw


def anchor_set(knot: Knot, anchor: float) -> None:
    Knot.objects.filter(pk=knot.pk).update(weight_anchor=anchor)
    knot.weight_anchor = anchor


def test_a_reinforced_knot_s_edges_follow_its_new_anchor_in_both_directions(the_mind):
    strong = knot_make(mind=the_mind, weight_anchor=5.0, entities=[7], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=0.7, entities=[7], embedding=axis(2))
    knot_edges_form(knot=new, params=WORKED)
    anchor_set(new, 2.0)

    result = knot_edges_recompute(knot=new, params=WORKED)

    # entity: factor 1, depth 1, no bonus. weak 2.0, strong 5.0, gap 3.
    up, down = 2.0 + 3 * 0.444, 5.0 - 3 * 0.297
    assert raws(new, strong) == (pytest.approx(up), pytest.approx(down))
    assert Edge.objects.get(source=new).weight_anchor == pytest.approx(damp_reference(up))
    assert (result.candidates, result.pairs_written, result.layer_counts) == (1, 1, {"entity": 1})


def test_recomputing_from_the_other_end_gives_each_row_its_own_direction(the_mind):
    strong = knot_make(mind=the_mind, weight_anchor=5.0, entities=[7], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=0.7, entities=[7], embedding=axis(2))
    knot_edges_form(knot=new, params=WORKED)
    before = raws(new, strong)

    knot_edges_recompute(knot=strong, params=WORKED)

    assert raws(new, strong) == (pytest.approx(before[0]), pytest.approx(before[1]))
    assert before == (pytest.approx(2.609, abs=0.005), pytest.approx(3.723, abs=0.005))


def test_a_raised_embedding_threshold_leaves_the_layer_at_depth_zero(the_mind):
    strong = knot_make(mind=the_mind, weight_anchor=5.0, event_time=DAY, event_precision="day", embedding=axis(0))
    new = knot_make(
        mind=the_mind,
        weight_anchor=0.7,
        event_time=DAY + timedelta(days=4),
        event_precision="day",
        embedding=at_cosine(0.90),
    )
    knot_edges_form(knot=new, params=WORKED)

    knot_edges_recompute(knot=new, params=EdgeParameters(embedding_threshold=0.95))

    # embedding still wins (factor 0.8) with depth 0: both directions collapse to A' = 0.7·0.8 + 0.1.
    assert raws(new, strong) == (pytest.approx(0.66), pytest.approx(0.66))
    assert Edge.objects.get(source=new).layers == ["embedding", "timeline"]


@pytest.mark.parametrize("pairs", [3, 40])
def test_recomputing_a_knot_takes_the_same_five_statements_for_3_or_40_pairs(the_mind, pairs):
    for index in range(pairs):
        knot_make(mind=the_mind, weight_anchor=1.0 + index / 10, entities=[7], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=1.0, entities=[7], embedding=axis(2))
    knot_edges_form(knot=new, params=WORKED)
    anchor_set(new, 3.0)

    with CaptureQueriesContext(connection) as queries:
        result = knot_edges_recompute(knot=new, params=WORKED)

    # SAVEPOINT, the edges with both knots, the entities' carriers, one bulk update, RELEASE.
    assert len(queries.captured_queries) == 5
    assert result.pairs_written == pairs


def test_merging_two_entities_adds_the_entity_layer_to_pairs_that_now_share_it(the_mind):
    anna = knot_make(mind=the_mind, weight_anchor=2.0, entities=[1], themes=["tea"], embedding=axis(1))
    annie = knot_make(mind=the_mind, weight_anchor=2.0, entities=[2], themes=["tea"], embedding=axis(2))
    knot_edges_form(knot=annie, params=WORKED)
    assert Edge.objects.get(source=annie).layers == ["themes"]
    Knot.objects.filter(pk=annie.pk).update(entities=[1])

    result = entity_edges_recompute(mind_id=the_mind.pk, entity_id=1, former_ids=[2], params=WORKED)

    row = Edge.objects.get(source=annie, target=anna)
    assert row.layers == ["entity", "themes"] and row.shared_entities == [1]
    # entity wins (depth 1), themes add the bonus: both 2.0 + 0.1.
    assert raws(annie, anna) == (pytest.approx(2.1), pytest.approx(2.1))
    assert result.layer_counts == {"entity": 1, "themes": 1}


def test_an_entity_removed_from_the_knots_deletes_pairs_it_alone_held_and_keeps_the_others(the_mind):
    a = knot_make(mind=the_mind, weight_anchor=2.0, entities=[5], embedding=axis(1))
    b = knot_make(mind=the_mind, weight_anchor=2.0, entities=[5], themes=["x"], embedding=axis(2))
    knot_edges_form(knot=b, params=WORKED)
    c = knot_make(mind=the_mind, weight_anchor=2.0, entities=[5], themes=["x"], embedding=axis(3))
    knot_edges_form(knot=c, params=WORKED)
    assert Edge.objects.count() == 6
    Knot.objects.filter(pk__in=[a.pk, b.pk, c.pk]).update(entities=[])

    result = entity_edges_recompute(mind_id=the_mind.pk, entity_id=5, params=WORKED)

    assert set(Edge.objects.values_list("source_id", "target_id")) == {(b.pk, c.pk), (c.pk, b.pk)}
    assert Edge.objects.get(source=b).layers == ["themes"] and Edge.objects.get(source=b).shared_entities == []
    assert (result.candidates, result.pairs_firing) == (3, 1)


def test_a_corrected_time_anchor_moves_the_timeline_depth(the_mind):
    other = knot_make(mind=the_mind, weight_anchor=5.0, event_time=DAY, event_precision="day", embedding=axis(1))
    new = knot_make(
        mind=the_mind, weight_anchor=0.7, event_time=DAY + timedelta(days=4), event_precision="day", embedding=axis(2)
    )
    knot_edges_form(knot=new, params=WORKED)

    knot_time_anchor_correct(knot=new, event_time=DAY + timedelta(days=10), event_precision="day", params=WORKED)

    # timeline: factor 0.4, depth (21 − 10)/21. A' = 0.28, B' = 2.0, gap 1.72.
    depth, weak, gap = 11 / 21, 0.28, 1.72
    assert raws(new, other) == (
        pytest.approx(weak + gap * 0.444 * depth),
        pytest.approx(weak + (gap - gap * 0.297) * depth),
    )
    assert Edge.objects.get(source=new).time_distance == 10.0
    new.refresh_from_db()
    assert new.event_time == DAY + timedelta(days=10)


def test_a_time_anchor_moved_out_of_the_tolerance_deletes_a_timeline_only_pair(the_mind):
    knot_make(mind=the_mind, weight_anchor=5.0, event_time=DAY, event_precision="day", embedding=axis(1))
    new = knot_make(
        mind=the_mind, weight_anchor=0.7, event_time=DAY + timedelta(days=4), event_precision="day", embedding=axis(2)
    )
    knot_edges_form(knot=new, params=WORKED)

    result = knot_time_anchor_correct(knot=new, event_time=DAY, event_precision="month", params=WORKED)

    assert Edge.objects.count() == 0 and (result.candidates, result.pairs_firing) == (1, 0)


def test_a_precision_without_a_time_or_an_unknown_precision_is_refused(the_mind):
    knot = knot_make(mind=the_mind, weight_anchor=1.0, embedding=axis(EMBEDDING_DIMENSIONS - 1))
    with pytest.raises(ValueError, match="needs an event_time"):
        knot_time_anchor_correct(knot=knot, event_time=None, event_precision="day")
    with pytest.raises(ValueError, match="unknown time precision 'fortnight'"):
        knot_time_anchor_correct(knot=knot, event_time=DAY, event_precision="fortnight")


def test_recomputing_weighs_an_entity_by_its_carriers_of_the_day(the_mind):
    other = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(2))
    with override_settings(SYNAPSE_MAX_EDGE_PAIRS_PER_KNOT=4):
        knot_edges_form(knot=new, params=WORKED)
        assert raws(new, other) == (pytest.approx(2.0), pytest.approx(2.0))
        for index in range(6):
            knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(10 + index))

        knot_edges_recompute(knot=new, params=WORKED)

    # Eight knots carry entity 7 now, the cap is 4: factor 4/8, equal anchors → 2.0 · 0.5 both ways.
    assert raws(new, other) == (pytest.approx(1.0), pytest.approx(1.0))
