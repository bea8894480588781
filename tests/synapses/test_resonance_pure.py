"""The pure arithmetic of the read path (synapses/resonance/arithmetic.py): numbers worked out by hand from
docs/synapse-model.md §5 and §8, and properties that must hold for any input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapses import constants
from synapses.resonance.arithmetic import (
    GRAVITY_DISCARDED,
    GRAVITY_NO_GOALS,
    GRAVITY_RAW_INTENT,
    GRAVITY_SHIFTED,
    GRAVITY_ZERO_FACTOR,
    Reached,
    ResonanceLine,
    Step,
    dedup_smallest_shell,
    default_modes,
    fan_out,
    gravity_shift,
    mode_of,
    modes_with_overrides,
    rank_weight,
    ranked,
    resonance_text,
    ring_distance,
    sector_factor,
    sector_of,
    step_phrase,
)

# --- modes -------------------------------------------------------------------------------------


def test_the_default_modes_are_the_originals_clusters_with_paradox_as_default():
    modes = default_modes()
    assert {name: (m.hop_depth, m.gravity_factor) for name, m in modes.items()} == {
        "werkstatt": (0, 0.05), "foyer": (0, 0.05), "schlachtfeld": (0, 0.05),
        "wartezimmer": (1, 0.10), "beichte": (1, 0.10), "regen": (1, 0.10), "schmollen": (1, 0.10),
        "nebel": (1, 0.10), "gewitter": (1, 0.10), "paradox": (1, 0.10), "default": (1, 0.10),
        "bier": (2, 0.20), "kissenschlacht": (2, 0.25), "glut": (3, 0.30), "feuerwerk": (3, 0.30),
    }  # fmt: skip


def test_a_minds_overrides_replace_and_add_modes_and_bad_entries_are_reported_not_used():
    modes, rejected = modes_with_overrides(
        {
            "werkstatt": {"hop_depth": 2, "gravity_factor": 0.5},
            "Tiefsee": {"hop_depth": 3, "gravity_factor": 0},
            "zu_tief": {"hop_depth": 4, "gravity_factor": 0.1},
            "kein_objekt": 3,
            "zu_stark": {"hop_depth": 1, "gravity_factor": 1.5},
        }
    )
    assert (modes["werkstatt"].hop_depth, modes["werkstatt"].gravity_factor) == (2, 0.5)
    assert (modes["tiefsee"].hop_depth, modes["tiefsee"].gravity_factor) == (3, 0.0)
    assert set(rejected) == {"zu_tief", "kein_objekt", "zu_stark"}
    assert "zu_tief" not in modes and modes["foyer"].hop_depth == 0


def test_a_mode_is_found_in_any_case_and_an_empty_name_is_the_default():
    modes = default_modes()
    assert mode_of("Glut", modes).hop_depth == 3
    assert mode_of("", modes).name == "default"
    assert mode_of("nonsense", modes) is None


def test_fan_out_is_three_then_two_then_two_and_nothing_beyond():
    assert [fan_out(shell) for shell in (1, 2, 3, 4)] == [3, 2, 2, 0]


# --- sectors and ranking -----------------------------------------------------------------------


def test_sectors_come_from_english_and_german_labels():
    assert sector_of("joy") == sector_of("Freude") == sector_of("begeisterung") == 0
    assert sector_of("anticipation") == sector_of("neugierig") == 7
    assert sector_of("neutral") is None and sector_of("") is None and sector_of("meh") is None


def test_ring_distance_goes_the_short_way_round():
    assert ring_distance(0, 7) == 1  # joy – anticipation are neighbours across the wrap
    assert ring_distance(0, 4) == 4  # joy – sadness are opposite
    assert ring_distance(1, 6) == 3  # trust – anger: 5 one way, 3 the other


def test_sector_factor_by_distance_and_neutral_colours_nothing():
    assert sector_factor("joy", "joy") == 1.0
    assert sector_factor("freude", "vertrauen") == 0.9
    assert sector_factor("joy", "fear") == 0.8
    assert sector_factor("trust", "anger") == 0.7
    assert sector_factor("freude", "traurigkeit") == 0.6
    assert sector_factor("neutral", "sadness") == sector_factor("", "sadness") == sector_factor("joy", "meh") == 1.0


def test_rank_weight_multiplies_presence_shell_and_sector():
    # 4.7 × 0.75 (shell 1) × 0.9 (joy vs trust): 3.1725.
    assert rank_weight(4.7, 1, "joy", "trust") == pytest.approx(3.1725)
    # 5.4 × 1.0 × 1.0
    assert rank_weight(5.4, 0, "joy", "joy") == pytest.approx(5.4)
    # 2.0 × 0.25 × 0.6
    assert rank_weight(2.0, 3, "joy", "sadness") == pytest.approx(0.3)
    assert rank_weight(9.0, 4, "", "") == 0.0


def _r(knot_id: int, shell: int, present: float = 1.0, emotion: str = "", path: tuple[Step, ...] = ()) -> Reached:
    return Reached(knot_id, shell, present, emotion, path)


def test_dedup_keeps_the_smallest_shell_and_the_first_on_ties():
    first_b = _r(2, 2, path=(Step(1, 10, ("entity",)),))
    second_b = _r(2, 2, path=(Step(3, 11, ("themes",)),))
    kept = dedup_smallest_shell([_r(1, 1), _r(1, 0), first_b, second_b])
    assert [(r.knot_id, r.shell) for r in kept] == [(1, 0), (2, 2)]
    assert kept[1] is first_b


def test_ranking_worked_by_hand():
    # A anchor 2.0 → 2.0; B shell 1, 4.0, opposite mood → 4.0 × 0.75 × 0.6 = 1.8;
    # C shell 1, 3.0, same sector → 2.25; D shell 2, 5.0 → 2.5.
    pool = [_r(1, 0, 2.0, "joy"), _r(2, 1, 4.0, "sadness"), _r(3, 1, 3.0, "freude"), _r(4, 2, 5.0, "")]
    result = ranked(pool, mood="joy", limit=3)
    assert [(k.rank, k.reached.knot_id) for k in result] == [(1, 4), (2, 3), (3, 1)]
    assert [k.rank_weight for k in result] == pytest.approx([2.5, 2.25, 2.0])


# --- gravity -----------------------------------------------------------------------------------


def test_gravity_bends_the_query_towards_an_active_goal_worked_by_hand():
    # q = (1, 0), goal (0.6, 0.8) with motivation 1: activation 0.6 ≥ 0.4.
    # shifted = 0.9·(1, 0) + 0.1·0.6·(0.6, 0.8) = (0.936, 0.048); |shifted| = √0.8784.
    shift = gravity_shift([1.0, 0.0], [(7, [0.6, 0.8], 1.0)], factor=0.1, threshold=0.4)
    norm = math.sqrt(0.8784)
    assert shift.outcome == GRAVITY_SHIFTED
    assert shift.vector == pytest.approx([0.936 / norm, 0.048 / norm])
    assert shift.cosine_to_raw == pytest.approx(0.936 / norm)
    assert shift.cosine_to_raw < 1.0
    assert shift.pulls[0].activation == pytest.approx(0.6)


def test_two_goals_add_up_without_normalising_the_sum():
    # Two identical goals pull twice as hard as one: 0.9·q + 0.1·(0.6·g + 0.6·g).
    one = gravity_shift([1.0, 0.0], [(1, [0.6, 0.8], 1.0)], factor=0.1)
    two = gravity_shift([1.0, 0.0], [(1, [0.6, 0.8], 1.0), (2, [0.6, 0.8], 1.0)], factor=0.1)
    expected = np.array([0.9 + 0.072, 0.096])
    assert two.vector == pytest.approx(expected / np.linalg.norm(expected))
    assert two.cosine_to_raw < one.cosine_to_raw


def test_a_goal_below_the_threshold_changes_nothing():
    # activation 0.6 × 0.5 = 0.3 < 0.4
    shift = gravity_shift([1.0, 0.0], [(7, [0.6, 0.8], 0.5)], factor=0.3, threshold=0.4)
    assert shift.outcome == GRAVITY_NO_GOALS
    assert list(shift.vector) == [1.0, 0.0] and shift.factor == 0.0 and shift.cosine_to_raw == 1.0
    assert shift.pulls[0].counted is False


def test_an_instruction_and_a_zero_factor_search_with_the_raw_vector():
    goals = [(7, [0.6, 0.8], 1.0)]
    assert gravity_shift([1.0, 0.0], goals, factor=0.3, raw_intent=True).outcome == GRAVITY_RAW_INTENT
    zero = gravity_shift([1.0, 0.0], goals, factor=0.0)
    assert zero.outcome == GRAVITY_ZERO_FACTOR and list(zero.vector) == [1.0, 0.0]


def test_a_degenerate_shift_falls_back_to_the_raw_vector():
    # factor 1 and a goal orthogonal to q counted at threshold 0: the shifted vector is zero.
    shift = gravity_shift([1.0, 0.0], [(7, [0.0, 1.0], 1.0)], factor=1.0, threshold=0.0)
    assert shift.outcome == GRAVITY_DISCARDED and list(shift.vector) == [1.0, 0.0] and shift.factor == 0.0


def test_a_goal_of_another_dimension_pulls_nothing():
    shift = gravity_shift([1.0, 0.0], [(7, [1.0, 0.0, 0.0], 1.0)], factor=0.3)
    assert shift.outcome == GRAVITY_NO_GOALS and shift.pulls[0].similarity == 0.0


# --- the text ----------------------------------------------------------------------------------


def test_a_step_names_what_it_shares_in_layer_order():
    assert (
        step_phrase(("entity", "embedding", "themes", "timeline"), ("Anna",), ("family",))
        == "shared entity Anna, similar content, shared theme family, close in time"
    )
    assert step_phrase((), (), ()) == "an association"


def test_the_resonance_text_lists_the_strongest_last():
    strongest = ResonanceLine(content="Anna always brought chocolate", observer="user", emotion="joy")
    middle = ResonanceLine(
        content="Anna is my sister",
        observer="user",
        emotion="trust",
        layers_by_step=(("entity", "themes"),),
        entity_names_by_step=(("Anna",),),
        themes_by_step=(("family",),),
        superseded=True,
    )
    weakest = ResonanceLine(
        content="We met at the station",
        observer="agent",
        emotion="neutral",
        layers_by_step=(("timeline",), ("embedding",)),
        entity_names_by_step=((), ()),
        themes_by_step=((), ()),
    )
    assert resonance_text("Anna's birthday", [strongest, middle, weakest]) == (
        'Resonance for: "Anna\'s birthday"\n'
        "3 memories resonate. The least present first, the strongest last.\n"
        "\n"
        "--- 1 ---\n"
        '"We met at the station"\n'
        "Speaker: agent\n"
        "Came via: close in time -> similar content\n"
        "\n"
        "--- 2 ---\n"
        '"Anna is my sister"\n'
        "(an earlier version: the memory has changed since)\n"
        "Speaker: user\n"
        "Feeling: Trust\n"
        "Came via: shared entity Anna, shared theme family\n"
        "\n"
        "--- 3 ---\n"
        '"Anna always brought chocolate"\n'
        "Speaker: user\n"
        "Feeling: Joy\n"
        "Came directly in response to the query\n"
    )


def test_an_empty_resonance_says_so_and_one_memory_reads_singular():
    assert resonance_text("x", []) == 'Resonance for: "x"\nNothing in the long-term net resonates.\n'
    one = resonance_text("x", [ResonanceLine(content="a", observer="user", emotion="")])
    assert one.splitlines()[1] == "One memory resonates."


# --- properties --------------------------------------------------------------------------------

sectors = st.integers(min_value=0, max_value=7)
labels = st.sampled_from(["", "neutral", "joy", "trust", "angst", "wut", "hoffnung", "unknown", "Freude"])


@given(sectors, sectors)
def test_ring_distance_is_symmetric_bounded_and_zero_only_for_equal_sectors(a, b):
    distance = ring_distance(a, b)
    assert distance == ring_distance(b, a)
    assert 0 <= distance <= 4
    assert (distance == 0) == (a == b)


@given(labels, labels)
def test_sector_factor_is_symmetric_and_within_the_table(mood, emotion):
    factor = sector_factor(mood, emotion)
    assert factor == sector_factor(emotion, mood)
    assert factor in constants.SECTOR_FACTOR.values()


reached = st.builds(
    Reached,
    knot_id=st.integers(min_value=1, max_value=8),
    shell=st.integers(min_value=0, max_value=3),
    weight_present=st.floats(min_value=0.0, max_value=10.0),
    emotion=labels,
)


@given(st.lists(reached, max_size=30))
def test_dedup_keeps_one_entry_per_knot_with_its_smallest_shell(pool):
    kept = dedup_smallest_shell(pool)
    assert len({r.knot_id for r in kept}) == len(kept) == len({r.knot_id for r in pool})
    for r in kept:
        assert r.shell == min(other.shell for other in pool if other.knot_id == r.knot_id)


@given(st.lists(reached, max_size=30), labels, st.integers(min_value=1, max_value=10))
def test_ranking_is_strongest_first_and_cut_at_the_limit(pool, mood, limit):
    result = ranked(pool, mood=mood, limit=limit)
    assert len(result) == min(limit, len({r.knot_id for r in pool}))
    weights = [k.rank_weight for k in result]
    assert weights == sorted(weights, reverse=True)
    assert [k.rank for k in result] == list(range(1, len(result) + 1))


unit_floats = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
vectors = st.lists(unit_floats, min_size=3, max_size=3).filter(lambda v: np.linalg.norm(v) > 1e-3)


@given(
    vectors,
    st.lists(st.tuples(vectors, st.floats(min_value=0.0, max_value=1.0)), max_size=4),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_gravity_gives_a_unit_vector_or_the_raw_one_and_never_turns_away(raw, goals, factor):
    shift = gravity_shift(raw, [(i, g, m) for i, (g, m) in enumerate(goals)], factor=factor)
    if shift.outcome == GRAVITY_SHIFTED:
        assert np.linalg.norm(shift.vector) == pytest.approx(1.0)
        assert 0.0 < shift.cosine_to_raw <= 1.0
    else:
        assert list(shift.vector) == pytest.approx(list(raw)) and shift.factor == 0.0
