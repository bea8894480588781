"""The contradiction step of resonance (synapses/resonance/contradiction.py) and the match test's
choice among the nearest knots (synapses/promotion/match.py)."""

from __future__ import annotations

from memories.selectors.vector_plan import VectorPlan
from synapses.promotion.knots import Nearest
from synapses.promotion.match import match_pick
from synapses.resonance.contradiction import Said, contradictions_order

ALLERGIC, NOT_ALLERGIC = "Alice is allergic to peanuts", "Alice is not allergic to peanuts"


def test_the_newer_fact_takes_the_older_s_place_and_the_older_follows_it():
    said = [Said(1, ALLERGIC, 1), Said(2, "Bob likes tea", 5), Said(3, NOT_ALLERGIC, 9), Said(4, "Anna sings", 2)]
    order, contradicted_by = contradictions_order(said)
    assert order == [3, 1, 2, 4]
    assert contradicted_by == {1: 3}


def test_nothing_moves_without_a_contradiction_and_an_older_knot_below_stays_below():
    assert contradictions_order([Said(1, "Bob likes tea", 1), Said(2, "Anna sings", 2)]) == ([1, 2], {})
    # The newer already ranks first: it stays, and the older is still marked.
    assert contradictions_order([Said(3, NOT_ALLERGIC, 9), Said(1, ALLERGIC, 1)]) == ([3, 1], {1: 3})


def test_a_chain_of_changes_puts_the_newest_first():
    said = [Said(1, "The meeting is in room 4", 1), Said(2, "The meeting is in room 7", 2),
            Said(3, "The meeting is in room 9", 3)]  # fmt: skip
    order, contradicted_by = contradictions_order(said)
    assert order == [3, 2, 1] and contradicted_by == {1: 3, 2: 3}


def _near(knot_id: int, cosine: float, content: str) -> Nearest:
    return Nearest(knot_id=knot_id, cosine=cosine, is_active=True, plan=VectorPlan.EXACT, content=content)


def test_the_match_is_the_closest_near_knot_stating_the_same_fact():
    near = [_near(1, 0.95, ALLERGIC), _near(2, 0.9, NOT_ALLERGIC), _near(3, 0.5, NOT_ALLERGIC)]
    choice = match_pick("Alice is not allergic to peanuts!", near, 0.83)
    assert choice.matched.knot_id == 2
    assert [(n.knot_id, c.kind) for n, c in choice.contrasts] == [(1, "negation")]


def test_no_match_below_the_threshold_whatever_the_words():
    choice = match_pick(ALLERGIC, [_near(1, 0.82, ALLERGIC)], 0.83)
    assert choice.matched is None and choice.contrasts == []
    assert choice.as_log() == {"matched_knot_id": None, "contrasts": []}
