"""The relevance ranking of resonance (the default, docs/synapse-model.md §5): every knot weighed by
its own fused query score plus the activation spreading carries to it. Expectations worked out by
hand below: a text or vector list's rank r scores 1 / (60 + r); a hop into shell 1 carries
origin × SPREAD_GAIN (0.25) × SHELL_FACTOR[1] / SHELL_FACTOR[0] (0.75) × the target's cosine."""

from __future__ import annotations

import pytest

from memories.embedders import get_embedder
from synapses.resonance.arithmetic import Reached, ranked_by_relevance, spread_activation
from synapses.resonance.service import resonance_of
from tests.factories import edge_make, knot_make, memory_make
from tests.vectors import at_cosine_to_query

Q = "zebra"


def test_a_hop_carries_the_origins_activation_times_gain_shell_step_and_the_targets_cosine():
    assert spread_activation(0.04, 1, 0.8) == pytest.approx(0.04 * 0.25 * 0.75 * 0.8)  # 0.006
    # Shell 2: the step is SHELL_FACTOR[2] / SHELL_FACTOR[1] = 0.5 / 0.75.
    assert spread_activation(0.03, 2, 0.6, gain=1.0) == pytest.approx(0.03 * (2 / 3) * 0.6)  # 0.012
    # A target the query does not touch (cosine ≤ 0) receives nothing.
    assert spread_activation(0.04, 1, -0.3) == 0.0
    # Beyond the shell table nothing spreads.
    assert spread_activation(0.04, 4, 0.9) == 0.0


def _spread(knot_id: int, hops: int, *, present: float, activation: float, predecessor: int) -> Reached:
    """An entry spreading reached `hops` away (the keyword is `shell`; ruff mistakes it for subprocess's)."""
    return Reached(knot_id, hops, present, activation=activation, predecessor=predecessor)


def test_a_knot_ranks_by_its_own_score_plus_what_every_path_brings_it():
    a = Reached(knot_id=1, shell=0, weight_present=1.0, activation=0.02)
    b = Reached(knot_id=2, shell=0, weight_present=1.0, activation=0.015)
    # b is also reached twice by spreading (0.004 + 0.003), c only by spreading (0.006), d by nothing.
    b_again = _spread(2, 1, present=1.0, activation=0.004, predecessor=1)
    b_third = _spread(2, 2, present=1.0, activation=0.003, predecessor=3)
    c = _spread(3, 1, present=5.0, activation=0.006, predecessor=1)
    d = _spread(4, 1, present=9.0, activation=0.0, predecessor=1)
    own = {1: 0.02, 2: 0.015}

    result = ranked_by_relevance([a, b, b_again, b_third, c, d], own=own, mood=None, limit=3)

    # b 0.015 + 0.004 + 0.003 = 0.022 > a 0.020 > c 0.006 > d 0 (cut by the limit).
    assert [(k.reached.knot_id, k.reached.shell) for k in result] == [(2, 0), (1, 0), (3, 1)]
    assert [k.rank_weight for k in result] == pytest.approx([0.022, 0.02, 0.006])


def test_the_mood_colours_the_relevance_and_presence_breaks_a_tie():
    calm = Reached(knot_id=1, shell=0, weight_present=1.0, emotion="joy")
    sad = Reached(knot_id=2, shell=0, weight_present=1.0, emotion="sadness")
    present = Reached(knot_id=3, shell=0, weight_present=4.0)
    own = {1: 0.01, 2: 0.01, 3: 0.01}

    result = ranked_by_relevance([calm, sad, present], own=own, mood="joy", limit=3)

    # joy→joy 1.0, joy→sadness (4 steps apart on the wheel) 0.6; knot 3 has no emotion: factor 1,
    # tied with knot 1 at 0.01 and more present, so first.
    assert [k.reached.knot_id for k in result] == [3, 1, 2]
    assert [k.rank_weight for k in result] == pytest.approx([0.01, 0.01, 0.006])


@pytest.fixture
def pasture(mind, settings):
    """Two text hits (A, B: "zebra", no cosine), two vector hits (N 0.9, S 0.6, at or above the
    floor 0.5) and T (cosine 0.45, below the floor: no anchor candidate). Edges A→T 5, A→S 1,
    N→B 4 (B's cosine is 0: the hop carries nothing)."""
    settings.SYNAPSE_RESONANCE_RANKING = "relevance"
    settings.SYNAPSE_ANCHOR_FLOOR = 0.5
    m = mind.mind
    k = {
        "A": knot_make(
            memory=memory_make(mind=m, content="the zebra grazes", salience=0.7),
            embedding=at_cosine_to_query(Q, 0.0, axis=1),
            presence=2.0,
            embedding_model=get_embedder().name,
            linked=True,
        ),
        "B": knot_make(
            memory=memory_make(mind=m, content="a zebra sleeps", salience=0.7),
            embedding=at_cosine_to_query(Q, 0.0, axis=2),
            presence=3.0,
            embedding_model=get_embedder().name,
            linked=True,
        ),
        "N": knot_make(
            memory=memory_make(mind=m, content="a quiet morning", salience=0.7),
            embedding=at_cosine_to_query(Q, 0.9, axis=3),
            presence=1.0,
            embedding_model=get_embedder().name,
            linked=True,
        ),
        "S": knot_make(
            memory=memory_make(mind=m, content="a blue door", salience=0.7),
            embedding=at_cosine_to_query(Q, 0.6, axis=4),
            presence=1.0,
            embedding_model=get_embedder().name,
            linked=True,
        ),
        "T": knot_make(
            memory=memory_make(mind=m, content="an old bicycle", salience=0.7),
            embedding=at_cosine_to_query(Q, 0.45, axis=5),
            presence=9.0,
            embedding_model=get_embedder().name,
            linked=True,
        ),
    }
    edge_make(source=k["A"], target=k["T"], weight_anchor=5)
    edge_make(source=k["A"], target=k["S"], weight_anchor=1)
    edge_make(source=k["N"], target=k["B"], weight_anchor=4)
    return m, k


def test_relevance_ranks_the_query_hits_and_lifts_the_one_an_anchor_confirms(pasture):
    m, k = pasture

    result = resonance_of(mind=m, q=Q, limit=5)

    # Own scores: text list A 1/61, B 1/62; vector list N 1/61, S 1/62. Fused order (ties: the
    # more recent first): N, A, S, B; anchors N, A, S. Shell 1: A→T carries (1/61)·0.25·0.75·0.45
    # = 0.0013832, A→S (1/61)·0.25·0.75·0.6 = 0.0018443, N→B 0 (cosine 0).
    # S 1/62 + 0.0018443 = 0.0179733; A = N = 1/61 = 0.0163934 (A more present); B 1/62 = 0.0161290;
    # T 0.0013832, reached in shell 1 over the edge A→T.
    assert [item["knot_id"] for item in result["items"]] == [k[n].pk for n in ("S", "A", "N", "B", "T")]
    assert [item["rank_weight"] for item in result["items"]] == pytest.approx(
        [0.0179733, 0.0163934, 0.0163934, 0.0161290, 0.0013832], abs=1e-6
    )
    assert [item["shell"] for item in result["items"]] == [0, 0, 0, 0, 1]
    assert result["items"][4]["path"][0]["from_knot_id"] == k["A"].pk
    assert result["ranking"] == "relevance"


def test_the_seed_ranking_is_kept_as_a_setting(pasture, settings):
    m, k = pasture
    settings.SYNAPSE_RESONANCE_RANKING = "seed"

    result = resonance_of(mind=m, q=Q, limit=5)

    # Presence × shell factor over the anchors N, A, S and their spread (T 9 × 0.75 = 6.75, B 3 × 0.75
    # = 2.25; S is an anchor already), B's own shell 0 entry comes only as fill: A 2.0, N 1.0, S 1.0.
    assert [item["knot_id"] for item in result["items"]] == [k[n].pk for n in ("T", "B", "A", "N", "S")]
    assert result["ranking"] == "seed"
