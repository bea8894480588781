"""Rows of memories and of the net made directly with the ORM, for tests whose subject is not the
path that makes them in the product (a store, a promotion, edge formation have their own tests).

Every builder takes keywords only. A memory is inserted as any writer inserts it, so the database's
triggers give it its pending-promotion row; a knot's link (`linked=True`) ends that wait, as a
promotion's link does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from itertools import count as counter

import numpy as np
from django.utils import timezone

from memories.models import EMBEDDING_DIMENSIONS, Memory
from memories.services.memory import embed_all
from minds.models import Mind
from synapses.models import Edge, Knot, KnotPresence, LinkKind, MemoryKnot
from synapses.net.geometry import damp
from tests.vectors import axis

# The model name of the vectors the tests choose (not the configured embedder's: the read path's
# vector search skips such knots unless a test names the configured one).
TEST_EMBEDDING_MODEL = "test"

_numbers = counter()


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def memory_make(
    *,
    mind: Mind,
    key: str | None = None,
    content: str | None = None,
    salience: float = 0.5,
    speaker: str = "user",
    verified: bool = False,
    entities: Sequence[str] = (),
    tags: Sequence[str] = (),
    created_at: datetime | None = None,
    updated_at: datetime | None = None,
    expires_at: datetime | None = None,
    embedded: bool = False,
    save: bool = True,
) -> Memory:
    """A fact of `mind` told by the user, hashed; embedded with the configured embedder when `embedded`.

    Without `key` and `content`, both are numbered ("k7", "knot content 7"); with `key` only, the
    content is "content of <key>"; with `content` only, the key is "k_" and 12 digits of its hash.
    `updated_at` defaults to `created_at`, which defaults to now. Unsaved when not `save`.
    """
    if key is None and content is None:
        number = next(_numbers)
        key, content = f"k{number}", f"knot content {number}"
    elif content is None:
        content = f"content of {key}"
    elif key is None:
        key = "k_" + content_hash(content)[:12]
    moment = created_at or timezone.now()
    memory = Memory(
        mind=mind,
        category="fact",
        key=key,
        content=content,
        content_hash=content_hash(content),
        source="agent",
        speaker=speaker,
        confidence=1.0,
        salience=salience,
        verified=verified,
        expires_at=expires_at,
        entities=list(entities),
        tags=list(tags),
        created_at=moment,
        updated_at=updated_at or moment,
    )
    if embedded:
        embed_all([memory])
    if save:
        memory.save()
    return memory


def knot_make(
    *,
    memory: Memory | None = None,
    mind: Mind | None = None,
    weight_anchor: float | None = None,
    presence: float | None = None,
    is_active: bool = True,
    embedding: Sequence[float] | None = None,
    embedding_model: str = TEST_EMBEDDING_MODEL,
    content: str | None = None,
    emotion: str = "",
    themes: Sequence[str] = (),
    entities: Sequence[int] = (),
    event_time: datetime | None = None,
    event_precision: str = "",
    created_at: datetime | None = None,
    reinforced_at: datetime | None = None,
    linked: bool = False,
    save: bool = True,
) -> Knot:
    """A knot of `memory`, or of a new numbered memory of `mind` (salience 0.5, created at
    `created_at`), with its presence, and with its origin link when `linked`.

    The knot holds the memory's content (or `content`), category and speaker; its raw weight is the
    memory's salience, its anchor `weight_anchor` (default damp(salience)), its presence `presence`
    (default the anchor), reinforced and decayed at `reinforced_at` (default `created_at`, else
    now). Its vector is `embedding` (default axis(0)) under `embedding_model` (default "test").
    Not `save`: nothing is written (a memory made here unsaved too), for knots_save.
    """
    if (memory is None) == (mind is None):
        raise TypeError("knot_make takes a memory or a mind, one of the two")
    if linked and not save:
        raise TypeError("knot_make links saved knots only")
    if memory is None:
        memory = memory_make(mind=mind, created_at=created_at, save=save)
    held, held_hash = (memory.content, memory.content_hash) if content is None else (content, content_hash(content))
    knot = Knot(
        mind=memory.mind,
        memory=memory,
        content=held,
        content_hash=held_hash,
        category=memory.category,
        observer=memory.speaker,
        emotion=emotion,
        embedding=list(embedding) if embedding is not None else axis(0),
        embedding_model=embedding_model,
        entities=list(entities),
        themes=sorted(set(themes)),
        event_time=event_time,
        event_precision=event_precision,
        weight_raw=memory.salience,
        weight_anchor=damp(memory.salience) if weight_anchor is None else weight_anchor,
        source_created_at=memory.created_at,
    )
    moment = reinforced_at or created_at or timezone.now()
    value = knot.weight_anchor if presence is None else presence
    # Assigning the knot caches the presence on it (knot.presence), where knots_save finds it.
    knot_presence = KnotPresence(
        knot=knot,
        mind=memory.mind,
        presence_base=value,
        weight_present=value,
        reinforced_at=moment,
        decayed_at=moment,
        is_active=is_active,
    )
    if save:
        knot.save()
        knot_presence.save()
    if linked:
        MemoryKnot.objects.create(
            mind=memory.mind, memory=memory, content_hash=knot.content_hash, knot=knot, kind=LinkKind.ORIGIN
        )
    return knot


def knots_save(knots: list[Knot]) -> list[Knot]:
    """Save knots made with `save=False`: their new memories, the knots and their presences, in
    three bulk inserts; the knots, saved."""
    Memory.objects.bulk_create([knot.memory for knot in knots if knot.memory._state.adding])
    for knot in knots:
        knot.memory = knot.memory  # the memory's id, which it has only now
    presences = [knot.presence for knot in knots]
    saved = Knot.objects.bulk_create(knots)
    for presence, knot in zip(presences, saved, strict=True):
        presence.knot = knot
    KnotPresence.objects.bulk_create(presences)
    return saved


def knots_bulk(*, mind: Mind, count: int, rng: np.random.Generator, **fields) -> list[Knot]:
    """`count` knots of new memories of `mind`, with random unit vectors, in three bulk inserts."""
    knots = []
    for _ in range(count):
        vector = rng.standard_normal(EMBEDDING_DIMENSIONS)
        knots.append(knot_make(mind=mind, embedding=(vector / np.linalg.norm(vector)).tolist(), save=False, **fields))
    return knots_save(knots)


def edge_make(
    *,
    source: Knot,
    target: Knot,
    weight_anchor: float,
    layers: Sequence[str] = ("embedding",),
    entities: Sequence[int] = (),
    themes: Sequence[str] = (),
) -> Edge:
    """An edge from `source` to `target` with raw weight and anchor `weight_anchor`, on `layers`."""
    return Edge.objects.create(
        mind=source.mind,
        source=source,
        target=target,
        weight_raw=weight_anchor,
        weight_anchor=weight_anchor,
        layers=list(layers),
        shared_entities=list(entities),
        shared_themes=list(themes),
        layer_count=len(layers),
    )
