"""Reading the pipeline log: always of one mind."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from django.contrib.postgres.aggregates import ArrayAgg
from django.db.models import BigIntegerField, Count, DecimalField, Max, Min, Q, QuerySet, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from minds.models import Mind
from pipelinelog.models import Kind, LogEntry

# Most rows `log_turn_get` returns for one turn (a runaway job must not answer with millions).
TURN_MAX_ROWS = 10_000
# Status of a span whose span_end is not (yet) in the log: still running, or its process died.
STATUS_OPEN = "open"


def log_entries_of_mind(*, mind: Mind) -> QuerySet[LogEntry]:
    """The mind's rows, newest first (ties broken by id, so a page never shuffles)."""
    return LogEntry.objects.filter(mind=mind).order_by("-created_at", "-id")


@dataclass
class SpanTrace:
    span_id: UUID | None
    node: str
    status: str
    duration_ms: float | None
    rows: list[LogEntry] = field(default_factory=list)


@dataclass
class TurnTrace:
    turn_id: str
    spans: list[SpanTrace]
    truncated: bool


def log_turn_get(*, mind: Mind, turn_id: str) -> TurnTrace | None:
    """The mind's rows of one turn, oldest first, grouped by span (spans in order of their first
    row); None when the mind has no row of that turn. Rows without a span form their own group."""
    rows = list(LogEntry.objects.filter(mind=mind, turn_id=turn_id).order_by("created_at", "id")[: TURN_MAX_ROWS + 1])
    if not rows:
        return None
    truncated = len(rows) > TURN_MAX_ROWS
    spans: dict[UUID | None, SpanTrace] = {}
    for row in rows[:TURN_MAX_ROWS]:
        trace = spans.get(row.span_id)
        if trace is None:
            trace = SpanTrace(span_id=row.span_id, node=row.node, status=STATUS_OPEN, duration_ms=None)
            spans[row.span_id] = trace
        trace.rows.append(row)
        if row.kind == Kind.SPAN_END and isinstance(row.content, dict):
            trace.status = str(row.content.get("status", STATUS_OPEN))
            trace.duration_ms = row.content.get("duration_ms")
    return TurnTrace(turn_id=turn_id, spans=list(spans.values()), truncated=truncated)


# --- Forensic queries (docs/pipeline-log.md), across minds unless one is named; used by `manage.py log_query`.


def _scoped(mind_id: str | None) -> QuerySet[LogEntry]:
    rows = LogEntry.objects.all()
    return rows.filter(mind_id=mind_id) if mind_id else rows


def log_outputs_of_node(*, node: str, limit: int, mind_id: str | None = None) -> list[LogEntry]:
    """The last `limit` outputs of a node, newest first (ref query 1)."""
    return list(_scoped(mind_id).filter(node=node, kind=Kind.OUTPUT).order_by("-created_at", "-id")[:limit])


def log_rows_of_turn(*, turn_id: str, mind_id: str | None = None) -> list[LogEntry]:
    """Everything of one turn, oldest first (ref query 3)."""
    return list(_scoped(mind_id).filter(turn_id=turn_id).order_by("created_at", "id")[:TURN_MAX_ROWS])


def log_rows_of_span(*, span_id: UUID, mind_id: str | None = None) -> list[LogEntry]:
    """What one node run did, oldest first (ref query 4)."""
    return list(_scoped(mind_id).filter(span_id=span_id).order_by("created_at", "id")[:TURN_MAX_ROWS])


def log_counts_by_node_and_kind(*, since: datetime, mind_id: str | None = None) -> list[dict]:
    """Rows per (node, kind) since `since`, busiest first."""
    return list(
        _scoped(mind_id)
        .filter(created_at__gte=since)
        .values("node", "kind")
        .annotate(rows=Count("id"))
        .order_by("-rows", "node", "kind")
    )


def log_errors_since(*, since: datetime, limit: int, mind_id: str | None = None) -> list[LogEntry]:
    """Error rows since `since`, newest first."""
    return list(_scoped(mind_id).filter(kind=Kind.ERROR, created_at__gte=since).order_by("-created_at", "-id")[:limit])


def log_decision_outcomes(*, node: str, since: datetime, mind_id: str | None = None) -> list[dict]:
    """How a node's decisions came out since `since`: rows per `content.outcome` (ref query 2)."""
    return list(
        _scoped(mind_id)
        .filter(node=node, kind=Kind.DECISION, created_at__gte=since)
        .annotate(outcome=KeyTextTransform("outcome", "content"))
        .values("outcome")
        .annotate(rows=Count("id"))
        .order_by("-rows", "outcome")
    )


def log_token_totals(*, since: datetime, mind_id: str | None = None) -> dict:
    """Token use and cost since `since`, from `token` rows (ref query 5)."""

    def total(key: str, output_field):
        return Sum(Cast(KeyTextTransform(key, "content"), output_field))

    return (
        _scoped(mind_id)
        .filter(kind=Kind.TOKEN, created_at__gte=since)
        .aggregate(
            calls=Count("id"),
            input_tokens=total("input_tokens", BigIntegerField()),
            output_tokens=total("output_tokens", BigIntegerField()),
            cost_usd=total("cost_usd", DecimalField(max_digits=20, decimal_places=8)),
        )
    )


# --- The human UI's trace pages (docs/ui.md) -------------------------------------------------

# Newest rows of the minds that the list of recent turns groups (rows): a bound on the work of
# one page, whatever the size of the log.
RECENT_TURNS_SCAN_ROWS = 5_000


@dataclass(frozen=True)
class TurnSummary:
    turn_id: str
    mind_id: str
    started_at: datetime
    ended_at: datetime
    rows: int
    nodes: list[str]
    errors: int


def log_turns_recent(*, mind_ids: list[str], limit: int) -> list[TurnSummary]:
    """The most recent turns of the minds, newest first: each turn of a mind with its first and
    last row, its row count, the nodes it ran and its error rows. Only the minds' newest
    `RECENT_TURNS_SCAN_ROWS` rows are grouped, so a turn older than those is not listed."""
    if not mind_ids:
        return []
    newest = LogEntry.objects.filter(mind_id__in=mind_ids).order_by("-created_at", "-id").values("id")
    grouped = (
        LogEntry.objects.filter(id__in=newest[:RECENT_TURNS_SCAN_ROWS])
        .values("turn_id", "mind_id")
        .annotate(
            started_at=Min("created_at"),
            ended_at=Max("created_at"),
            rows=Count("id"),
            nodes=ArrayAgg("node", distinct=True, order_by="node"),
            errors=Count("id", filter=Q(kind=Kind.ERROR)),
        )
        .order_by("-ended_at", "turn_id")[:limit]
    )
    return [TurnSummary(**row) for row in grouped]


def log_turn_mind_ids(*, turn_id: str, mind_ids: list[str]) -> list[str]:
    """Which of the minds have rows of the turn (a turn link that names no mind)."""
    return list(
        LogEntry.objects.filter(turn_id=turn_id, mind_id__in=mind_ids)
        .values_list("mind_id", flat=True)
        .distinct()
        .order_by("mind_id")
    )
