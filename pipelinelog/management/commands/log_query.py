"""The forensic queries of the pipeline log (docs/pipeline-log.md, "Reading a turn"), for an operator at a shell.

    manage.py log_query outputs memories.store --limit 5   last outputs of a node
    manage.py log_query turn <turn id>                     every row of a turn
    manage.py log_query span <span id>                     every row of one node run
    manage.py log_query counts [--hours 24]                rows per node and kind
    manage.py log_query errors [--hours 24]                the errors
    manage.py log_query decisions <node> [--hours 168]     how a node's decisions came out
    manage.py log_query tokens [--hours 24]                LLM token use and cost

`--mind <mind id>` narrows any of them to one mind.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from pipelinelog import selectors
from pipelinelog.models import LogEntry

QUERIES = ("outputs", "turn", "span", "counts", "errors", "decisions", "tokens")
# Queries that need the positional argument, and what it names.
NEEDS_ARGUMENT = {"outputs": "a node", "turn": "a turn id", "span": "a span id", "decisions": "a node"}
# Default window of the time-bounded queries (hours); decisions look back a week.
DEFAULT_HOURS = {"counts": 24, "errors": 24, "tokens": 24, "decisions": 24 * 7}


class Command(BaseCommand):
    help = "Run one of the pipeline log's forensic queries and print the rows readably."

    def add_arguments(self, parser):
        parser.add_argument("name", choices=QUERIES, help="which query")
        parser.add_argument("argument", nargs="?", help="node, turn id or span id, as the query needs")
        parser.add_argument("--limit", type=int, default=20, help="most rows to print (outputs, errors)")
        parser.add_argument("--hours", type=int, default=None, help="look back this many hours")
        parser.add_argument("--mind", default=None, help="only rows of this mind id")
        parser.add_argument("--width", type=int, default=160, help="cut content after this many characters")

    def handle(self, *args, name: str, argument: str | None, limit: int, hours: int | None, mind: str | None, **opts):
        if name in NEEDS_ARGUMENT and not argument:
            raise CommandError(f"`log_query {name}` needs {NEEDS_ARGUMENT[name]}.")
        if limit < 1 or (hours is not None and hours < 1):
            raise CommandError("--limit and --hours must be 1 or more.")
        self.width = opts["width"]
        since = timezone.now() - timedelta(hours=hours or DEFAULT_HOURS.get(name, 24))

        if name == "outputs":
            self._rows(selectors.log_outputs_of_node(node=argument, limit=limit, mind_id=mind))
        elif name == "turn":
            self._rows(selectors.log_rows_of_turn(turn_id=argument, mind_id=mind), with_span=True)
        elif name == "span":
            try:
                span_id = uuid.UUID(argument)
            except ValueError:
                raise CommandError(f"{argument!r} is not a span id (a UUID).") from None
            self._rows(selectors.log_rows_of_span(span_id=span_id, mind_id=mind))
        elif name == "counts":
            counts = selectors.log_counts_by_node_and_kind(since=since, mind_id=mind)
            self._table(["rows", "node", "kind"], [[c["rows"], c["node"], c["kind"]] for c in counts])
        elif name == "errors":
            self._rows(selectors.log_errors_since(since=since, limit=limit, mind_id=mind), with_span=True)
        elif name == "decisions":
            outcomes = selectors.log_decision_outcomes(node=argument, since=since, mind_id=mind)
            self._table(["rows", "outcome"], [[o["rows"], o["outcome"]] for o in outcomes])
        elif name == "tokens":
            totals = selectors.log_token_totals(since=since, mind_id=mind)
            self._table(["calls", "input_tokens", "output_tokens", "cost_usd"], [[totals[k] or 0 for k in totals]])

    def _rows(self, rows: list[LogEntry], *, with_span: bool = False) -> None:
        if not rows:
            self.stdout.write("no rows")
            return
        for row in rows:
            content = json.dumps(row.content, ensure_ascii=False, separators=(",", ":"))
            if len(content) > self.width:
                content = content[: self.width - 1] + "…"
            span = f" {str(row.span_id)[:8]}" if with_span and row.span_id else ""
            when = row.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
            self.stdout.write(
                f"{when}{span}  {row.node:<24} {row.kind:<11} {row.source:<18} {row.mind_id or '-':<14} {content}"
            )
        self.stdout.write(f"({len(rows)} rows)")

    def _table(self, header: list[str], rows: list[list]) -> None:
        if not rows:
            self.stdout.write("no rows")
            return
        cells = [header, *[[str(cell) for cell in row] for row in rows]]
        widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
        for row in cells:
            self.stdout.write("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
