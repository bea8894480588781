"""The human UI of the pipeline log: recent turns, and one turn as its spans with their rows
in readable form (docs/ui.md). Read access to a mind shows its rows, as `GET /log` does."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memoryproject.core.domain import NotFound
from memoryproject.core.ui_pages import CONTROL_CHARACTER, ui_view
from minds.access import Access, mind_get_for
from minds.selectors import minds_list
from pipelinelog.models import Kind
from pipelinelog.selectors import log_turn_get, log_turn_mind_ids, log_turns_recent

# Turns the log page lists (turns).
RECENT_TURNS_SHOWN = 100
TURN_NOT_FOUND = "None of your minds has log rows of this turn id."


def _minds_in_view(request: HttpRequest) -> tuple[list, object | None]:
    """The minds the page reads: the one `?mind=` names (read access), else every visible mind."""
    named = request.GET.get("mind")
    if named:
        mind, _ = mind_get_for(user=request.user, mind_id=named, need=Access.READ)
        return [mind], mind
    return list(minds_list(user=request.user)), None


@ui_view
@require_GET
def log_turns(request: HttpRequest) -> HttpResponse:
    """The most recent turns of my minds (or of the one `?mind=` names), newest first."""
    minds, chosen = _minds_in_view(request)
    names = {mind.pk: mind.name for mind in minds}
    turns = log_turns_recent(mind_ids=list(names), limit=RECENT_TURNS_SHOWN)
    context = {
        "turns": [{"turn": turn, "mind_name": names.get(turn.mind_id, turn.mind_id)} for turn in turns],
        "minds": minds if chosen is None else list(minds_list(user=request.user)),
        "chosen": chosen,
    }
    return render(request, "pipelinelog/turns.html", context)


def _readable(trace) -> list[dict]:
    """Each span with its rows: when (ms after the turn's first row), kind, node, content as JSON."""
    first = trace.spans[0].rows[0].created_at
    spans = []
    for span in trace.spans:
        rows = [
            {
                "row": row,
                "offset_ms": round((row.created_at - first).total_seconds() * 1000, 1),
                "content": json.dumps(row.content, indent=2, ensure_ascii=False, sort_keys=True),
                "is_error": row.kind == Kind.ERROR,
            }
            for row in span.rows
        ]
        spans.append({"span": span, "rows": rows})
    return spans


@ui_view
@require_GET
def log_turn(request: HttpRequest, turn_id: str) -> HttpResponse:
    """One turn: for each mind of mine with rows of it (or the one `?mind=` names), its spans."""
    minds, chosen = _minds_in_view(request)
    if CONTROL_CHARACTER.search(turn_id):  # no stored turn id has one (X-Turn-Id refuses them)
        raise NotFound(TURN_NOT_FOUND)
    by_id = {mind.pk: mind for mind in minds}
    mind_ids = list(by_id) if chosen else log_turn_mind_ids(turn_id=turn_id, mind_ids=list(by_id))
    traces = []
    for mind_id in mind_ids:
        trace = log_turn_get(mind=by_id[mind_id], turn_id=turn_id)
        if trace is not None:
            traces.append({"mind": by_id[mind_id], "trace": trace, "spans": _readable(trace)})
    if not traces:
        raise NotFound(TURN_NOT_FOUND)
    return render(request, "pipelinelog/turn.html", {"turn_id": turn_id, "traces": traces})
