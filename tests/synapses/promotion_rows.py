"""Memories and knots for the promotion tests, made with the ORM (the API path has its own tests)."""

from __future__ import annotations

import hashlib
from datetime import datetime

from django.utils import timezone

from memories.models import Memory
from memories.services.memory import embed_all
from synapses.models import Knot, KnotPresence


def memory_stored(
    mind,
    *,
    key: str,
    content: str,
    salience: float = 0.9,
    verified: bool = False,
    updated_at: datetime | None = None,
    expires_at: datetime | None = None,
    entities: list[str] | None = None,
    tags: list[str] | None = None,
    embedded: bool = True,
) -> Memory:
    """A memory as a write leaves it: hashed, embedded with the configured embedder."""
    moment = updated_at or timezone.now()
    memory = Memory(
        mind=mind,
        category="fact",
        key=key,
        content=content,
        content_hash=hashlib.sha256(content.encode()).hexdigest(),
        source="agent",
        speaker="user",
        confidence=1.0,
        salience=salience,
        verified=verified,
        expires_at=expires_at,
        entities=entities or [],
        tags=tags or [],
        created_at=moment,
        updated_at=moment,
    )
    if embedded:
        embed_all([memory])
    memory.save()
    return memory


def knot_of(memory: Memory, *, weight_anchor: float, is_active: bool = True, presence: float | None = None) -> Knot:
    """A knot holding `memory`'s content and vector with the given anchor (promotion would start at damp(salience))."""
    now = timezone.now()
    knot = Knot.objects.create(
        mind=memory.mind,
        memory=memory,
        content=memory.content,
        content_hash=memory.content_hash,
        category=memory.category,
        observer=memory.speaker,
        embedding=memory.embedding,
        embedding_model=memory.embedding_model,
        weight_raw=memory.salience,
        weight_anchor=weight_anchor,
        source_created_at=memory.created_at,
    )
    value = weight_anchor if presence is None else presence
    KnotPresence.objects.create(
        knot=knot,
        mind=memory.mind,
        presence_base=value,
        weight_present=value,
        reinforced_at=now,
        decayed_at=now,
        is_active=is_active,
    )
    return knot
