"""Deleting is erasing (docs/api-memory.md, "Deleting is erasing"): a deleted memory — or a
memory's earlier versions, purged after a PATCH removed something pasted by mistake — leaves no
copy of its content behind.

In the deleting transaction, where it is cheap: the net's knots of it (their presence, edges,
links) and the entities found only in them (through `memoryproject.core.contributions`), the
compaction summaries that quoted it (rewritten from their other members; their superseded knots
go), the idempotency records that replayed it (the response keeps only the id). The log and the
worker's task rows are searched by a task after the commit (`pipelinelog.erasure`), never by the
request. What stays is that it happened: the audit row (no content), the request's own log rows
and the log's erasure record.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from memories.clustering import summary_content
from memories.keys import content_hash_of
from memories.lifecycle import MemoryEvent, memories_changed
from memories.models import COMPACTED_FROM, AuditAction, IdempotencyRecord, Memory, MemoryAudit
from memories.services.memory import audit_row, embed_all, memory_locked, span_write
from memoryproject.core.contributions import contributed_memory_erase
from minds.access import Caller
from pipelinelog.erasure import erasure_request
from pipelinelog.models import ErasureReason


@dataclass(frozen=True)
class PurgeResult:
    memory: Memory
    versions_purged: int  # knots of earlier versions erased


def _first_seen(mind_id: str, memory_id: str) -> datetime | None:
    """When this server first wrote the memory (its oldest audit row): no log row before it can
    quote it. An imported memory's created_at may be years older; the audit row is not."""
    return (
        MemoryAudit.objects.filter(mind_id=mind_id, memory_id=memory_id)
        .order_by("created_at")
        .values_list("created_at", flat=True)
        .first()
    )


def _summaries_rewrite(memory: Memory, *, gone: bool, caller: Caller, turn_id: str, now: datetime) -> list[str]:
    """The compaction summaries that list `memory` among their members, rewritten from their
    members as they are now (without it when it `gone`s); a summary left with no member is deleted.
    Returns the summaries' former contents (they quoted it) and their erased knots' contents."""
    summaries = list(
        Memory.objects.select_for_update(of=("self",))
        .filter(mind_id=memory.mind_id, attributes__has_key=COMPACTED_FROM)  # memory_summary_idx
        .filter(attributes__contains={COMPACTED_FROM: [memory.pk]})
        .exclude(pk=memory.pk)
    )
    texts: list[str] = []
    for summary in summaries:
        texts.append(summary.content)
        member_ids = [pk for pk in summary.attributes.get(COMPACTED_FROM, []) if not (gone and pk == memory.pk)]
        contents = dict(Memory.objects.filter(mind_id=memory.mind_id, pk__in=member_ids).values_list("pk", "content"))
        kept = [pk for pk in member_ids if pk in contents]
        if not kept:
            texts += contributed_memory_erase(summary.mind_id, summary.pk, None)
            Memory.objects.filter(pk=summary.pk).delete()
            span_write(Memory, "delete", id=summary.pk, reason="erasure")
            audit_row(summary, action=AuditAction.DELETED, caller=caller, changed=[], turn_id=turn_id, now=now).save()
            memories_changed(event=MemoryEvent.DELETED, mind_id=summary.mind_id, memory_ids=[summary.pk])
            continue
        summary.content = summary_content([contents[pk] for pk in kept])
        summary.content_hash = content_hash_of(summary.content)
        summary.attributes = {**summary.attributes, COMPACTED_FROM: kept}
        summary.updated_at = summary.changed_at = now
        embed_all([summary])
        summary.save(update_fields=["content", "content_hash", "attributes", "embedding", "embedding_model",
                                    "updated_at", "changed_at"])  # fmt: skip
        # The summary's knots of what it said before quote the erased content too.
        texts += contributed_memory_erase(summary.mind_id, summary.pk, summary.content_hash)
        span_write(Memory, "update", id=summary.pk, fields=["content", "attributes"], reason="erasure")
        changed = ["content", "attributes"]
        audit_row(summary, action=AuditAction.UPDATED, caller=caller, changed=changed, turn_id=turn_id, now=now).save()
        memories_changed(event=MemoryEvent.UPDATED, mind_id=summary.mind_id, memory_ids=[summary.pk])
    return texts


def _idempotency_records_erase(memory: Memory) -> int:
    """The mind's recorded responses that carry the memory keep only its id: a replay must not
    bring the content back."""
    return IdempotencyRecord.objects.filter(mind_id=memory.mind_id, response_body__id=memory.pk).update(
        response_body={"id": memory.pk}
    )


@transaction.atomic
def memory_delete(*, memory: Memory, caller: Caller, turn_id: str = "") -> str:
    """Delete the memory for good, erasing its copies (DELETE /memory/{id}); return its id.

    Only an audit row without content, the request's log rows and the log's erasure record
    remember that it existed (GET /memory/diff reports it).
    """
    memory = memory_locked(memory)
    now = timezone.now()
    memory_id = memory.pk
    since = _first_seen(memory.mind_id, memory_id)
    texts = [memory.content, *contributed_memory_erase(memory.mind_id, memory_id, None)]
    texts += _summaries_rewrite(memory, gone=True, caller=caller, turn_id=turn_id, now=now)
    _idempotency_records_erase(memory)
    Memory.objects.filter(mind_id=memory.mind_id, pk=memory_id).delete()
    span_write(Memory, "delete", id=memory_id)
    audit_row(memory, action=AuditAction.DELETED, caller=caller, changed=[], turn_id=turn_id, now=now).save()
    memories_changed(event=MemoryEvent.DELETED, mind_id=memory.mind_id, memory_ids=[memory_id])
    erasure_request(
        mind_id=memory.mind_id, memory_id=memory_id, reason=ErasureReason.MEMORY_DELETED, texts=texts, since=since
    )
    return memory_id


@transaction.atomic
def memory_versions_purge(*, memory: Memory, caller: Caller, turn_id: str = "") -> PurgeResult:
    """Erase every earlier version of the memory, keeping the current one (DELETE
    /memory/{id}/versions): after a PATCH removed a secret someone pasted, nothing of the old text
    stays — not its knots, not the summaries that quoted it, not the log's request bodies."""
    memory = memory_locked(memory)
    now = timezone.now()
    earlier = contributed_memory_erase(memory.mind_id, memory.pk, memory.content_hash)
    texts = earlier + _summaries_rewrite(memory, gone=False, caller=caller, turn_id=turn_id, now=now)
    _idempotency_records_erase(memory)
    span_write(Memory, "purge", id=memory.pk, versions=len(earlier))
    audit_row(memory, action=AuditAction.PURGED, caller=caller, changed=[], turn_id=turn_id, now=now).save()
    erasure_request(
        mind_id=memory.mind_id, memory_id=memory.pk, reason=ErasureReason.VERSIONS_PURGED, texts=texts,
        since=_first_seen(memory.mind_id, memory.pk),
    )  # fmt: skip
    return PurgeResult(memory=memory, versions_purged=len(earlier))
