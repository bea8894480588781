"""Trigger 1 against the real database: a fresh knot's edges from index-found candidates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from synapses.models import Edge
from synapses.net.edges import EdgesFormed, knot_edges_form
from synapses.net.geometry import EdgeParameters
from tests.factories import knot_make, knots_bulk
from tests.vectors import at_cosine, axis, damp_reference

pytestmark = pytest.mark.django_db

# The worked examples of §3 were computed with these (fixtures, not the live settings).
WORKED = EdgeParameters(embedding_threshold=0.85)
DAY = datetime(2026, 3, 10, 12, tzinfo=UTC)


def edge(source, target) -> Edge:
    return Edge.objects.get(source=source, target=target)


def test_two_knots_sharing_only_an_entity_get_the_worked_example_weights_both_ways(the_mind):
    strong = knot_make(mind=the_mind, weight_anchor=5.0, entities=[7], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=0.7, entities=[7, 8], embedding=axis(2))

    formed = knot_edges_form(knot=new, params=WORKED)

    assert formed == EdgesFormed(candidates=1, pairs_firing=1, pairs_written=1, layer_counts={"entity": 1})
    up, down = edge(new, strong), edge(strong, new)
    assert up.weight_raw == pytest.approx(2.609, abs=0.005)
    assert down.weight_raw == pytest.approx(3.723, abs=0.005)
    assert up.weight_anchor == pytest.approx(damp_reference(up.weight_raw), abs=1e-9)
    assert down.weight_anchor == pytest.approx(damp_reference(down.weight_raw), abs=1e-9)
    assert up.layers == down.layers == ["entity"]
    assert up.shared_entities == down.shared_entities == [7]
    assert up.layer_count == 1 and up.time_distance is None
    assert up.cosine_initial == pytest.approx(0.0, abs=1e-6)


def test_a_timeline_only_pair_four_days_apart_gets_the_worked_example_weights(the_mind):
    strong = knot_make(mind=the_mind, weight_anchor=5.0, event_time=DAY, event_precision="day", embedding=axis(1))
    new = knot_make(
        mind=the_mind, weight_anchor=0.7, event_time=DAY + timedelta(days=4), event_precision="day", embedding=axis(2)
    )

    knot_edges_form(knot=new, params=WORKED)

    up, down = edge(new, strong), edge(strong, new)
    assert (up.weight_raw, down.weight_raw) == (pytest.approx(0.899, abs=0.005), pytest.approx(1.259, abs=0.005))
    assert up.layers == ["timeline"] and up.time_distance == 4.0


def test_timeline_and_embedding_at_cosine_090_let_the_embedding_win_with_the_bonus(the_mind):
    strong = knot_make(mind=the_mind, weight_anchor=5.0, event_time=DAY, event_precision="day", embedding=axis(0))
    new = knot_make(
        mind=the_mind,
        weight_anchor=0.7,
        event_time=DAY + timedelta(days=4),
        event_precision="day",
        embedding=at_cosine(0.90),
    )

    formed = knot_edges_form(knot=new, params=WORKED)

    up, down = edge(new, strong), edge(strong, new)
    assert (up.weight_raw, down.weight_raw) == (pytest.approx(1.169, abs=0.005), pytest.approx(1.466, abs=0.005))
    assert up.layers == ["embedding", "timeline"] and up.layer_count == 2
    assert up.cosine_initial == pytest.approx(0.90, abs=1e-5)
    assert formed.layer_counts == {"embedding": 1, "timeline": 1}


def test_shared_themes_give_the_themes_depth_and_the_layers_in_canonical_order(the_mind):
    themes_b = [f"t{i}" for i in range(10)]
    other = knot_make(mind=the_mind, weight_anchor=2.0, themes=themes_b, entities=[3], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=2.0, themes=["t0", "x"], entities=[3], embedding=axis(2))

    knot_edges_form(knot=new, params=WORKED)

    row = edge(new, other)
    assert row.layers == ["entity", "themes"] and row.shared_themes == ["t0"]
    # Equal anchors: entity wins (factor 1.0, depth 1), bonus 0.1 → both directions 2.0 + 0.1.
    assert row.weight_raw == pytest.approx(2.1) and edge(other, new).weight_raw == pytest.approx(2.1)


def test_themes_alone_weigh_by_the_overlap_of_the_broader_knot(the_mind):
    other = knot_make(mind=the_mind, weight_anchor=5.0, themes=[f"t{i}" for i in range(10)], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=0.7, themes=["t0"], embedding=axis(2))

    knot_edges_form(knot=new, params=WORKED)

    # themes: factor 0.5, depth 1/10. A' = 0.35, B' = 2.5, gap 2.15.
    weak, gap, depth = 0.35, 2.15, 0.1
    assert edge(new, other).weight_raw == pytest.approx(weak + gap * 0.444 * depth)
    assert edge(other, new).weight_raw == pytest.approx(weak + (gap - gap * 0.297) * depth)


def test_knots_sharing_nothing_get_no_edge(the_mind):
    knot_make(
        mind=the_mind,
        weight_anchor=5.0,
        entities=[1],
        themes=["a"],
        event_time=DAY,
        event_precision="day",
        embedding=axis(1),
    )
    new = knot_make(
        mind=the_mind,
        weight_anchor=0.7,
        entities=[2],
        themes=["b"],
        event_time=DAY,
        event_precision="week",
        embedding=axis(2),
    )

    formed = knot_edges_form(knot=new, params=WORKED)

    assert formed.pairs_firing == formed.pairs_written == 0 and formed.candidates == 1
    assert Edge.objects.count() == 0


def test_the_embedding_layer_fires_only_strictly_above_the_threshold(the_mind):
    above = knot_make(mind=the_mind, weight_anchor=1.0, embedding=at_cosine(0.86))
    knot_make(mind=the_mind, weight_anchor=1.0, embedding=at_cosine(0.84, other=2))
    new = knot_make(mind=the_mind, weight_anchor=1.0, embedding=axis(0))

    formed = knot_edges_form(knot=new, params=WORKED)

    assert formed.pairs_written == 1
    assert list(Edge.objects.values_list("target_id", flat=True).filter(source=new)) == [above.pk]


def test_inactive_knots_are_never_candidates(the_mind):
    knot_make(mind=the_mind, weight_anchor=5.0, entities=[7], embedding=axis(0), is_active=False)
    active = knot_make(mind=the_mind, weight_anchor=1.0, entities=[7], embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=1.0, entities=[7], embedding=axis(0))

    formed = knot_edges_form(knot=new, params=WORKED)

    assert formed.candidates == 1 and formed.pairs_written == 1
    assert set(Edge.objects.values_list("source_id", "target_id")) == {(new.pk, active.pk), (active.pk, new.pk)}


def test_another_minds_knots_are_never_candidates(the_mind, other_mind):
    knot_make(mind=other_mind.mind, weight_anchor=5.0, entities=[7], themes=["a"], embedding=axis(0))
    new = knot_make(mind=the_mind, weight_anchor=1.0, entities=[7], themes=["a"], embedding=axis(0))

    formed = knot_edges_form(knot=new, params=WORKED)

    assert formed.candidates == 0 and Edge.objects.count() == 0


def test_at_most_the_pair_cap_is_written_and_the_strongest_pairs_win(the_mind):
    others = [knot_make(mind=the_mind, weight_anchor=0.1 * (i + 1), entities=[7], embedding=axis(1)) for i in range(60)]
    new = knot_make(mind=the_mind, weight_anchor=1.0, entities=[7], embedding=axis(2))

    with override_settings(SYNAPSE_MAX_EDGE_PAIRS_PER_KNOT=50):
        formed = knot_edges_form(knot=new, params=WORKED)

    assert (formed.candidates, formed.pairs_firing, formed.pairs_written) == (60, 60, 50)
    assert Edge.objects.count() == 100
    # Entity pairs only: the stronger the other knot, the stronger both directions. The ten weakest lose.
    targets = set(Edge.objects.filter(source=new).values_list("target_id", flat=True))
    assert targets == {knot.pk for knot in others[10:]}
    assert set(Edge.objects.filter(target=new).values_list("source_id", flat=True)) == targets


@pytest.mark.parametrize(
    ("precision", "a", "b", "fires", "distance"),
    [
        ("minute", datetime(2026, 1, 1, 8, tzinfo=UTC), datetime(2026, 1, 7, 20, tzinfo=UTC), True, 6.5),
        ("hour", datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 8, 1, tzinfo=UTC), False, None),
        ("day", datetime(2026, 1, 1, 23, tzinfo=UTC), datetime(2026, 1, 22, 0, 30, tzinfo=UTC), True, 21.0),
        # Monday of ISO week 1 and Sunday of week 9: eight weeks apart, 62 days elapsed.
        ("week", datetime(2025, 12, 29, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC), True, 8.0),
        ("month", datetime(2026, 1, 31, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=UTC), True, 6.0),
        ("month", datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 8, 31, tzinfo=UTC), False, None),
        ("quarter", datetime(2026, 1, 1, tzinfo=UTC), datetime(2027, 12, 31, tzinfo=UTC), False, None),
        ("quarter", datetime(2026, 1, 1, tzinfo=UTC), datetime(2027, 3, 31, tzinfo=UTC), True, 4.0),
        ("year", datetime(2026, 1, 1, tzinfo=UTC), datetime(2028, 12, 31, tzinfo=UTC), True, 2.0),
    ],
)
def test_the_timeline_window_finds_every_anchor_inside_each_precisions_tolerance(
    the_mind, precision, a, b, fires, distance
):
    other = knot_make(mind=the_mind, weight_anchor=3.0, event_time=a, event_precision=precision, embedding=axis(1))
    new = knot_make(mind=the_mind, weight_anchor=1.0, event_time=b, event_precision=precision, embedding=axis(2))

    formed = knot_edges_form(knot=new, params=WORKED)

    assert formed.pairs_written == (1 if fires else 0)
    if fires:
        assert edge(new, other).time_distance == distance


def knot_edges_form_counted(knot) -> tuple[EdgesFormed, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        formed = knot_edges_form(knot=knot, params=WORKED)
    return formed, [query["sql"] for query in queries.captured_queries]


@pytest.mark.parametrize("net_size", [10, 1_000])
def test_one_edge_formation_takes_the_same_three_statements_at_10_and_1000_knots(the_mind, net_size):
    knots_bulk(
        mind=the_mind,
        count=net_size,
        rng=np.random.default_rng(net_size),
        weight_anchor=2.0,
        entities=[7],
        themes=["a"],
    )
    new = knot_make(mind=the_mind, weight_anchor=1.0, entities=[7], themes=["a"], embedding=axis(0))

    formed, statements = knot_edges_form_counted(new)

    # The vector plan, the candidates, one bulk insert (no savepoint inside the test's transaction).
    assert len(statements) == 3, statements
    assert formed.pairs_written == min(net_size, 50)
    assert Edge.objects.filter(source=new).count() == formed.pairs_written


def test_a_large_mind_finds_its_nearest_knots_through_the_hnsw_index_in_as_many_statements(the_mind):
    knots_bulk(mind=the_mind, count=300, rng=np.random.default_rng(3), weight_anchor=2.0)
    near = knot_make(mind=the_mind, weight_anchor=2.0, embedding=at_cosine(0.99))
    new = knot_make(mind=the_mind, weight_anchor=1.0, embedding=axis(0))

    with override_settings(SYNAPSE_EXACT_SCAN_MAX_ROWS=10):
        formed, statements = knot_edges_form_counted(new)

    assert len(statements) == 3
    assert "+ 0" not in statements[1]  # the HNSW plan orders by the bare distance
    assert formed.pairs_written == 1
    assert edge(new, near).layers == ["embedding"]


def test_a_knot_already_joined_to_a_candidate_forms_no_second_pair_with_it(the_mind):
    first = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(1))
    second = knot_make(mind=the_mind, weight_anchor=3.0, entities=[7], embedding=axis(2))
    knot_edges_form(knot=first, params=WORKED)

    again = knot_edges_form(knot=first, params=WORKED)
    from_second = knot_edges_form(knot=second, params=WORKED)

    assert again.candidates == from_second.candidates == 0
    assert set(Edge.objects.values_list("source_id", "target_id")) == {(first.pk, second.pk), (second.pk, first.pk)}


def test_an_entity_more_knots_carry_than_the_cap_holds_weighs_cap_over_carriers(the_mind):
    others = [
        knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(index + 1)) for index in range(8)
    ]
    new = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(20))

    with override_settings(SYNAPSE_MAX_EDGE_PAIRS_PER_KNOT=4):
        formed = knot_edges_form(knot=new, params=WORKED)

    # Nine knots carry entity 7, the cap is 4: factor 1.0 · 4/9; equal anchors, no bonus → 2.0 · 4/9.
    assert formed.pairs_written == 4
    for row in Edge.objects.filter(source=new):
        assert row.layers == ["entity"] and row.weight_raw == pytest.approx(2.0 * 4 / 9)
    assert {row.target_id for row in Edge.objects.filter(source=new)} <= {knot.pk for knot in others}


def test_a_rare_entity_and_similar_content_win_the_cap_over_a_common_entity(the_mind):
    for index in range(5):
        knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(index + 1))
    rare = knot_make(mind=the_mind, weight_anchor=2.0, entities=[9], embedding=axis(10))
    similar = knot_make(mind=the_mind, weight_anchor=2.0, embedding=at_cosine(0.95, other=11))
    new = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7, 9], embedding=axis(0))

    with override_settings(SYNAPSE_MAX_EDGE_PAIRS_PER_KNOT=2):
        formed = knot_edges_form(knot=new, params=WORKED)

    # rare entity: 2.0 · 1.0; similar content: 2.0 · 0.8; the common entity (6 carriers, cap 2): 2.0 · 1/3.
    assert (formed.pairs_firing, formed.pairs_written) == (7, 2)
    assert {(row.target_id, round(row.weight_raw, 6)) for row in Edge.objects.filter(source=new)} == {
        (rare.pk, 2.0),
        (similar.pk, 1.6),
    }


def test_an_entity_more_than_four_times_the_cap_carry_makes_no_entity_layer_even_beside_a_theme(the_mind):
    # Entity 7: ten carriers with the new knot, cap 2 → rarity 2/10 = 0.2, below 0.25: not counted.
    plain = [knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(index + 1)) for index in range(8)]
    themed = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], themes=["boats"], embedding=axis(30))
    new = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], themes=["boats"], embedding=axis(0))

    with override_settings(SYNAPSE_MAX_EDGE_PAIRS_PER_KNOT=2):
        formed = knot_edges_form(knot=new, params=WORKED)

    # Only the theme fires, alone: factor 0.5, depth 1, equal anchors → 2.0 · 0.5 = 1.0 both ways.
    assert (formed.pairs_firing, formed.pairs_written) == (1, 1)
    row = edge(new, themed)
    assert (row.layers, row.shared_entities, row.weight_raw) == (["themes"], [], pytest.approx(1.0))
    assert not Edge.objects.filter(target__in=plain).exists()


def test_an_entity_exactly_four_times_the_cap_carry_still_counts_at_a_quarter(the_mind):
    # Entity 7: eight carriers with the new knot, cap 2 → rarity 2/8 = 0.25, counted: factor 0.25.
    for index in range(7):
        knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(index + 1))
    new = knot_make(mind=the_mind, weight_anchor=2.0, entities=[7], embedding=axis(0))

    with override_settings(SYNAPSE_MAX_EDGE_PAIRS_PER_KNOT=2):
        formed = knot_edges_form(knot=new, params=WORKED)

    assert (formed.pairs_firing, formed.pairs_written) == (7, 2)
    for row in Edge.objects.filter(source=new):
        assert row.layers == ["entity"] and row.weight_raw == pytest.approx(2.0 * 0.25)
