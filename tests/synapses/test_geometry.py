"""The arithmetic of docs/synapse-model.md §1, §3 and §9, against the documented numbers."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapses import constants
from synapses.net.geometry import (
    EdgeParameters,
    KnotFeatures,
    NoFiringLayerError,
    damp,
    damp_array,
    decayed_presence,
    edge_strength,
    edge_strengths,
    embedding_depth,
    embedding_layer,
    half_reactivation_presence,
    layers_between,
    themes_depth,
    time_distance,
    timeline_depth,
)

TOLERANCE = 0.005  # the worked examples are given to three decimals


@pytest.fixture
def worked_example_parameters() -> EdgeParameters:
    """The constants the worked examples were computed with, pinned (not the live settings)."""
    tolerances = dict(constants.TIMELINE_TOLERANCES)
    tolerances["day"] = 21
    return EdgeParameters(embedding_threshold=0.85, tolerances=tolerances)


# --- damping ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (0.5, 2.8011),
        (0.673, 3.2484),
        (0.7, 3.3126),
        (0.9, 3.7537),
        (1.0, 3.9552),
        (2.0, 5.5589),
        (10, 10.0),
        (12.5, 10.0),
    ],
)
def test_damping_maps_raw_weights_to_the_documented_vectors(raw, expected):
    assert damp(raw) == pytest.approx(expected, abs=0.00005)


def test_damping_a_negative_raw_weight_gives_zero():
    assert damp(-1.0) == 0.0


# --- the worked examples ---------------------------------------------------------------------------

DAY = datetime(2026, 3, 10, tzinfo=UTC)


def test_timeline_alone_four_days_apart_gives_0_899_and_1_259(worked_example_parameters):
    a = KnotFeatures(weight_anchor=0.7, event_time=DAY, event_precision="day")
    b = KnotFeatures(weight_anchor=5.0, event_time=DAY + timedelta(days=4), event_precision="day")

    layers = layers_between(a, b, worked_example_parameters)
    edge = edge_strength(0.7, 5.0, layers, worked_example_parameters)

    assert list(layers) == ["timeline"]
    assert layers["timeline"].depth == pytest.approx(17 / 21)
    assert edge.raw_ab == pytest.approx(0.899, abs=TOLERANCE)
    assert edge.raw_ba == pytest.approx(1.259, abs=TOLERANCE)
    assert edge.anchor_ab == pytest.approx(3.7500, abs=TOLERANCE)
    assert edge.anchor_ba == pytest.approx(4.4323, abs=TOLERANCE)


def test_timeline_and_embedding_at_cosine_0_90_give_1_169_and_1_466(worked_example_parameters):
    a = KnotFeatures(weight_anchor=0.7, event_time=DAY, event_precision="day")
    b = KnotFeatures(weight_anchor=5.0, event_time=DAY + timedelta(days=4), event_precision="day")

    layers = layers_between(a, b, worked_example_parameters, cosine=0.90)
    edge = edge_strength(0.7, 5.0, layers, worked_example_parameters)

    assert edge.layers == ("embedding", "timeline")
    assert (edge.winner, edge.bonus) == ("embedding", pytest.approx(0.1))
    assert edge.depth == pytest.approx(1 / 3)
    assert edge.raw_ab == pytest.approx(1.169, abs=TOLERANCE)
    assert edge.raw_ba == pytest.approx(1.466, abs=TOLERANCE)


def test_a_shared_entity_alone_gives_2_609_and_3_723(worked_example_parameters):
    a = KnotFeatures(weight_anchor=0.7, entities=(7,))
    b = KnotFeatures(weight_anchor=5.0, entities=(7, 9))

    layers = layers_between(a, b, worked_example_parameters)
    edge = edge_strength(0.7, 5.0, layers, worked_example_parameters)

    assert layers["entity"].shared == (7,)
    assert edge.raw_ab == pytest.approx(2.609, abs=TOLERANCE)
    assert edge.raw_ba == pytest.approx(3.723, abs=TOLERANCE)
    assert edge.anchor_ab == pytest.approx(6.3125, abs=TOLERANCE)
    assert edge.anchor_ba == pytest.approx(7.4298, abs=TOLERANCE)


def test_the_pull_factors_are_the_configured_roundings_of_the_sine_values():
    assert math.sin(0.25 * math.pi / 2) ** 0.85 == pytest.approx(0.441991, abs=1e-6)
    assert 1 - math.sin(0.75 * math.pi / 2) ** 4.5 == pytest.approx(0.299724, abs=1e-6)
    assert (constants.PULL_UP, constants.PULL_DOWN) == (0.444, 0.297)


# --- the further vectors ---------------------------------------------------------------------------


def test_equal_anchors_give_equal_directions():
    edge = edge_strength(3.0, 3.0, {"entity": 1.0})
    assert edge.raw_ab == edge.raw_ba


def test_one_shared_theme_of_ten_has_depth_one_tenth():
    depth, shared = themes_depth(["birthday"], ["birthday", *(f"t{i}" for i in range(9))])
    assert (depth, shared) == (pytest.approx(0.1), ("birthday",))
    assert themes_depth(["birthday"], ["holiday"]) == (0.0, ())


def test_embedding_depth_is_0_at_the_threshold_1_at_cosine_1_and_one_half_midway():
    assert embedding_depth(0.85, 0.85) == 0.0
    assert embedding_depth(1.0, 0.85) == pytest.approx(1.0)
    assert embedding_depth(0.925, 0.85) == pytest.approx(0.5)
    assert embedding_depth(0.5, 0.85) == 0.0


def test_the_embedding_layer_fires_only_strictly_above_the_threshold():
    assert embedding_layer(0.85, 0.85) is None
    assert embedding_layer(0.8501, 0.85) is not None


def test_minute_and_day_precision_never_connect_over_time():
    assert timeline_depth(DAY, "minute", DAY, "day") == (0.0, None)


def test_one_day_past_the_tolerance_does_not_fire_and_one_day_apart_does(worked_example_parameters):
    tolerances = worked_example_parameters.tolerances
    assert timeline_depth(DAY, "day", DAY + timedelta(days=22), "day", tolerances) == (0.0, None)
    depth, distance = timeline_depth(DAY, "day", DAY + timedelta(days=1), "day", tolerances)
    assert (depth, distance) == (pytest.approx(20 / 21), 1.0)


def test_at_exactly_the_tolerance_the_timeline_fires_with_depth_zero():
    assert timeline_depth(DAY, "day", DAY + timedelta(days=21), "day") == (0.0, 21.0)


def test_no_firing_layer_is_an_error():
    with pytest.raises(NoFiringLayerError):
        edge_strength(0.7, 5.0, {})


# --- all seven precisions, in their own units ------------------------------------------------------


@pytest.mark.parametrize(
    ("precision", "a", "b", "distance"),
    [
        ("minute", datetime(2026, 1, 1, 12, 0, tzinfo=UTC), datetime(2026, 1, 3, 0, 0, tzinfo=UTC), 1.5),
        ("hour", datetime(2026, 1, 1, 6, tzinfo=UTC), datetime(2026, 1, 1, 18, tzinfo=UTC), 0.5),
        ("day", datetime(2026, 1, 1, 23, 59, tzinfo=UTC), datetime(2026, 1, 2, 0, 1, tzinfo=UTC), 1.0),
        # Sunday 4 Jan and Monday 5 Jan 2026 lie in neighbouring ISO weeks.
        ("week", datetime(2026, 1, 4, tzinfo=UTC), datetime(2026, 1, 5, tzinfo=UTC), 1.0),
        ("week", datetime(2026, 1, 5, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC), 7.0),
        ("month", datetime(2025, 11, 30, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC), 3.0),
        ("quarter", datetime(2025, 12, 31, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC), 1.0),
        ("quarter", datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 3, 31, tzinfo=UTC), 0.0),
        ("year", datetime(2024, 12, 31, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC), 2.0),
    ],
)
def test_time_distance_is_counted_in_the_precisions_own_unit(precision, a, b, distance):
    assert time_distance(a, b, precision) == pytest.approx(distance)
    assert time_distance(b, a, precision) == pytest.approx(distance)


@pytest.mark.parametrize(
    ("precision", "inside", "outside"),
    [
        ("minute", timedelta(days=7), timedelta(days=7, minutes=1)),
        ("hour", timedelta(days=7), timedelta(days=7, hours=1)),
        ("day", timedelta(days=21), timedelta(days=22)),
        ("week", timedelta(weeks=8), timedelta(weeks=9)),
        ("month", timedelta(days=6 * 30), timedelta(days=7 * 31)),
        ("quarter", timedelta(days=4 * 91), timedelta(days=5 * 92)),
        ("year", timedelta(days=2 * 365), timedelta(days=3 * 366)),
    ],
)
def test_every_precision_fires_up_to_its_tolerance_and_not_beyond(precision, inside, outside):
    start = datetime(2026, 1, 5, tzinfo=UTC)  # a Monday at the start of a quarter
    assert timeline_depth(start, precision, start + inside, precision)[1] is not None
    assert timeline_depth(start, precision, start + outside, precision) == (0.0, None)


def test_an_unknown_precision_is_refused():
    with pytest.raises(ValueError, match="unknown time precision"):
        time_distance(DAY, DAY, "fortnight")


# --- properties ------------------------------------------------------------------------------------

anchors = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)
depths = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
layer_sets = st.sets(st.sampled_from(constants.LAYERS), min_size=1)


def _layers(names: set[str], depth: float) -> dict[str, float]:
    return {name: depth for name in names}


@given(anchor=anchors, names=layer_sets, depth=depths)
def test_equal_anchors_always_give_equal_directions(anchor, names, depth):
    edge = edge_strength(anchor, anchor, _layers(names, depth))
    assert edge.raw_ab == pytest.approx(edge.raw_ba)


@given(a=anchors, b=anchors, names=layer_sets, depth=depths)
def test_swapping_the_knots_swaps_the_directions(a, b, names, depth):
    forward = edge_strength(a, b, _layers(names, depth))
    backward = edge_strength(b, a, _layers(names, depth))
    assert (forward.raw_ab, forward.raw_ba) == (pytest.approx(backward.raw_ba), pytest.approx(backward.raw_ab))


def _weak_weighted(a: float, b: float, names: set[str]) -> float:
    factor = max(constants.LAYER_FACTORS[name] for name in names)
    return min(a, b) * factor + constants.LAYER_BONUS * (len(names) - 1)


@given(a=anchors, b=anchors, names=layer_sets, depth=depths)
def test_an_edge_never_falls_below_the_weaker_pre_weighted_anchor(a, b, names, depth):
    edge = edge_strength(a, b, _layers(names, depth))
    weak = _weak_weighted(a, b, names)
    assert min(edge.raw_ab, edge.raw_ba) >= weak - 1e-9


@given(a=anchors, b=anchors, names=layer_sets)
def test_depth_zero_gives_the_weak_anchor_both_ways(a, b, names):
    edge = edge_strength(a, b, _layers(names, 0.0))
    weak = _weak_weighted(a, b, names)
    assert edge.raw_ab == pytest.approx(weak)
    assert edge.raw_ba == pytest.approx(weak)


@given(a=anchors, b=anchors, names=layer_sets, low=depths, high=depths)
def test_a_deeper_layer_never_gives_a_weaker_edge(a, b, names, low, high):
    low, high = min(low, high), max(low, high)
    shallow = edge_strength(a, b, _layers(names, low))
    deep = edge_strength(a, b, _layers(names, high))
    assert deep.raw_ab >= shallow.raw_ab - 1e-9
    assert deep.raw_ba >= shallow.raw_ba - 1e-9


# --- presence --------------------------------------------------------------------------------------


def test_anchor_5_after_30_days_at_rate_0_02_decays_to_2_7441():
    assert decayed_presence(5.0, 30, rate=0.02) == pytest.approx(2.7441, abs=0.00005)


def test_half_reactivation_of_anchor_4_with_minimum_0_5_gives_2_25():
    assert half_reactivation_presence(4.0, 0.5) == 2.25
    assert half_reactivation_presence(4.0, 0.1) == pytest.approx(2.05)


# --- the vectorised path agrees with the scalar one ------------------------------------------------

# One candidate: its anchor, the depth of each layer or None (not firing), the entity layer's rarity.
candidate_rows = st.tuples(
    anchors,
    st.tuples(*(st.one_of(st.none(), depths) for _ in constants.LAYERS)),
    st.floats(min_value=0.01, max_value=1.0, allow_nan=False),
)


@given(anchor=anchors, rows=st.lists(candidate_rows, min_size=1, max_size=30))
def test_edge_strengths_over_many_candidates_equal_edge_strength_of_each_pair(anchor, rows):
    matrix = np.array([[math.nan if depth is None else depth for depth in row[1]] for row in rows])
    scale = np.array([row[2] for row in rows])
    many = edge_strengths(anchor, np.array([row[0] for row in rows]), matrix, entity_scale=scale)
    for index, (anchor_b, row_depths, rarity) in enumerate(rows):
        layers = {name: depth for name, depth in zip(constants.LAYERS, row_depths, strict=True) if depth is not None}
        assert bool(many.fires[index]) == bool(layers)
        if not layers:
            continue
        factors = {**constants.LAYER_FACTORS, "entity": constants.LAYER_FACTORS["entity"] * rarity}
        one = edge_strength(anchor, anchor_b, layers, EdgeParameters(layer_factors=factors))
        assert constants.LAYERS[many.winner[index]] == one.winner
        assert (many.raw_ab[index], many.raw_ba[index]) == (pytest.approx(one.raw_ab), pytest.approx(one.raw_ba))
        assert (many.anchor_ab[index], many.anchor_ba[index]) == (
            pytest.approx(one.anchor_ab),
            pytest.approx(one.anchor_ba),
        )


@given(raw=st.lists(st.floats(min_value=-5.0, max_value=20.0, allow_nan=False), min_size=1, max_size=20))
def test_damp_array_equals_damp_of_each_entry(raw):
    assert damp_array(np.array(raw)).tolist() == pytest.approx([damp(value) for value in raw])
