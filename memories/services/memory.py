"""Writing memories: store (upsert by category + key), with defaults, audit and promotion."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_q.tasks import async_task

from memories.access import Caller
from memories.embedders import get_embedder
from memories.eventtime import EventTimeError, event_time_parse, period_start
from memories.models import AuditAction, Memory, MemoryAudit, Mind, Priority, Source, Speaker

# Starting raw weight of a memory's knot when the client gives no salience (02 → salience).
SALIENCE_BY_PRIORITY = {Priority.LOW: 0.5, Priority.NORMAL: 0.7, Priority.HIGH: 0.85, Priority.CRITICAL: 1.0}
# Confidence when the client gives none: a human's word is certain, an agent's is inferred.
CONFIDENCE_USER = 1.0
CONFIDENCE_OTHER = 0.7
# Length of the content hash in a derived key: `<category>_<12 hex>`.
DERIVED_KEY_HEX = 12

# full_clean() would query the database to confirm these foreign keys exist; the database's
# own constraints already guarantee it, so the store path skips those queries. The embedding
# is ours, not input (and a numpy array, which model validation cannot compare to "empty").
_CLEAN_EXCLUDE = ["mind", "verified_by", "embedding"]

# Fields a write copies onto the memory as given (after validation).
_PLAIN_FIELDS = (
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


def content_hash_of(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def derived_key(category: str, content: str) -> str:
    """The key of a keyless memory: the same content in the same category is the same memory."""
    return f"{category}_{content_hash_of(content)[:DERIVED_KEY_HEX]}"


@dataclass(frozen=True)
class StoreResult:
    memory: Memory
    created: bool
    changed_fields: tuple[str, ...]


def _source_for(caller: Caller, requested: str | None) -> str:
    if not caller.is_agent:
        if requested not in (None, Source.USER):
            raise ValidationError({"source": ["A human's memories are always source 'user'; leave source out."]})
        return Source.USER
    if requested == Source.USER:
        raise ValidationError(
            {"source": ["A Mind Key cannot store source 'user'. To record the user's own words, send speaker: 'user'."]}
        )
    return requested or Source.AGENT


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


def _embed_into(memory: Memory) -> None:
    embedder = get_embedder()
    memory.embedding = embedder.embed([memory.content])[0]
    memory.embedding_model = embedder.name


def _new_memory(*, mind: Mind, fields: dict, key: str, source: str, caller: Caller, turn_id: str, now) -> Memory:
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
        speaker=fields.get("speaker") or (Speaker.USER if source == Source.USER else Speaker.AGENT),
        confidence=fields.get("confidence", CONFIDENCE_USER if source == Source.USER else CONFIDENCE_OTHER),
        salience=fields.get("salience", SALIENCE_BY_PRIORITY[priority]),
        expires_at=fields.get("expires_at"),
        entities=fields.get("entities", []),
        emotion=fields.get("emotion") or "",
        attributes=fields.get("attributes", {}),
        turn_id=turn_id,
        created_at=now,
        updated_at=now,
    )
    for name, value in _event_time_fields(fields, created_at=now, current=None).items():
        setattr(memory, name, value)
    if not caller.is_agent:
        memory.verified, memory.verified_at, memory.verified_by = True, now, caller.user
    _embed_into(memory)
    return memory


def _apply_changes(memory: Memory, *, fields: dict, source: str, caller: Caller, turn_id: str, now) -> list[str]:
    """Copy what differs onto `memory`; return the names of the changed fields."""
    wanted = {name: fields[name] for name in _PLAIN_FIELDS if name in fields}
    if "emotion" in wanted:
        wanted["emotion"] = wanted["emotion"] or ""
    if "content" in fields:
        wanted["content"] = fields["content"]
    if "category" in fields:
        wanted["category"] = fields["category"]
    if "key" in fields:
        wanted["key"] = fields["key"]
    wanted.update(_event_time_fields(fields, created_at=memory.created_at, current=memory))
    changed = [name for name, value in wanted.items() if getattr(memory, name) != value]
    if not changed:
        return []
    for name in changed:
        setattr(memory, name, wanted[name])
    if "content" in changed:
        memory.content_hash = content_hash_of(memory.content)
        _embed_into(memory)
    if memory.source != source:
        memory.source = source
        changed.append("source")
    if caller.is_agent and "content" in changed and memory.verified:
        # An agent rewrote what a human had confirmed: it needs a human's eye again.
        memory.verified, memory.verified_at, memory.verified_by = False, None, None
        changed.append("verified")
    elif not caller.is_agent and not memory.verified:
        memory.verified, memory.verified_at, memory.verified_by = True, now, caller.user
        changed.append("verified")
    memory.updated_at = now
    memory.turn_id = turn_id or memory.turn_id
    return changed


def _audit(memory: Memory, *, action: str, caller: Caller, changed: list[str], turn_id: str, now) -> None:
    MemoryAudit.objects.create(
        mind_id=memory.mind_id,
        memory_id=memory.pk,
        action=action,
        actor=caller.label,
        changed_fields=changed,
        turn_id=turn_id,
        created_at=now,
    )


def promotion_enqueue(memory_id: str) -> None:
    """Ask the worker to promote this memory once the current transaction has committed."""
    transaction.on_commit(partial(async_task, "synapses.tasks.memory_promote", memory_id))


@transaction.atomic
def memory_store(*, mind: Mind, fields: dict, caller: Caller, turn_id: str = "") -> StoreResult:
    """Create the memory, or update the one with the same (category, key) — the upsert of POST /memory.

    `fields` is validated input (MemoryInputSerializer); `category` and `content` are required.
    """
    now = timezone.now()
    source = _source_for(caller, fields.get("source"))
    key = fields.get("key") or derived_key(fields["category"], fields["content"])
    lookup = Memory.objects.select_for_update().filter(mind=mind, category=fields["category"], key=key)
    existing = lookup.first()
    if existing is None:
        memory = _new_memory(mind=mind, fields=fields, key=key, source=source, caller=caller, turn_id=turn_id, now=now)
        memory.full_clean(exclude=_CLEAN_EXCLUDE, validate_unique=False, validate_constraints=False)
        try:
            with transaction.atomic():  # a savepoint: a concurrent insert of the same key loses the race cleanly
                memory.save(force_insert=True)
        except IntegrityError:
            existing = lookup.get()
        else:
            _audit(memory, action=AuditAction.CREATED, caller=caller, changed=[], turn_id=turn_id, now=now)
            promotion_enqueue(memory.pk)
            return StoreResult(memory=memory, created=True, changed_fields=())
    changed = _apply_changes(existing, fields=fields, source=source, caller=caller, turn_id=turn_id, now=now)
    if changed:
        existing.full_clean(exclude=_CLEAN_EXCLUDE, validate_unique=False, validate_constraints=False)
        existing.save()
        _audit(existing, action=AuditAction.UPDATED, caller=caller, changed=changed, turn_id=turn_id, now=now)
        promotion_enqueue(existing.pk)
    return StoreResult(memory=existing, created=False, changed_fields=tuple(changed))
