"""`python -m bench locomo-why`: the place a missed evidence turn is sorted into, worked out by hand.

The net of these tests, knot ids: anchors 1 and 2; edges 1→3, 3→4, 4→5 (so 3 is one hop from an
anchor, 4 two hops, 5 three hops); the ranking weighed the anchors and 10 and 11, the deeper lists also hold 12.
"""

from __future__ import annotations

from bench.locomo.why import PLACES, Neighbourhood, Tally, miss_place, one_hop, table

EDGES = {1: {3: ("entity",)}, 3: {4: ("timeline",), 1: ("entity",)}, 4: {5: ("themes",)}}


def _seen(found_sessions=frozenset()) -> Neighbourhood:
    return Neighbourhood(
        weighed=frozenset({1, 2, 10, 11}),
        deep=frozenset({1, 2, 10, 11, 12}),
        anchors=frozenset({1, 2}),
        edges=EDGES,
        found_sessions=frozenset(found_sessions),
    )


def test_a_missed_turn_the_ranking_weighed_is_a_candidate_before_anything_else():
    assert miss_place(10, 1, _seen(found_sessions={1})) == "candidate"


def test_a_turn_only_the_deeper_lists_hold_is_a_deeper_list_miss():
    assert miss_place(12, 1, _seen()) == "deeper list"


def test_one_and_two_edges_from_an_anchor_are_one_and_two_hops_and_three_edges_are_not_reached():
    seen = _seen()
    assert miss_place(3, 1, seen) == "1 hop"
    assert miss_place(4, 1, seen) == "2 hops"
    # 5 is three edges away (1→3→4→5): beyond two hops, and its session 1 holds no found turn.
    assert miss_place(5, 1, seen) == "nowhere"


def test_an_anchor_the_ranking_left_below_k_is_a_candidate_not_a_two_hop_miss():
    # 3→1 leads back to anchor 1, so one_hop({3}) holds 1; but the anchors are weighed candidates.
    assert one_hop({3}, EDGES) == {4, 1}
    assert miss_place(1, 1, _seen()) == "candidate"


def test_an_unreached_turn_in_the_session_of_a_found_evidence_turn_is_a_same_session_miss():
    assert miss_place(5, 7, _seen(found_sessions={7})) == "same session"
    assert miss_place(None, 7, _seen(found_sessions={7})) == "same session"
    assert miss_place(None, 8, _seen(found_sessions={7})) == "nowhere"


def test_the_table_gives_each_place_its_count_and_its_share_of_the_misses():
    tally = Tally(questions=2, evidence=5, found=1)
    tally.places.update({"candidate": 3, "nowhere": 1})
    text = table({"all": tally}, 10)
    row = next(line for line in text.splitlines() if line.startswith("all "))
    # 4 missed: candidate 3 (75 %), nowhere 1 (25 %), every other place 0.
    assert row.split()[1:5] == ["2", "5", "1", "4"]
    assert row.split()[5:7] == ["3", "75%"] and row.split()[-2:] == ["1", "25%"]
    assert len(PLACES) == 6
