"""Helpers for the recall, overview, compaction and export/import tests: memories written through
the real store service, with times set afterwards where a test needs a fixed order or age."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memories.models import Memory
from memories.services.memory import memory_store
from memories.services.validation import memory_fields_clean
from minds.access import Caller, caller_of
from minds.authentication import AgentPrincipal
from minds.models import MindKey

# A fixed point in time the tests count from.
T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def agent_caller(mind) -> Caller:
    return caller_of(AgentPrincipal(key=MindKey.objects.filter(mind=mind).first()))


def human_caller(user) -> Caller:
    return caller_of(user)


def remember(mind, caller: Caller, *, at: datetime | None = None, created: datetime | None = None, **fields) -> Memory:
    """Store a memory as POST /memory does (checked by the memory field rules, then the store
    service); `at` then sets updated_at (and created_at unless `created` is given), so tests
    control recency."""
    data = {name: value.isoformat() if isinstance(value, datetime) else value for name, value in fields.items()}
    memory = memory_store(mind=mind, fields=memory_fields_clean(data), caller=caller).memory
    if at is not None:
        Memory.objects.filter(pk=memory.pk).update(updated_at=at, created_at=created or at)
        memory.refresh_from_db()
    return memory


def minutes(n: float) -> timedelta:
    return timedelta(minutes=n)
