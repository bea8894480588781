"""Rows of the net made directly (promotion, which makes them in the product, is not under test here)."""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest
from django.utils import timezone

from memories.models import EMBEDDING_DIMENSIONS, Memory
from synapses.models import Knot, KnotPresence
from synapses.net.geometry import damp


def memory_make(mind, *, key: str, content: str | None = None, salience: float = 0.5) -> Memory:
    content = content or f"content of {key}"
    return Memory.objects.create(
        mind=mind,
        category="fact",
        key=key,
        content=content,
        content_hash=hashlib.sha256(content.encode()).hexdigest(),
        source="agent",
        speaker="user",
        confidence=1.0,
        salience=salience,
    )


def knot_make(
    memory: Memory,
    *,
    weight_anchor: float | None = None,
    presence_base: float | None = None,
    reinforced_at: datetime | None = None,
    is_active: bool = True,
) -> Knot:
    anchor = damp(memory.salience) if weight_anchor is None else weight_anchor
    knot = Knot.objects.create(
        mind=memory.mind,
        memory=memory,
        content=memory.content,
        content_hash=memory.content_hash,
        category=memory.category,
        observer=memory.speaker,
        embedding=[1.0] + [0.0] * (EMBEDDING_DIMENSIONS - 1),
        embedding_model="test",
        weight_raw=memory.salience,
        weight_anchor=anchor,
        source_created_at=memory.created_at,
    )
    moment = reinforced_at or timezone.now()
    KnotPresence.objects.create(
        knot=knot,
        mind=memory.mind,
        presence_base=anchor if presence_base is None else presence_base,
        weight_present=anchor if presence_base is None else presence_base,
        reinforced_at=moment,
        decayed_at=moment,
        is_active=is_active,
    )
    return knot


@pytest.fixture
def the_mind(mind):
    return mind.mind
