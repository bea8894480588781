"""A sync: up to a thousand memories stored at once, all or nothing (POST /memory/sync), set-based:
one lock query, one bulk insert, one embedding call and one promotion task for the whole batch."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memories.keys import key_given_or_derived
from memories.lifecycle import MemoryEvent, memories_changed
from memories.models import AuditAction, Memory, MemoryAudit
from memories.services.memory import (
    audit_row,
    embed_all,
    memories_for_write,
    memories_insert,
    memory_changes_apply,
    memory_model_check,
    memory_new,
    span_write,
)
from memories.services.provenance import write_source
from memoryproject.core.domain import ValidationFailed, validation_error_fields
from minds.access import Caller
from minds.models import Mind

# Rows per UPDATE statement of a sync: bulk_update writes one CASE branch per row for every
# field, and PostgreSQL's cost grows with rows × branches, so big batches go out in slices.
SYNC_UPDATE_BATCH = 100
# Written for every memory a sync changes, whatever else changed (see memory_changes_apply).
SYNC_WRITE_STAMPS = ("updated_at", "changed_at", "turn_id")
# Written only for the memories whose content a sync rewrote (the others never load their vector).
SYNC_REWRITE_FIELDS = ["content", "content_hash", "embedding", "embedding_model"]


@dataclass(frozen=True)
class SyncItem:
    index: int
    memory_id: str
    created: bool


@dataclass(frozen=True)
class SyncResult:
    created: int
    updated: int
    items: tuple[SyncItem, ...]


@transaction.atomic
def memories_sync(*, mind: Mind, items: list[dict], caller: Caller, turn_id: str = "") -> SyncResult:
    """Upsert every item like POST /memory does, in order, all or nothing (POST /memory/sync).

    `items` are validated inputs. Rules only the store can check (source for this caller,
    event_time phrases) are collected for every item; if any item fails, nothing is written and
    the errors come back by index (`memories.<index>.<field>`). Two items with the same (category,
    key) are applied in order, so the last one wins.

    Set-based: one query locks the memories the batch names, new ones are inserted in bulk,
    contents are embedded in one call, and one task promotes them all.
    """
    errors: dict[str, dict[str, list[str]]] = {}
    prepared: list[tuple[int, dict, str, str]] = []  # (index, fields, source, key)
    for index, fields in enumerate(items):
        try:
            source = write_source(caller, fields.get("source"))
        except ValidationError as error:
            errors[str(index)] = validation_error_fields(error)
            continue
        prepared.append((index, fields, source, key_given_or_derived(fields)))
    wanted = {(fields["category"], key) for _, fields, _, key in prepared}
    # Ordered by id, so two syncs touching the same memories lock them in the same order.
    lookup = memories_for_write(mind.pk).filter(key__in={key for _, _, _, key in prepared})
    by_pair = {(m.category, m.key): m for m in lookup.order_by("pk") if (m.category, m.key) in wanted}
    now = timezone.now()  # after the lock: never older than this transaction's start (see memory_store)

    created: dict[tuple[str, str], Memory] = {}
    updated: dict[tuple[str, str], Memory] = {}
    to_embed: dict[tuple[str, str], Memory] = {}
    changed_fields: set[str] = set()
    audit_rows: list[MemoryAudit] = []
    results: list[SyncItem] = []
    for index, fields, source, key in prepared:
        pair = (fields["category"], key)
        memory = by_pair.get(pair)
        try:
            if memory is None:
                memory = memory_new(
                    mind=mind, fields=fields, key=key, source=source, caller=caller, turn_id=turn_id, now=now,
                    embed=False,
                )  # fmt: skip
                memory_model_check(memory)
                by_pair[pair] = created[pair] = to_embed[pair] = memory
                audit_rows.append(
                    audit_row(memory, action=AuditAction.CREATED, caller=caller, changed=[], turn_id=turn_id, now=now)
                )
                results.append(SyncItem(index=index, memory_id=memory.pk, created=True))
                continue
            changed = memory_changes_apply(
                memory, fields=fields, source=source, caller=caller, turn_id=turn_id, now=now,
                claim_on_any_change=True, embed=False,
            )  # fmt: skip
            if changed:
                memory_model_check(memory)
                changed_fields.update(changed)
                if pair not in created:
                    updated[pair] = memory
                if "content" in changed:
                    to_embed[pair] = memory
                audit_rows.append(
                    audit_row(
                        memory, action=AuditAction.UPDATED, caller=caller, changed=changed, turn_id=turn_id, now=now
                    )
                )
            results.append(SyncItem(index=index, memory_id=memory.pk, created=False))
        except ValidationError as error:
            errors[str(index)] = validation_error_fields(error)
    if errors:
        # Nothing has been written yet; the transaction ends with the error.
        raise ValidationFailed({"memories": errors})

    embed_all(list(to_embed.values()))
    memories_insert(
        created.values(),
        conflict_message="Another write stored a memory with one of these categories and keys while this sync ran. "
        "Send the sync again: it is an upsert, so repeating it is safe.",
    )
    if updated:
        # Only the fields some item changed: bulk_update builds one CASE branch per row and field
        # in Python, and that, not PostgreSQL, dominates a big sync.
        if "verified" in changed_fields:  # the audit's one name for the three verification columns
            changed_fields |= {"verified_at", "verified_by"}
        if "salience" in changed_fields:
            changed_fields.add("salience_given")
        fields = sorted(changed_fields - set(SYNC_REWRITE_FIELDS)) + list(SYNC_WRITE_STAMPS)
        Memory.objects.bulk_update(updated.values(), fields, batch_size=SYNC_UPDATE_BATCH)
        # Only the rewritten ones carry a new vector (the others never loaded theirs).
        rewritten = [memory for pair, memory in updated.items() if pair in to_embed]
        if rewritten:
            Memory.objects.bulk_update(rewritten, SYNC_REWRITE_FIELDS, batch_size=SYNC_UPDATE_BATCH)
    MemoryAudit.objects.bulk_create(audit_rows)
    span_write(Memory, "sync", inserted=len(created), updated=len(updated))
    memories_changed(
        event=MemoryEvent.SYNCED,
        mind_id=mind.pk,
        memory_ids=[memory.pk for memory in (*created.values(), *updated.values())],
    )
    created_count = sum(1 for item in results if item.created)
    return SyncResult(created=created_count, updated=len(results) - created_count, items=tuple(results))
