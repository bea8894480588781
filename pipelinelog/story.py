"""A turn of the pipeline log as a story: lines of plain text built from its spans' rows.

Pure formatting (no Django, no database): `turn_story(spans)` takes the spans of one turn in
order, each with its node, status, duration and rows (kind, content), and returns one line per
span heading and one indented line per row worth reading. Recall with resonance
(`synapses.resonance`) and reinforcement by use (`synapses.reinforcement`) are told in words:
the search vector, the anchors, the shells, the paths and factors of what came back, the
outcome; any other node's rows are shown as `kind: key=value, …`, so nothing is hidden.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

# Items of a list shown in one line before "… and N more" (items): a story is read, not parsed.
STORY_MAX_LISTED = 10
# Characters of one value shown in a generic row before it is cut (characters).
STORY_MAX_VALUE_CHARS = 120
# The row kinds that only frame a span: its heading already says when it ended and how.
_FRAME_KINDS = frozenset({"span_start", "span_end"})
_INDENT = "  "


class StoryRow(Protocol):
    kind: str
    content: Any


class StorySpan(Protocol):
    node: str
    status: str
    duration_ms: float | None
    rows: Sequence[StoryRow]


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:STORY_MAX_LISTED])
    rest = len(items) - STORY_MAX_LISTED
    return f"{shown}, … and {rest} more" if rest > 0 else shown


def _value(value: Any) -> str:
    text = str(value)
    return text if len(text) <= STORY_MAX_VALUE_CHARS else text[: STORY_MAX_VALUE_CHARS - 1] + "…"


def _generic(kind: str, content: Any) -> list[str]:
    if isinstance(content, Mapping):
        return [f"{kind}: " + ", ".join(f"{key}={_value(value)}" for key, value in content.items())]
    return [f"{kind}: {_value(content)}"] if content not in (None, "", {}) else [kind]


# --- recall with resonance -------------------------------------------------------------------------


def _resonance_row(kind: str, content: Mapping[str, Any]) -> list[str] | None:
    if kind == "input":
        return [
            f'asked: "{content.get("q", "")}" (mode {content.get("mode") or "default"}, limit {content.get("limit")}'
            + (f", mood {content['mood']}" if content.get("mood") else "")
            + (f", intent {content['intent']}" if content.get("intent") else "")
            + ")"
        ]
    if kind == "calculation" and content.get("calculation") == "perception_gravity":
        counted = [goal for goal in content.get("goals", []) if goal.get("counted")]
        if content.get("outcome") == "shifted":
            return [
                f"perception gravity: {len(counted)} goal(s) bent the search vector by factor "
                f"{content.get('factor')} (cosine to the raw query {content.get('cosine_to_raw')})"
            ]
        return [f"perception gravity: the raw query vector ({content.get('outcome')})"]
    if kind == "db_read" and content.get("operation") == "anchors":
        return [f"anchor candidates: {content.get('candidates')} ({content.get('vector_plan')} vector plan)"]
    if kind == "decision" and content.get("decision") == "anchors":
        anchors = [
            f"knot {a['knot_id']} (cosine {a['cosine']}" + (", text match" if a.get("text_match") else "") + ")"
            for a in content.get("anchors", [])
        ]
        if not anchors:
            return [f"anchors: none above the floor {content.get('floor')}"]
        return [f"anchors (floor {content.get('floor')}): " + _listed(anchors)]
    if kind == "output":
        shells = content.get("shells", {})
        lines = [
            f"outcome: {content.get('outcome')}; reached by shell: "
            + (", ".join(f"{shell}: {count}" for shell, count in shells.items()) or "none")
            + f"; {content.get('filled', 0)} filled from further anchors"
        ]
        for number, item in enumerate(content.get("items", []), start=1):
            path = item.get("path") or []
            how = "an anchor" if not path else "via edge " + " -> ".join(str(edge) for edge in path)
            factors = f"rank weight {item.get('rank_weight')}"
            if "relevance" in item:
                factors += f", relevance {item['relevance']}"
            lines.append(f"{_INDENT}{number}. knot {item.get('knot_id')}, shell {item.get('shell')}, {how} ({factors})")
        return lines
    return None


# --- reinforcement by use --------------------------------------------------------------------------


def _reinforcement_row(kind: str, content: Mapping[str, Any]) -> list[str] | None:
    if kind == "input":
        return [
            f"answer of {content.get('answer_chars')} characters checked against "
            f"{len(content.get('knot_ids', []))} offered knot(s) (threshold {content.get('threshold')}, "
            f"cap {content.get('cap')})"
        ]
    if kind == "calculation" and "nearness" in content:
        near = [f"knot {knot_id} {round(value, 3)}" for knot_id, value in content.get("nearness", [])]
        lines = [f"nearness: {_listed(near) or 'none'}"]
        used = content.get("used", [])
        lines.append(
            f"used: {', '.join(f'knot {knot_id}' for knot_id in used) or 'none'}"
            + (
                f"; closest rejected {round(content['closest_rejected'], 3)}"
                if content.get("closest_rejected") is not None
                else ""
            )
        )
        return lines
    if kind == "db_write" and content.get("operation") == "reinforce":
        knots = ", ".join(f"knot {knot_id}" for knot_id in content.get("knots", [])) or "none"
        return [f"reinforced: {knots}; {content.get('edges_recomputed', 0)} edge rows recomputed"]
    if kind == "decision" and "outcome" in content:
        return [f"outcome: {content['outcome']}"]
    return None


_TELLERS: dict[str, Callable[[str, Mapping[str, Any]], list[str] | None]] = {
    "synapses.resonance": _resonance_row,
    "synapses.reinforcement": _reinforcement_row,
}


def _heading(span: StorySpan) -> str:
    duration = "" if span.duration_ms is None else f", {span.duration_ms:g} ms"
    return f"{span.node} ({span.status}{duration})"


def span_story(span: StorySpan) -> list[str]:
    """The span's heading and one indented line (or a few) per row, frame rows left out."""
    teller = _TELLERS.get(span.node)
    lines = [_heading(span)]
    for row in span.rows:
        if row.kind in _FRAME_KINDS:
            continue
        told = teller(row.kind, row.content) if teller and isinstance(row.content, Mapping) else None
        lines.extend(_INDENT + line for line in (told if told is not None else _generic(row.kind, row.content)))
    return lines


def turn_story(spans: Iterable[StorySpan]) -> list[str]:
    """Every span of a turn told in order: a heading per span, its rows indented beneath."""
    return [line for span in spans for line in span_story(span)]
