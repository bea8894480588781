"""Every fixed number of the pipeline log, in one place.

The operator-tunable values (flush interval, batch size, retention, the switches) have their
one home in the settings, with their defaults and environment overrides
(`memoryproject/settings.py`, section "Pipeline log"); `setting()` below reads them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

# The request header that names a turn (echoed on every response).
TURN_ID_HEADER = "X-Turn-Id"
# Longest accepted `X-Turn-Id` / `turn_id`, in characters (the column's max_length).
TURN_ID_MAX_LENGTH = 100
# Longest node name, in characters (the column's max_length).
NODE_MAX_LENGTH = 100
# Longest `source` label, in characters (`agent:mk_xxxxxxxx`, `user:<id>`, `worker`, `system`).
SOURCE_MAX_LENGTH = 100

# Source of a span nobody named and no enclosing span names: cross-pipeline events.
SOURCE_SYSTEM = "system"
# Source of the span a django-q2 task runs in (and of everything inside it).
SOURCE_WORKER = "worker"
# Source of an API request no credential authenticated (register, login, health).
SOURCE_ANONYMOUS = "anonymous"

# A span holds its rows until it ends so late facts (its mind, its caller, its URL name) can be
# stamped on all of them; a very long span releases them early every this many rows (count).
SPAN_HOLD_MAX_ROWS = 200

# Request summaries: strings are cut after this many characters …
SUMMARY_MAX_STRING = 500
# … lists after this many items …
SUMMARY_MAX_ITEMS = 20
# … and nesting below this depth is replaced by a marker (levels).
SUMMARY_MAX_DEPTH = 4

# What replaces a secret in every log row.
REDACTED = "[redacted]"

# How long a shutdown flush (SIGTERM, interpreter exit) may take before it gives up (seconds).
SHUTDOWN_FLUSH_TIMEOUT_SECONDS = 10.0

# Most rows one process keeps buffered while the database is away (rows); beyond it new rows
# are dropped and counted. A few KB a row at most: tens of MB.
LOG_BUFFER_MAX_ROWS = 20_000
# While the database is away the writer retries after 1 s, then doubles the wait up to this (seconds).
LOG_RETRY_MAX_SECONDS = 60.0


def setting(name: str) -> Any:
    """The current value of one pipeline-log setting (read per call, so tests can override it):
    PIPELINE_LOG_ENABLED, PIPELINE_LOG_SYNC, LOG_FLUSH_SECONDS, LOG_FLUSH_BATCH or LOG_RETENTION_DAYS."""
    return getattr(settings, name)
