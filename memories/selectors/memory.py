"""Reading memories of a mind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from memories.models import AuditAction, Memory, MemoryAudit, PendingPromotion, current_filter
from memoryproject.core.domain import NotFound, ValidationFailed
from memoryproject.core.page_limits import DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT
from memoryproject.core.timeinput import time_after
from minds.access import Access, mind_require

MEMORY_NOT_FOUND = "No memory with this id is visible to you."
# Page size of the memory lists (docs/api-memory.md: GET /memory, /memory/unverified, /memory/audit,
# and the MCP tool list_unverified): the project's one default page size (rows).
MEMORY_LIST_LIMIT = DEFAULT_PAGE_LIMIT


def _with_promotion_pending(memories: QuerySet[Memory]) -> QuerySet[Memory]:
    """`promotion_pending` read with each row (an index probe of the pending table's key): the
    memory object asks the net for a knot only about memories that are not pending."""
    return memories.annotate(promotion_pending=Exists(PendingPromotion.objects.filter(memory_id=OuterRef("pk"))))


def memories_of(mind_id: str) -> QuerySet[Memory]:
    """The mind's memories with what the memory object needs joined in. Every query filters by mind."""
    memories = Memory.objects.filter(mind_id=mind_id).select_related("verified_by").defer("embedding", "search_vector")
    return _with_promotion_pending(memories)


def memory_get_for(*, user, memory_id: str, need: Access, named_mind_id: str | None = None) -> Memory:
    """A memory by id, if `user` may act on its mind at level `need` (NotFound when invisible,
    PermissionDenied when too low). `named_mind_id`, the mind the client named, must be the
    memory's: ValidationFailed naming both otherwise — checked only once the caller may see the
    memory, so an outsider learns nothing from it."""
    memory = _with_promotion_pending(
        Memory.objects.select_related("mind", "verified_by").defer("embedding", "search_vector").filter(pk=memory_id)
    ).first()
    if memory is None:
        raise NotFound(MEMORY_NOT_FOUND)
    try:
        mind_require(user=user, mind=memory.mind, need=need)
    except NotFound:
        raise NotFound(MEMORY_NOT_FOUND) from None
    if named_mind_id and named_mind_id != memory.mind_id:
        raise ValidationFailed(
            {
                "mind": [
                    f"Memory {memory.pk} belongs to mind {memory.mind_id}, not to mind {named_mind_id} named by "
                    "?mind= / X-Mind. Name the memory's mind or leave the mind out."
                ]
            }
        )
    return memory


@dataclass(frozen=True)
class MemoryListFilters:
    """What a memory list keeps; None keeps everything. The API validated each value."""

    category: str | None = None
    tag: str | None = None  # lower-cased, as tags are stored
    priority: str | None = None
    source: str | None = None
    verified: bool | None = None
    include_expired: bool = False


def memory_list(*, mind_id: str, filters: MemoryListFilters, now: datetime | None = None) -> QuerySet[Memory]:
    """GET /memory and /memory/by-tag: the mind's memories kept by `filters`, most recently updated
    first (id breaks ties, so pages are stable). Expired ones only with `include_expired`."""
    memories = memories_of(mind_id)
    for name in ("category", "priority", "source", "verified"):
        if getattr(filters, name) is not None:
            memories = memories.filter(**{name: getattr(filters, name)})
    if filters.tag is not None:
        memories = memories.filter(tags__contains=[filters.tag])  # `tags @> ARRAY[tag]`: the GIN index on tags
    if not filters.include_expired:
        memories = memories.filter(current_filter(now or timezone.now()))
    return memories.order_by("-updated_at", "-id")


def memories_unverified(*, mind_id: str, now: datetime | None = None) -> QuerySet[Memory]:
    """GET /memory/unverified: what no human confirmed yet, most recently updated first, expired left out.

    Updated, not created: an agent rewriting a verified memory puts it back at the top of the queue.
    """
    now = now or timezone.now()
    return memories_of(mind_id).filter(verified=False).filter(current_filter(now)).order_by("-updated_at", "-id")


def memories_expiring(*, mind_id: str, within: timedelta, now: datetime | None = None) -> QuerySet[Memory]:
    """GET /memory/expiring: memories whose expires_at lies in (now, now + within], soonest first."""
    now = now or timezone.now()
    memories = memories_of(mind_id).filter(expires_at__gt=now, expires_at__lte=time_after(now, within))
    return memories.order_by("expires_at", "id")


def memory_audit_list(*, mind_id: str, action: str | None = None) -> QuerySet[MemoryAudit]:
    """GET /memory/audit: the mind's audit rows, newest first, optionally of one `action`."""
    rows = MemoryAudit.objects.filter(mind_id=mind_id)
    if action is not None:
        rows = rows.filter(action=action)
    return rows.order_by("-created_at", "-id")


def memory_audit_of(*, memory: Memory) -> QuerySet[MemoryAudit]:
    """The audit rows of one memory (its history in the UI), newest first; by the mind too, as
    every query on mind data is."""
    return MemoryAudit.objects.filter(mind_id=memory.mind_id, memory_id=memory.pk).order_by("-created_at", "-id")


# --- GET /memory/diff --------------------------------------------------------------------------

# Most memories one diff answer carries (the API's page cap); with more, `more` is true and `now`
# is where to go on.
DIFF_MAX_CHANGED = MAX_PAGE_LIMIT
# Allowance between a writer's `changed_at` stamp and its transaction's start as PostgreSQL
# records it: clock granularity and the skew between the web servers' and the database's clocks.
DIFF_CLOCK_SLACK = timedelta(seconds=1)

# The start of the oldest transaction still open in this database, other than ours. A write
# stamps `changed_at` inside its transaction, so nothing it commits later can carry an older time.
_OLDEST_OPEN_TRANSACTION_SQL = """
    SELECT min(xact_start) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid()
      AND backend_type = 'client backend' AND xact_start IS NOT NULL
"""


def diff_window_end() -> datetime:
    """Where a diff window may end without ever skipping a write that commits later.

    `now`, held back to the start of the oldest open transaction (minus DIFF_CLOCK_SLACK): a write
    in flight stamps `changed_at` before it commits, so a window ending after that stamp would
    miss it on this poll, and the next poll (starting at this window's end) would miss it too.
    """
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(_OLDEST_OPEN_TRANSACTION_SQL)
        (oldest_open,) = cursor.fetchone()
    if oldest_open is not None:
        now = min(now, oldest_open - DIFF_CLOCK_SLACK)
    return now


@dataclass(frozen=True)
class Diff:
    since: datetime
    now: datetime  # the end of the window (exclusive): the client's next `since`
    more: bool  # more changes wait in [now, …): ask again with since=now
    changed: list[Memory]
    deleted: list[str]


def memory_diff(*, mind_id: str, since: datetime, limit: int = DIFF_MAX_CHANGED) -> Diff:
    """GET /memory/diff: memories this server wrote and ids it deleted in the half-open window [since, now).

    "Wrote" is `changed_at`, not `updated_at`: an import keeps the file's `updated_at`, and a
    syncing client must still receive what it brought in.

    Half-open, so consecutive polls (each passing the previous `now` as `since`) see every change
    exactly once. With more than `limit` changes the window is cut before the first change that
    did not fit (`more` is true), at a timestamp boundary so no memory is split off.
    """
    end = diff_window_end()
    window = memories_of(mind_id).filter(changed_at__gte=since, changed_at__lt=end).order_by("changed_at", "id")
    changed = list(window[: limit + 1])
    more = len(changed) > limit
    if more:
        end = changed[limit].changed_at
        changed = [memory for memory in changed[:limit] if memory.changed_at < end]
        if not changed:
            # More than `limit` memories share one timestamp: they go out together (never split),
            # else the client could never get past them.
            end = end + timedelta(microseconds=1)
            changed = list(window.filter(changed_at__lt=end))
    deleted = list(
        MemoryAudit.objects.filter(
            mind_id=mind_id, action=AuditAction.DELETED, created_at__gte=since, created_at__lt=end
        )
        .order_by("created_at", "id")
        .values_list("memory_id", flat=True)
    )
    return Diff(since=since, now=end, more=more, changed=changed, deleted=deleted)
