"""Knots built directly with the ORM for the edge tests: any anchor, vector, magnet and presence."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from django.utils import timezone

from memories.models import EMBEDDING_DIMENSIONS, Memory
from synapses.models import Knot, KnotPresence


def unit(*components: tuple[int, float]) -> list[float]:
    """A unit vector from (axis, value) components: unit((0, 0.9), (1, math.sqrt(0.19)))."""
    vector = np.zeros(EMBEDDING_DIMENSIONS)
    for axis, value in components:
        vector[axis] = value
    return (vector / np.linalg.norm(vector)).tolist()


def axis(index: int) -> list[float]:
    """A unit vector along one axis: two different axes have cosine 0."""
    return unit((index, 1.0))


def at_cosine(cosine: float, *, base: int = 0, other: int = 1) -> list[float]:
    """A unit vector whose cosine to axis(base) is `cosine`."""
    return unit((base, cosine), (other, math.sqrt(1 - cosine**2)))


def damp_reference(raw: float) -> float:
    """§1's damping, written out here so the tests do not check the code against itself."""
    return 10 * math.sin(min(raw / 10, 1) * math.pi / 2) ** 0.5


_counter = iter(range(10**9))


def knot_build(
    mind,
    *,
    anchor: float,
    embedding: Sequence[float] | None = None,
    entities: Sequence[int] = (),
    themes: Sequence[str] = (),
    event_time: datetime | None = None,
    precision: str = "",
    active: bool = True,
    created_at: datetime | None = None,
    save: bool = True,
) -> tuple[Memory, Knot, KnotPresence]:
    """A memory, its knot and the knot's presence (saved, or unsaved for bulk_create)."""
    number = next(_counter)
    content = f"knot content {number}"
    moment = created_at or timezone.now()
    memory = Memory(
        mind=mind,
        category="fact",
        key=f"k{number}",
        content=content,
        content_hash=hashlib.sha256(content.encode()).hexdigest(),
        source="agent",
        speaker="user",
        confidence=1.0,
        salience=0.5,
        created_at=moment,
    )
    knot = Knot(
        mind=mind,
        memory=memory,
        content=content,
        content_hash=memory.content_hash,
        category="fact",
        observer="user",
        embedding=list(embedding) if embedding is not None else axis(EMBEDDING_DIMENSIONS - 1),
        embedding_model="test",
        entities=list(entities),
        themes=sorted(set(themes)),
        event_time=event_time,
        event_precision=precision,
        weight_raw=0.5,
        weight_anchor=anchor,
        source_created_at=moment,
    )
    presence = KnotPresence(
        knot=knot,
        mind=mind,
        presence_base=anchor,
        weight_present=anchor,
        reinforced_at=moment,
        decayed_at=moment,
        is_active=active,
    )
    if save:
        memory.save()
        knot.save()
        presence.save()
    return memory, knot, presence


def knot_make(mind, **fields) -> Knot:
    return knot_build(mind, **fields)[1]


def knots_bulk(mind, count: int, *, rng: np.random.Generator, **fields) -> list[Knot]:
    """`count` knots with random vectors in three bulk inserts."""
    built = []
    for _ in range(count):
        vector = rng.standard_normal(EMBEDDING_DIMENSIONS)
        built.append(knot_build(mind, embedding=(vector / np.linalg.norm(vector)).tolist(), save=False, **fields))
    return built_save(built)


def built_save(built: list[tuple[Memory, Knot, KnotPresence]]) -> list[Knot]:
    """Save what `knot_build(..., save=False)` returned, in three bulk inserts; the knots, saved."""
    Memory.objects.bulk_create([memory for memory, _, _ in built])
    for memory, knot, _ in built:
        knot.memory = memory
    knots = Knot.objects.bulk_create([knot for _, knot, _ in built])
    for (_, _, presence), knot in zip(built, knots, strict=True):
        presence.knot = knot
    KnotPresence.objects.bulk_create([presence for _, _, presence in built])
    return knots
