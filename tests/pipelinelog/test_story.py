"""The turn as a story (pipelinelog.story): spans told line by line, resonance and reinforcement in words."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pipelinelog.story import STORY_MAX_LISTED, turn_story


def _span(node: str, rows: list[tuple[str, object]], *, status: str = "ok", duration_ms: float | None = 12.5):
    return SimpleNamespace(
        node=node,
        status=status,
        duration_ms=duration_ms,
        rows=[SimpleNamespace(kind=kind, content=content) for kind, content in rows],
    )


def test_a_resonance_span_reads_as_query_gravity_anchors_shells_and_paths():
    resonance = _span(
        "synapses.resonance",
        [
            ("span_start", None),
            ("input", {"q": "zebra stripes", "mode": "paradox", "intent": "", "mood": "", "limit": 2}),
            ("calculation", {"calculation": "perception_gravity", "mode": "paradox", "factor": 0.0, "goals": [],
                             "cosine_to_raw": 1.0, "outcome": "no_active_goals"}),
            ("db_read", {"table": "synapses_knot", "operation": "anchors", "vector_plan": "exact", "candidates": 4}),
            ("decision", {"decision": "anchors", "floor": 0.4,
                          "anchors": [{"knot_id": 7, "cosine": 0.81, "text_match": True},
                                      {"knot_id": 9, "cosine": 0.52, "text_match": False}]}),
            ("output", {"outcome": "resonance", "shells": {"0": 2, "1": 3}, "filled": 0,
                        "items": [{"knot_id": 7, "shell": 0, "rank_weight": 0.9, "path": []},
                                  {"knot_id": 12, "shell": 1, "rank_weight": 0.4, "path": [31]}]}),
            ("span_end", {"status": "ok", "duration_ms": 12.5}),
        ],
    )  # fmt: skip

    assert turn_story([resonance]) == [
        "synapses.resonance (ok, 12.5 ms)",
        '  asked: "zebra stripes" (mode paradox, limit 2)',
        "  perception gravity: the raw query vector (no_active_goals)",
        "  anchor candidates: 4 (exact vector plan)",
        "  anchors (floor 0.4): knot 7 (cosine 0.81, text match), knot 9 (cosine 0.52)",
        "  outcome: resonance; reached by shell: 0: 2, 1: 3; 0 filled from further anchors",
        "    1. knot 7, shell 0, an anchor (rank weight 0.9)",
        "    2. knot 12, shell 1, via edge 31 (rank weight 0.4)",
    ]


def test_a_reinforcement_span_reads_as_nearness_use_and_what_was_reinforced():
    reinforcement = _span(
        "synapses.reinforcement",
        [
            ("input", {"answer_chars": 40, "embedded_chars": 40, "knot_ids": [7, 12], "offered": 2,
                       "threshold": 0.55, "cap": 3}),
            ("db_read", {"table": "synapses_knot", "candidates": 2, "not_found": 0, "inactive": 0}),
            ("calculation", {"nearness": [[7, 0.8123], [12, 0.301]], "over_threshold": 1, "used": [7],
                             "closest_rejected": 0.301}),
            ("db_write", {"table": "synapses_knot", "operation": "reinforce", "knots": [7], "edges_recomputed": 6}),
        ],
        duration_ms=None,
        status="open",
    )  # fmt: skip

    assert turn_story([reinforcement]) == [
        "synapses.reinforcement (open)",
        "  answer of 40 characters checked against 2 offered knot(s) (threshold 0.55, cap 3)",
        "  db_read: table=synapses_knot, candidates=2, not_found=0, inactive=0",
        "  nearness: knot 7 0.812, knot 12 0.301",
        "  used: knot 7; closest rejected 0.301",
        "  reinforced: knot 7; 6 edge rows recomputed",
    ]


def test_any_other_node_shows_its_rows_as_key_value_lines_and_a_long_anchor_list_is_cut():
    store = _span("memory-collection", [("input", {"method": "POST"}), ("note", "plain words"), ("output", None)])
    anchors = [{"knot_id": n, "cosine": 0.5, "text_match": False} for n in range(STORY_MAX_LISTED + 2)]
    resonance = _span("synapses.resonance", [("decision", {"decision": "anchors", "floor": 0.4, "anchors": anchors})])

    story = turn_story([store, resonance])

    assert story[:4] == ["memory-collection (ok, 12.5 ms)", "  input: method=POST", "  note: plain words", "  output"]
    assert story[4] == "synapses.resonance (ok, 12.5 ms)"
    assert story[5].endswith("knot 9 (cosine 0.5), … and 2 more")


@pytest.mark.django_db
def test_the_turn_endpoint_tells_a_resonance_request_as_a_story(mind):
    assert mind.agent.get("/synapses/resonance", {"q": "zebra"}, HTTP_X_TURN_ID="T-story").status_code == 200

    story = mind.agent.get("/log/turns/T-story").json()["story"]

    resonance_at = next(i for i, line in enumerate(story) if line.startswith("synapses.resonance (ok"))
    assert story[resonance_at + 1] == '  asked: "zebra" (mode default, limit 3)'
    assert "  anchors: none above the floor" in story[resonance_at + 4]
    assert (
        story[resonance_at + 5] == "  outcome: no_anchor; reached by shell: 0: 0, 1: 0; 0 filled from further anchors"
    )
