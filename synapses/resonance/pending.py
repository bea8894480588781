"""The short-term layer in a resonance: memories stored and not yet promoted (docs/synapse-model.md
§5, "Pending memories").

A memory waits for promotion until it is mature (§4: verified, salient, or PROMOTION_AGE without
a write); a resonance that read only the net would be blind to everything an agent stored in
that time. The anchors' message brings the same two lists (full text, vector) of the mind's
pending memories (synapses.resonance.sql, the second result of ANCHORS_SQL), and they are fused
with the knots' lists, so a pending memory ranks where the query puts it among the knots.

Such a memory has no knot, edges or presence yet. In the ranking it stands under a negative id
(no knot has one; `stand_in_id`), spreads nowhere, and is weighed with the presence promotion
would give its knot, damp(salience). In the answer it has `knot_id: null` and `in_net: false`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from synapses.net.geometry import damp

# Key prefix of a pending memory in the fused lists (a knot's key is its id).
PENDING_KEY = "memory:"


class PendingRow(NamedTuple):
    """One row of the pending memories' lists (the anchors message's second result)."""

    memory_id: str
    found_by: str  # "text" | "vector"
    score: float  # ts_rank_cd (text) or cosine distance (vector)
    cosine: float | None  # None: the memory has no vector
    salience: float
    emotion: str
    created_at: float  # seconds since the epoch, as the knots' rows
    content: str
    tags: list[str]
    entities: list[str]
    speaker: str
    created: datetime


@dataclass(frozen=True)
class PendingMemory:
    """What a resonance item shows of a pending memory."""

    memory_id: str
    content: str
    themes: list[str]
    entities: list[str]
    emotion: str
    observer: str
    created_at: datetime
    weight_present: float  # damp(salience): the presence its knot will start with


def pending_memory(row: PendingRow) -> PendingMemory:
    return PendingMemory(
        memory_id=row.memory_id,
        content=row.content,
        # A knot's themes are its memory's tags, sorted and de-duplicated (promotion's rule).
        themes=sorted({tag for tag in row.tags if tag}),
        entities=list(row.entities),
        emotion=row.emotion,
        observer=row.speaker,
        created_at=row.created,
        weight_present=damp(row.salience),
    )


# Below every stand-in id: more than the candidates a resonance weighs (2 × RESONANCE_MAX_LIMIT lists).
_STAND_IN_OFFSET = 1_000_000


def stand_in_id(position: int) -> int:
    """The id a pending memory stands under in the ranking, by its place among the fused
    candidates: negative (knot ids are positive) and rising with the place, so the rankings'
    tie-break by smaller id keeps the query's order among equal weights."""
    return position - _STAND_IN_OFFSET


def pending_item(rank: int, rank_weight: float, memory: PendingMemory) -> dict[str, Any]:
    """A resonance item of a pending memory: the knot's fields it has, `knot_id` null, no path."""
    return {
        "rank": rank,
        "knot_id": None,
        "in_net": False,
        "memory_id": memory.memory_id,
        "memory_ids": [memory.memory_id],
        "content": memory.content,
        "themes": list(memory.themes),
        "entities": list(memory.entities),
        "emotion": memory.emotion,
        "observer": memory.observer,
        "created_at": memory.created_at,
        "weight_present": memory.weight_present,
        "shell": 0,
        "rank_weight": rank_weight,
        "superseded": False,
        "path": [],
    }
