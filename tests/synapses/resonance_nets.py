"""Small nets written by hand for the read path's tests: knots with chosen vectors, presences,
emotions and links, and edges with chosen weights (promotion and edge formation, which make
them in the product, are not under test here)."""

from __future__ import annotations

import hashlib

import numpy as np

from memories.embedders import get_embedder
from memories.models import EMBEDDING_DIMENSIONS, Memory
from synapses.models import Edge, Knot, KnotPresence, LinkKind, MemoryKnot
from synapses.net.geometry import damp


def query_vector(q: str) -> np.ndarray:
    return np.asarray(get_embedder().embed([q])[0], dtype=np.float64)


def vector_at_cosine(q: str, cosine: float, *, axis: int) -> list[float]:
    """A unit vector whose cosine to the embedding of `q` is exactly `cosine`: `cosine·q + √(1−cosine²)·u`
    with u the unit part of basis vector `axis` orthogonal to q."""
    qv = query_vector(q)
    basis = np.zeros(EMBEDDING_DIMENSIONS)
    basis[axis] = 1.0
    u = basis - (basis @ qv) * qv
    u /= np.linalg.norm(u)
    return list(cosine * qv + np.sqrt(1.0 - cosine**2) * u)


def memory_of(mind, content: str, *, key: str | None = None, speaker: str = "user") -> Memory:
    return Memory.objects.create(
        mind=mind,
        category="fact",
        key=key or "k_" + hashlib.sha256(content.encode()).hexdigest()[:12],
        content=content,
        content_hash=hashlib.sha256(content.encode()).hexdigest(),
        source="agent",
        speaker=speaker,
        confidence=1.0,
        salience=0.7,
    )


def knot_of(
    memory: Memory,
    *,
    embedding: list[float],
    present: float,
    emotion: str = "",
    active: bool = True,
    themes: list[str] | None = None,
    entities: list[int] | None = None,
    content: str | None = None,
) -> Knot:
    """A knot of `memory` (holding its content unless `content` is given) with its presence and origin link."""
    content = memory.content if content is None else content
    content_hash = hashlib.sha256(content.encode()).hexdigest()
    knot = Knot.objects.create(
        mind=memory.mind,
        memory=memory,
        content=content,
        content_hash=content_hash,
        category=memory.category,
        observer=memory.speaker,
        emotion=emotion,
        embedding=embedding,
        embedding_model=get_embedder().name,
        themes=themes or [],
        entities=entities or [],
        weight_raw=memory.salience,
        weight_anchor=damp(memory.salience),
        source_created_at=memory.created_at,
    )
    KnotPresence.objects.create(
        knot=knot,
        mind=memory.mind,
        presence_base=present,
        weight_present=present,
        reinforced_at=knot.created_at,
        decayed_at=knot.created_at,
        is_active=active,
    )
    MemoryKnot.objects.create(
        mind=memory.mind, memory=memory, content_hash=content_hash, knot=knot, kind=LinkKind.ORIGIN
    )
    return knot


def edge(source: Knot, target: Knot, weight_anchor: float, *, layers=("embedding",), entities=(), themes=()) -> Edge:
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
