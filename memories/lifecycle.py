"""Every change of a mind's memories passes here: the one hook of the long-term net and of webhooks.

A write path calls `memories_changed(event=…, mind_id=…, memory_ids=…)` inside its transaction,
after its rows are written. This module

- announces the change at once (`memories_changed_signal`, sent synchronously in the transaction,
  for listeners that must see every event — webhooks (`webhooks/receivers.py`), tests);
- enqueues the long-term net's work for the event once the transaction has committed: at most
  one task per transaction, however many changes it made (a compaction stores summaries and
  expires their members; a sync touches a thousand memories), and none when it rolls back.

`memories` must not import `synapses` (docs/architecture.md, "The app chain"), so the task is
named by its dotted path and django-q2 imports it in the worker (`async_task(path, ids)`).
A deleted memory's net rows go by a cascading foreign key, not by a task, so deletions enqueue
nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from enum import StrEnum
from functools import partial

from django.db import transaction
from django.dispatch import Signal
from django_q.tasks import async_task


class MemoryEvent(StrEnum):
    """What happened to the memories (one word per write path)."""

    CREATED = "created"  # POST /memory made a new memory
    UPDATED = "updated"  # POST /memory (upsert) or PATCH/PUT /memory/{id} changed one
    SYNCED = "synced"  # POST /memory/sync created or changed them
    IMPORTED = "imported"  # POST /mind/import created or replaced them
    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    EXPIRED = "expired"  # compaction folded them into a summary and expired them
    REEMBEDDED = "reembedded"  # manage.py reembed gave them a vector of the current embedder
    DELETED = "deleted"
    MIND_DELETED = "mind_deleted"  # the mind and everything of it (memory_ids empty)


# The net's task that (re)reads memories into knots: takes a list of memory ids.
PROMOTE_TASK = "synapses.tasks.memories_promote"
# Events after which the net re-reads the memories: their content, provenance or vector changed.
# Expiry is the net's decay to notice (no task yet); deletions cascade.
PROMOTING_EVENTS = frozenset(
    {
        MemoryEvent.CREATED,
        MemoryEvent.UPDATED,
        MemoryEvent.SYNCED,
        MemoryEvent.IMPORTED,
        MemoryEvent.VERIFIED,
        MemoryEvent.UNVERIFIED,
        MemoryEvent.REEMBEDDED,
    }
)

# Sent for every change, inside the writing transaction: event, mind_id, memory_ids (a tuple).
memories_changed_signal = Signal()

_pending = threading.local()


def _transaction_of(connection) -> tuple[int, str | None]:
    """Which transaction this is: its outermost atomic block (a test's own wrapping blocks left
    out, so each service call in a test counts as the transaction it is in production) and that
    block's savepoint id (unique per entry; None for a real outermost block)."""
    for depth, block in enumerate(connection.atomic_blocks):
        if not getattr(block, "_from_testcase", False):
            return depth, (connection.savepoint_ids[depth - 1] if depth else None)
    return len(connection.atomic_blocks), None


def _promotion_batch(connection, using: str | None) -> tuple[list[str], set[str]]:
    """The ids this transaction will hand to the net on commit; registers the one on-commit task
    the first time. A batch whose callback is no longer waiting (it ran on commit, or its
    transaction rolled back) is never reused."""
    key = _transaction_of(connection)
    callback = getattr(_pending, "callback", None)
    waiting = callback is not None and any(entry[1] is callback for entry in connection.run_on_commit)
    if not waiting or _pending.key != key:
        batch: list[str] = []
        _pending.key, _pending.ids, _pending.seen = key, batch, set()
        _pending.callback = partial(async_task, PROMOTE_TASK, batch)
        transaction.on_commit(_pending.callback, using=using)
    return _pending.ids, _pending.seen


def memories_changed(*, event: MemoryEvent, mind_id: str, memory_ids: Iterable[str], using: str | None = None) -> None:
    """Record that `event` happened to `memory_ids` of `mind_id` (call inside the write's transaction)."""
    ids = tuple(memory_ids)
    memories_changed_signal.send(sender=MemoryEvent, event=event, mind_id=mind_id, memory_ids=ids)
    if event not in PROMOTING_EVENTS or not ids:
        return
    connection = transaction.get_connection(using)
    if not connection.in_atomic_block:
        async_task(PROMOTE_TASK, list(ids))  # autocommit: the rows are already committed
        return
    batch, seen = _promotion_batch(connection, using)
    for memory_id in ids:
        if memory_id not in seen:
            seen.add(memory_id)
            batch.append(memory_id)
