"""The span API: how code writes to the pipeline log.

    from pipelinelog.spans import current_span, span

    with span("synapses.promotion", mind=mind) as sp:     # span_start …
        sp.input({"memory_id": memory.pk})
        sp.decision({"decision": "promotion.match", "outcome": "new_knot"})
        sp.db_write({"table": "synapses_knot", "operation": "insert", "id": knot.pk})
        sp.output({"knot_id": knot.pk})                     # … span_end {status, duration_ms}

    current_span().db_write({...})   # the innermost active span, or a no-op when there is none

A span is one run of one node; every row it writes carries its `span_id` (uuid4) and the
turn's `turn_id`. `turn_id`, `source` and the mind default from the enclosing span (held in a
contextvar, so threads and asyncio tasks never see each other's spans; a new thread starts
with no span and hence a new turn). An exception passing through a span writes an `error`
row and `span_end` with status `error`, then propagates; `fail()` does the same for an error
the code caught itself.

A span holds its rows until it ends (or SPAN_HOLD_MAX_ROWS accumulate), then hands them to
the buffered writer in one piece. That is what lets facts learnt late — the mind bound by
`bind_mind()` after authentication, the caller, the URL name of a request — be stamped on
every row of the span, `span_start` included. Content is redacted (see `redaction.py`) and
made JSON-safe when it is written; do not mutate a dict after logging it.

With PIPELINE_LOG_ENABLED off, `span()` and `current_span()` return a no-op span: nothing is
recorded, buffered or written.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any

from django.utils import timezone

from pipelinelog.constants import (
    NODE_MAX_LENGTH,
    SOURCE_MAX_LENGTH,
    SOURCE_SYSTEM,
    SPAN_HOLD_MAX_ROWS,
    SUMMARY_MAX_STRING,
    TURN_ID_MAX_LENGTH,
    setting,
)
from pipelinelog.redaction import redact_text
from pipelinelog.writer import Row, writer

# Span statuses written into span_end.
STATUS_OK = "ok"
STATUS_ERROR = "error"

_active_span: ContextVar[Span | None] = ContextVar("pipelinelog_active_span", default=None)
# The turn of the current request or job when no span is active (or logging is off).
_active_turn: ContextVar[str | None] = ContextVar("pipelinelog_active_turn", default=None)


def new_turn_id() -> str:
    return str(uuid.uuid4())


def current_turn_id() -> str | None:
    """The turn id of the innermost span, else of the enclosing `turn_scope`, else None."""
    active = _active_span.get()
    return active.turn_id if active is not None else _active_turn.get()


def current_turn_id_or_blank() -> str:
    """current_turn_id() for rows that store "" when there is no turn (memories, audit rows)."""
    return current_turn_id() or ""


class turn_scope:  # noqa: N801 — used like a function: `with turn_scope(turn_id):`
    """Make `turn_id` the current turn for the block (works with logging off too)."""

    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self._token: Token | None = None

    def __enter__(self) -> str:
        self._token = _active_turn.set(self.turn_id)
        return self.turn_id

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            _active_turn.reset(self._token)


def _mind_id_of(mind: Any) -> str | None:
    if mind is None:
        return None
    return str(getattr(mind, "pk", mind))


def _error_content(error: BaseException | str) -> dict[str, str]:
    """What an `error` row says: the exception's type and message, or the text given.

    Redacted before it is cut: a token cut in half would no longer look like one to the writer.
    """
    if isinstance(error, BaseException):
        return {"type": type(error).__name__, "message": redact_text(str(error))[:SUMMARY_MAX_STRING]}
    return {"message": redact_text(error)[:SUMMARY_MAX_STRING]}


class Span:
    """One node run. Use through `span()`; see the module docstring."""

    def __init__(self, node: str, *, turn_id: str | None = None, mind: Any = None, source: str | None = None) -> None:
        self.node = node[:NODE_MAX_LENGTH]
        self.span_id = uuid.uuid4()
        # Given, or inherited when the span starts (the enclosing span's, the turn scope's, or new).
        self.turn_id: str | None = turn_id[:TURN_ID_MAX_LENGTH] if turn_id else None
        self._mind_id = _mind_id_of(mind)
        self._source = source[:SOURCE_MAX_LENGTH] if source else None
        self._source_resolver: Callable[[], str | None] | None = None
        self._parent: Span | None = None
        self._rows: list[tuple[Any, str, Any]] = []
        self._status = STATUS_OK
        self._started = 0.0
        self._token: Token | None = None
        self._ended = False

    # --- lifecycle ------------------------------------------------------------------------------
    def __enter__(self) -> Span:
        self._parent = _active_span.get()
        if self.turn_id is None:
            self.turn_id = self._parent.turn_id if self._parent is not None else (_active_turn.get() or new_turn_id())
        self._started = time.perf_counter()
        self._record("span_start", None)
        self._token = _active_span.set(self)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> bool:
        try:
            if self._token is not None:
                _active_span.reset(self._token)
        except ValueError:  # exited in another context than entered (a generator moved between tasks)
            _active_span.set(self._parent)
        if exc is not None:
            self.fail(exc)
        self.end()
        return False

    def end(self) -> None:
        """Write span_end and hand the rows to the writer (called by the `with` block)."""
        if self._ended:
            return
        self._ended = True
        duration_ms = round((time.perf_counter() - self._started) * 1000, 3)
        self._record("span_end", {"status": self._status, "duration_ms": duration_ms})
        self._release()

    def fail(self, error: BaseException | str) -> None:
        """Write an `error` row for `error` (an exception, or the text of one) and end with status `error`."""
        self.error(_error_content(error))
        self._status = STATUS_ERROR

    # --- late facts ----------------------------------------------------------------------------
    def set_status(self, status: str) -> None:
        """What span_end will say (`ok`, `error`, or a word of the caller's: `client_error`)."""
        self._status = status

    def bind_mind(self, mind: Any) -> None:
        """Stamp `mind` (a Mind or its id) on every row of this span, earlier rows included.

        Spans started inside this one inherit it unless they bind their own.
        """
        self._mind_id = _mind_id_of(mind)

    def rename(self, node: str) -> None:
        """Set the node name after the fact (a request learns its URL name only after routing)."""
        self.node = node[:NODE_MAX_LENGTH]

    def set_source_resolver(self, resolver: Callable[[], str | None]) -> None:
        """Ask `resolver` for the source when the rows are released (the caller of a request is
        known only after the view authenticated it)."""
        self._source_resolver = resolver

    @property
    def mind_id(self) -> str | None:
        if self._mind_id is not None:
            return self._mind_id
        return self._parent.mind_id if self._parent is not None else None

    @property
    def source(self) -> str:
        if self._source is not None:
            return self._source
        if self._source_resolver is not None:
            try:
                resolved = self._source_resolver()
            except Exception:
                resolved = None
            if resolved:
                return resolved[:SOURCE_MAX_LENGTH]
        return self._parent.source if self._parent is not None else SOURCE_SYSTEM

    # --- one method per kind -------------------------------------------------------------------
    def input(self, content: Any = None, /, **fields: Any) -> None:
        self._record("input", _merge(content, fields))

    def output(self, content: Any = None, /, **fields: Any) -> None:
        self._record("output", _merge(content, fields))

    def calculation(self, content: Any = None, /, **fields: Any) -> None:
        self._record("calculation", _merge(content, fields))

    def decision(self, content: Any = None, /, **fields: Any) -> None:
        self._record("decision", _merge(content, fields))

    def db_read(self, content: Any = None, /, **fields: Any) -> None:
        self._record("db_read", _merge(content, fields))

    def db_write(self, content: Any = None, /, **fields: Any) -> None:
        self._record("db_write", _merge(content, fields))

    def error(self, content: Any = None, /, **fields: Any) -> None:
        self._record("error", _merge(content, fields))

    def note(self, content: Any = None, /, **fields: Any) -> None:
        self._record("note", _merge(content, fields))

    def prompt(self, content: Any = None, /, **fields: Any) -> None:
        self._record("prompt", _merge(content, fields))

    def token(self, content: Any = None, /, **fields: Any) -> None:
        self._record("token", _merge(content, fields))

    # --- internals ------------------------------------------------------------------------------
    def _record(self, kind: str, content: Any) -> None:
        self._rows.append((timezone.now(), kind, content))
        if len(self._rows) >= SPAN_HOLD_MAX_ROWS and not self._ended:
            self._release()

    def _release(self) -> None:
        held, self._rows = self._rows, []
        if not held:
            return
        turn_id, span_id, source, node, mind_id = self.turn_id, self.span_id, self.source, self.node, self.mind_id
        writer.submit(
            [
                Row(created_at, turn_id, span_id, source, node, kind, content, mind_id)
                for created_at, kind, content in held
            ]
        )

    def __repr__(self) -> str:
        return f"<Span {self.node} {self.span_id}>"


def _merge(content: Any, fields: dict[str, Any]) -> Any:
    if not fields:
        return content
    if content is None:
        return fields
    if isinstance(content, dict):
        return {**content, **fields}
    return {"value": content, **fields}


class NoopSpan:
    """What `current_span()` returns outside any span and everything returns with logging off."""

    span_id = None
    node = ""
    mind_id = None
    source = SOURCE_SYSTEM

    @property
    def turn_id(self) -> str | None:
        return _active_turn.get()

    def __enter__(self) -> NoopSpan:
        return self

    def __exit__(self, *exc_info: object) -> bool:
        return False

    def _ignore(self, *args: Any, **kwargs: Any) -> None:
        return None

    input = output = calculation = decision = db_read = db_write = error = note = prompt = token = _ignore
    bind_mind = rename = set_status = set_source_resolver = fail = end = _ignore

    def __repr__(self) -> str:
        return "<NoopSpan>"


NOOP_SPAN = NoopSpan()


def span(node: str, *, turn_id: str | None = None, mind: Any = None, source: str | None = None) -> Span | NoopSpan:
    """A new span for one run of `node`; use it as a context manager.

    `turn_id`, `mind` and `source` default to the enclosing span's (a new turn id, no mind and
    `system` when there is none). `mind` may be a Mind or its id.
    """
    if not setting("PIPELINE_LOG_ENABLED"):
        return NOOP_SPAN
    return Span(node, turn_id=turn_id, mind=mind, source=source)


def current_span() -> Span | NoopSpan:
    """The innermost active span of this thread / task, or a no-op span."""
    active = _active_span.get()
    return active if active is not None else NOOP_SPAN
