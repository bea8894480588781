"""Compaction: many old, unverified agent memories on one theme become one summary memory.

The originals are not deleted: they expire (leave recall and lists, stay stored). Verified
memories and what humans, tools or the system wrote are never compacted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from memories.clustering import clusters_by_tag, summary_content
from memories.lifecycle import MemoryEvent, memories_changed
from memories.limits import MAX_CONTENT_CHARS
from memories.models import (
    COMPACTED_FROM,
    PRIORITY_RANK,
    AuditAction,
    Category,
    Memory,
    MemoryAudit,
    Source,
    current_filter,
)
from memories.services.memory import MEMORY_LOCK_OF, audit_row, memory_store
from memoryproject.core.timeinput import time_before
from minds.access import Caller
from minds.models import Mind
from pipelinelog.spans import current_span

# Most candidates one run looks at (the oldest first); keeps a run bounded on a huge mind.
COMPACT_MAX_CANDIDATES = 5000
# Groups one run writes at most, and the fewest memories a group needs, unless the caller says (groups, memories).
COMPACT_DEFAULT_MAX_CLUSTERS = 10
COMPACT_DEFAULT_MIN_CLUSTER_SIZE = 3
# Most memories folded into one summary; the rest of a big theme waits for the next run.
COMPACT_MAX_CLUSTER_MEMBERS = 100


@dataclass(frozen=True)
class CompactCluster:
    tags: list[str]  # the tags every member carries
    category: str  # of the summary
    member_ids: list[str]  # oldest first
    summary_id: str | None  # None in a dry run

    @property
    def size(self) -> int:
        return len(self.member_ids)


@dataclass(frozen=True)
class CompactResult:
    dry_run: bool
    clusters: list[CompactCluster]

    @property
    def clusters_processed(self) -> int:
        return len(self.clusters)

    @property
    def memories_compacted(self) -> int:
        return sum(cluster.size for cluster in self.clusters)


def _compactable(*, mind: Mind, older_than: timedelta, category: str | None, now: datetime):
    """Old unverified agent memories that are still current and carry tags, oldest first."""
    memories = (
        Memory.objects.filter(
            current_filter(now),
            mind_id=mind.pk,
            verified=False,
            source=Source.AGENT,
            updated_at__lte=time_before(now, older_than),
        )
        .exclude(tags=[])
        .only("id", "mind_id", "category", "content", "tags", "priority", "updated_at")
        .order_by("updated_at", "pk")
    )
    if category:
        memories = memories.filter(category=category)
    return memories


@transaction.atomic
def memories_compact(
    *,
    mind: Mind,
    caller: Caller,
    older_than: timedelta,
    dry_run: bool = False,
    max_clusters: int = COMPACT_DEFAULT_MAX_CLUSTERS,
    min_cluster_size: int = COMPACT_DEFAULT_MIN_CLUSTER_SIZE,
    category: str | None = None,
    turn_id: str = "",
) -> CompactResult:
    """POST /memory/compact. Groups old (last written more than `older_than` ago),
    unverified, agent-written memories by tag overlap; per group writes one summary memory
    (source system, the confidence of any non-human memory, the members' contents as a list, the shared tags, the
    highest member priority, `attributes.compacted_from` = the member ids) and expires the
    members now. All in one transaction; `dry_run` only reports the groups."""
    now = timezone.now()
    candidates = _compactable(mind=mind, older_than=older_than, category=category, now=now)
    if not dry_run:
        # Another compaction or an agent's write must not change a member between choosing and expiring it.
        candidates = candidates.select_for_update(of=MEMORY_LOCK_OF)
    groups = clusters_by_tag(
        list(candidates[:COMPACT_MAX_CANDIDATES]),
        max_clusters=max_clusters,
        min_cluster_size=min_cluster_size,
        max_members=COMPACT_MAX_CLUSTER_MEMBERS,
        max_chars=MAX_CONTENT_CHARS,
    )
    span = current_span()
    clusters: list[CompactCluster] = []
    # The summary is the system's writing on the caller's behalf: source system, never verified,
    # whoever asked (a human's own writes would be source user). The audit names the caller.
    system = Caller(label=caller.label, user=None, is_agent=True)
    for members, shared in groups:
        categories = {member.category for member in members}
        summary_category = categories.pop() if len(categories) == 1 else Category.NOTE
        member_ids = [member.pk for member in members]
        if dry_run:
            clusters.append(CompactCluster(shared, summary_category, member_ids, None))
            continue
        summary = memory_store(
            mind=mind,
            fields={
                "category": summary_category,
                "content": summary_content([member.content for member in members]),
                "tags": shared,
                "priority": min((member.priority for member in members), key=PRIORITY_RANK.__getitem__),
                "source": Source.SYSTEM,
                # No confidence: memory_store gives a system memory the inferred one (CONFIDENCE_OTHER).
                "attributes": {COMPACTED_FROM: member_ids},
            },
            caller=system,
            turn_id=turn_id,
        ).memory
        Memory.objects.filter(mind_id=mind.pk, pk__in=member_ids).update(expires_at=now, updated_at=now, changed_at=now)
        MemoryAudit.objects.bulk_create(
            audit_row(
                member, action=AuditAction.UPDATED, caller=caller, changed=["expires_at"], turn_id=turn_id, now=now
            )
            for member in members
        )
        span.db_write(
            {"table": Memory._meta.db_table, "operation": "compact", "summary_id": summary.pk, "expired": member_ids}
        )
        memories_changed(event=MemoryEvent.EXPIRED, mind_id=mind.pk, memory_ids=member_ids)
        clusters.append(CompactCluster(shared, summary_category, member_ids, summary.pk))
    return CompactResult(dry_run=dry_run, clusters=clusters)
