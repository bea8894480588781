"""Writing memories: store (upsert by category + key), update and verify, with defaults and audit
rows; each write reports its change to memories.lifecycle. A sync, many stores at once, is
memories.services.sync and builds on what is here; deleting, which erases, is
memories.services.erasure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Model, QuerySet
from django.utils import timezone

from memories.embedders import get_embedder
from memories.embedders.installation import mind_embedder_check, mind_embedder_check_loaded
from memories.eventtime import EventTimeError, event_time_parse, period_start
from memories.keys import content_hash_of, key_given_or_derived
from memories.lifecycle import MemoryEvent, memories_changed
from memories.models import UNIQUE_KEY_CONSTRAINT, AuditAction, Memory, MemoryAudit, Priority
from memories.selectors.memory import MEMORY_NOT_FOUND, memories_of
from memories.services.provenance import caller_vouches, confidence_of_source, speaker_of_source, write_source
from memoryproject.core.domain import Conflict, NotFound, PermissionDenied
from minds.access import Caller
from minds.models import Mind
from pipelinelog.spans import current_span

# Salience when the client gives none, by priority: the starting weight the synapse model will give
# the memory's knot (docs/synapse-model.md, "Knots").
SALIENCE_BY_PRIORITY = {Priority.LOW: 0.5, Priority.NORMAL: 0.7, Priority.HIGH: 0.85, Priority.CRITICAL: 1.0}
# What a write locks of the rows it reads: only the memory itself; joining verified_by must not
# lock the verifying user's row too (select_for_update(of=…)).
MEMORY_LOCK_OF = ("self",)

# full_clean() would query the database to confirm these foreign keys exist; the database's
# own constraints already guarantee it, so the store path skips those queries. The embedding
# is ours, not input (and a numpy array, which model validation cannot compare to "empty").
CLEAN_EXCLUDE = ["mind", "verified_by", "embedding"]

# Fields a write copies onto the memory as given (after validation).
PLAIN_FIELDS = (
    "tags",
    "priority",
    "speaker",
    "confidence",
    "salience",
    "expires_at",
    "entities",
    "emotion",
    "attributes",
)


@dataclass(frozen=True)
class StoreResult:
    memory: Memory
    created: bool
    changed_fields: tuple[str, ...]


def _event_time_fields(fields: dict, *, created_at: datetime, current: Memory | None) -> dict:
    """event_time / event_precision as stored, from what the client sent."""
    if "event_time" not in fields and "event_precision" not in fields:
        return {}
    precision = fields.get("event_precision") or None
    if "event_time" in fields:
        text = fields["event_time"]
        if text is None:
            return {"event_time": None, "event_precision": ""}
        try:
            parsed = event_time_parse(text, relative_to=created_at, precision=precision)
        except EventTimeError as error:
            raise ValidationError({"event_time": [str(error)]}) from None
        return {"event_time": parsed.at, "event_precision": parsed.precision}
    # Only the precision changed: re-anchor the existing time at the new precision.
    if current is None or current.event_time is None:
        if precision:
            raise ValidationError({"event_precision": ["Give event_time too; there is no time to be precise about."]})
        return {}
    if precision is None:
        return {"event_time": None, "event_precision": ""}
    return {"event_time": period_start(current.event_time, precision), "event_precision": precision}


def memory_model_check(memory: Memory) -> None:
    """The model's own field checks before a write (Django's ValidationError naming the field),
    without the queries the database's constraints make unnecessary (CLEAN_EXCLUDE, uniqueness)."""
    memory.full_clean(exclude=CLEAN_EXCLUDE, validate_unique=False, validate_constraints=False)


def _is_key_taken(error: IntegrityError) -> bool:
    """Whether `error` is the (mind, category, key) uniqueness of memories, not another constraint."""
    return getattr(getattr(error.__cause__, "diag", None), "constraint_name", None) == UNIQUE_KEY_CONSTRAINT


def memories_insert(memories: Iterable[Memory], *, conflict_message: str) -> None:
    """Insert `memories` in one statement. A concurrent write that took one of their (category,
    key) pairs first is a Conflict saying `conflict_message` (the batch is refused as a whole)."""
    try:
        with transaction.atomic():  # a savepoint: the failed insert leaves the transaction usable
            Memory.objects.bulk_create(memories)
    except IntegrityError as error:
        if not _is_key_taken(error):
            raise
        raise Conflict(conflict_message) from None


def span_write(model: type[Model], operation: str, **details: object) -> None:
    """Record a write of `model`'s table on the current span (the table named by the model)."""
    current_span().db_write({"table": model._meta.db_table, "operation": operation, **details})


def _embed_into(memory: Memory) -> None:
    embed_all([memory])


def embed_all(memories: list[Memory]) -> None:
    """Embed the contents of `memories` in one call (one request for an HTTP embedder)."""
    if not memories:
        return
    embedder = get_embedder()
    vectors = embedder.embed([memory.content for memory in memories])  # a server that is down is told first
    # Never a second vector space in one mind (a 409 that says to run `reembed`); a mind row the
    # request already read is checked as read.
    loaded: dict[str, Mind | None] = {}
    for memory in memories:
        mind = memory.mind if Memory.mind.is_cached(memory) else None
        loaded[memory.mind_id] = loaded.get(memory.mind_id) or mind
    for mind_id, mind in sorted(loaded.items()):
        if mind is None:
            mind_embedder_check(mind_id, embedder.name, claim=True)
        else:
            mind_embedder_check_loaded(mind, embedder.name)
    for memory, vector in zip(memories, vectors, strict=True):
        memory.embedding, memory.embedding_model = vector, embedder.name


def memory_build(
    *, mind: Mind, fields: dict, key: str, source: str, speaker: str | None, turn_id: str, created_at, updated_at
) -> Memory:
    """An unsaved memory from validated `fields`, with the store's defaults for what they leave out.

    Verification and the embedding are the caller's business (a store and an import differ there).
    """
    priority = fields.get("priority") or Priority.NORMAL
    memory = Memory(
        mind=mind,
        category=fields["category"],
        key=key,
        content=fields["content"],
        content_hash=content_hash_of(fields["content"]),
        tags=fields.get("tags", []),
        priority=priority,
        source=source,
        speaker=speaker or speaker_of_source(source),
        confidence=fields.get("confidence", confidence_of_source(source)),
        salience=fields.get("salience", SALIENCE_BY_PRIORITY[priority]),
        salience_given="salience" in fields,
        expires_at=fields.get("expires_at"),
        entities=fields.get("entities", []),
        emotion=fields.get("emotion") or "",
        attributes=fields.get("attributes", {}),
        turn_id=turn_id,
        created_at=created_at,
        updated_at=updated_at,
    )
    for name, value in _event_time_fields(fields, created_at=created_at, current=None).items():
        setattr(memory, name, value)
    # A new memory's content is held by no knot: once inserted, the database makes it pending.
    memory.promotion_pending = True
    return memory


def memory_new(
    *, mind: Mind, fields: dict, key: str, source: str, caller: Caller, turn_id: str, now, embed: bool = True
) -> Memory:
    memory = memory_build(
        mind=mind, fields=fields, key=key, source=source, speaker=fields.get("speaker"), turn_id=turn_id,
        created_at=now, updated_at=now,
    )  # fmt: skip
    if caller_vouches(caller):
        memory.verified, memory.verified_at, memory.verified_by = True, now, caller.user
    if embed:
        _embed_into(memory)
    return memory


def memory_changes_apply(
    memory: Memory,
    *,
    fields: dict,
    source: str,
    caller: Caller,
    turn_id: str,
    now,
    claim_on_any_change: bool,
    embed: bool = True,
) -> list[str]:
    """Copy what differs onto `memory`; return the names of the changed fields.

    Provenance (source, verified) follows the writer. A store re-sends the whole memory, so any
    change makes it the writer's (`claim_on_any_change`); an update of a few fields claims it only
    when it rewrites the content: a human who retags an agent's memory has not confirmed its words.
    """
    wanted = {name: fields[name] for name in PLAIN_FIELDS if name in fields}
    if "emotion" in wanted:
        wanted["emotion"] = wanted["emotion"] or ""
    if "content" in fields:
        wanted["content"] = fields["content"]
    if "category" in fields:
        wanted["category"] = fields["category"]
    if "key" in fields:
        wanted["key"] = fields["key"]
    wanted.update(_event_time_fields(fields, created_at=memory.created_at, current=memory))
    if "salience" not in fields and not memory.salience_given and "priority" in wanted:
        # Nobody chose this salience: it follows the priority it was the default of.
        wanted["salience"] = SALIENCE_BY_PRIORITY[wanted["priority"]]
    changed = [name for name, value in wanted.items() if getattr(memory, name) != value]
    claims = bool(changed) if claim_on_any_change else "content" in changed
    # Without a claim the source changes only when the client asked for it (already checked by write_source).
    new_source = source if claims else (fields.get("source") or memory.source)
    if not changed and new_source == memory.source:
        return []
    for name in changed:
        setattr(memory, name, wanted[name])
    if "salience" in fields:
        memory.salience_given = True
    if "content" in changed:
        memory.content_hash = content_hash_of(memory.content)
        if embed:
            _embed_into(memory)
    if memory.source != new_source:
        memory.source = new_source
        changed.append("source")
    if not caller_vouches(caller) and "content" in changed and memory.verified:
        # An agent rewrote what a human had confirmed: it needs a human's eye again.
        memory.verified, memory.verified_at, memory.verified_by = False, None, None
        changed.append("verified")
    elif caller_vouches(caller) and claims and not memory.verified:
        memory.verified, memory.verified_at, memory.verified_by = True, now, caller.user
        changed.append("verified")
    memory.updated_at = memory.changed_at = now
    memory.turn_id = turn_id or memory.turn_id
    return changed


def audit_row(memory: Memory, *, action: str, caller: Caller, changed: list[str], turn_id: str, now) -> MemoryAudit:
    return MemoryAudit(
        mind_id=memory.mind_id,
        memory_id=memory.pk,
        action=action,
        actor=caller.label,
        changed_fields=changed,
        turn_id=turn_id,
        created_at=now,
    )


def _audit(memory: Memory, *, action: str, caller: Caller, changed: list[str], turn_id: str, now) -> None:
    audit_row(memory, action=action, caller=caller, changed=changed, turn_id=turn_id, now=now).save()
    span_write(MemoryAudit, "insert", memory_id=memory.pk, action=action)


@transaction.atomic
def memory_store(*, mind: Mind, fields: dict, caller: Caller, turn_id: str = "") -> StoreResult:
    """Create the memory, or update the one with the same (category, key) — the upsert of POST /memory.

    `fields` is validated input (memories.services.validation.memory_fields_clean); `category` and
    `content` are required.
    """
    source = write_source(caller, fields.get("source"))
    key = key_given_or_derived(fields)
    lookup = memories_for_write(mind.pk).filter(category=fields["category"], key=key)
    existing = lookup.first()
    # Stamped after the transaction's first statement, so `updated_at` is never older than the
    # transaction's start: GET /memory/diff relies on that (selectors.memory.diff_window_end).
    now = timezone.now()
    if existing is None:
        memory = memory_new(mind=mind, fields=fields, key=key, source=source, caller=caller, turn_id=turn_id, now=now)
        memory_model_check(memory)
        try:
            with transaction.atomic():  # a savepoint: a concurrent insert of the same key loses the race cleanly
                memory.save(force_insert=True)
        except IntegrityError as error:
            if not _is_key_taken(error):
                raise
            existing = lookup.get()
        else:
            span_write(Memory, "insert", id=memory.pk)
            _audit(memory, action=AuditAction.CREATED, caller=caller, changed=[], turn_id=turn_id, now=now)
            memories_changed(event=MemoryEvent.CREATED, mind_id=mind.pk, memory_ids=[memory.pk])
            return StoreResult(memory=memory, created=True, changed_fields=())
    existing.mind = mind  # the row the caller read: a new content's embedder check reads no mind again
    changed = memory_changes_apply(
        existing, fields=fields, source=source, caller=caller, turn_id=turn_id, now=now, claim_on_any_change=True
    )
    if changed:
        memory_model_check(existing)
        existing.save()
        span_write(Memory, "update", id=existing.pk, fields=changed)
        _audit(existing, action=AuditAction.UPDATED, caller=caller, changed=changed, turn_id=turn_id, now=now)
        memories_changed(event=MemoryEvent.UPDATED, mind_id=mind.pk, memory_ids=[existing.pk])
    return StoreResult(memory=existing, created=False, changed_fields=tuple(changed))


def memories_for_write(mind_id: str) -> QuerySet[Memory]:
    """The mind's memories as the write paths lock them: only the memory rows (not the verifying
    user's), without the vector and the tsvector — the widest columns, which no write decision
    reads (a new embedding is assigned, and so saved, when the content changes) — and with the
    verifying user joined, because the answer shows their email."""
    return memories_of(mind_id).select_for_update(of=MEMORY_LOCK_OF)


def memory_locked(memory: Memory) -> Memory:
    """`memory` again, row-locked for the rest of the transaction; 404 when it was deleted meanwhile."""
    locked = memories_for_write(memory.mind_id).filter(pk=memory.pk).first()
    if locked is None:
        raise NotFound(MEMORY_NOT_FOUND)
    return locked


def _key_taken_conflict(category: str, key: str, holder_id: str | None) -> Conflict:
    holder = f" ({holder_id})" if holder_id else ""
    reason = f"Another memory of this mind{holder} already has category {category!r} and key {key!r}."
    return Conflict(
        f"category, key: {reason} Choose another key or category, or update that memory instead.",
        fields={"category": [reason], "key": [reason]},
    )


@dataclass(frozen=True)
class UpdateResult:
    memory: Memory
    changed_fields: tuple[str, ...]


@transaction.atomic
def memory_update(*, memory: Memory, fields: dict, caller: Caller, turn_id: str = "") -> UpdateResult:
    """Change any subset of a memory's writable fields (PUT / PATCH /memory/{id}).

    `fields` is validated partial input (memory_fields_clean(…, partial=True)). Moving the memory
    onto a (category, key) another memory of the mind holds is a 409. Nothing changes, and no
    audit row is written, when every given value equals the stored one.
    """
    source = write_source(caller, fields.get("source"))
    memory = memory_locked(memory)
    now = timezone.now()
    changed = memory_changes_apply(
        memory, fields=fields, source=source, caller=caller, turn_id=turn_id, now=now, claim_on_any_change=False
    )
    if not changed:
        return UpdateResult(memory=memory, changed_fields=())
    if "category" in changed or "key" in changed:
        holder_id = (
            Memory.objects.filter(mind_id=memory.mind_id, category=memory.category, key=memory.key)
            .exclude(pk=memory.pk)
            .values_list("pk", flat=True)
            .first()
        )
        if holder_id is not None:
            raise _key_taken_conflict(memory.category, memory.key, holder_id)
    memory_model_check(memory)
    try:
        with transaction.atomic():  # a savepoint: a concurrent write may take the (category, key) first
            memory.save()
    except IntegrityError as error:
        if not _is_key_taken(error):
            raise
        raise _key_taken_conflict(memory.category, memory.key, None) from None
    span_write(Memory, "update", id=memory.pk, fields=changed)
    _audit(memory, action=AuditAction.UPDATED, caller=caller, changed=changed, turn_id=turn_id, now=now)
    memories_changed(event=MemoryEvent.UPDATED, mind_id=memory.mind_id, memory_ids=[memory.pk])
    return UpdateResult(memory=memory, changed_fields=tuple(changed))


def _verification_set(*, memory: Memory, verified: bool, caller: Caller, turn_id: str) -> Memory:
    if not caller_vouches(caller):
        # The views refuse Mind Keys already; this keeps the rule true for every other caller.
        raise PermissionDenied("Only a human can verify or unverify a memory; a Mind Key cannot.")
    memory = memory_locked(memory)
    if memory.verified == verified:
        return memory  # already so: nothing to record
    now = timezone.now()
    memory.verified = verified
    memory.verified_at, memory.verified_by = (now, caller.user) if verified else (None, None)
    memory.updated_at = memory.changed_at = now
    memory.turn_id = turn_id or memory.turn_id
    memory.save(update_fields=["verified", "verified_at", "verified_by", "updated_at", "changed_at", "turn_id"])
    span_write(Memory, "update", id=memory.pk, fields=["verified"])
    action = AuditAction.VERIFIED if verified else AuditAction.UNVERIFIED
    _audit(memory, action=action, caller=caller, changed=["verified"], turn_id=turn_id, now=now)
    event = MemoryEvent.VERIFIED if verified else MemoryEvent.UNVERIFIED
    memories_changed(event=event, mind_id=memory.mind_id, memory_ids=[memory.pk])
    return memory


@transaction.atomic
def memory_verify(*, memory: Memory, caller: Caller, turn_id: str = "") -> Memory:
    """A human confirms the memory is true: verified, with when and by whom."""
    return _verification_set(memory=memory, verified=True, caller=caller, turn_id=turn_id)


@transaction.atomic
def memory_unverify(*, memory: Memory, caller: Caller, turn_id: str = "") -> Memory:
    """A human withdraws the confirmation: unverified, verified_at and verified_by cleared."""
    return _verification_set(memory=memory, verified=False, caller=caller, turn_id=turn_id)
