"""The retrieval systems a LoCoMo run compares, and the steps that prepare a mind before the questions.

This is the one place to add a system: a function `(mind_id, question, limit) -> items`, where
an item is the tuple of memory ids it stands for (one for a memory; a knot linked to several
memories names them all), registered in SYSTEMS; and, if the system needs the mind made ready
after the turns are stored (promotion into the net), a step in PREPARE_STEPS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from memories.embedders import get_embedder
from memories.models import CURRENT_SQL, Memory
from memories.selectors.search import memories_search, memories_text_search
from minds.models import Mind

Items = list[tuple[str, ...]]


@dataclass(frozen=True)
class System:
    name: str
    top_k: Callable[[str, str, int], Items]  # (mind_id, question, limit) → items, best first
    description: str
    # The top k of a larger limit starts with the top k of a smaller one, so one call at the
    # largest k scores every k. A system without this property is asked once per k.
    prefix_stable: bool = True


def _vector_literal(vector) -> str:
    """`[0.1,-0.2,…]`, pgvector's text form."""
    return "[" + ",".join(map(str, vector.tolist())) + "]"


# The mind first, then expiry (the product's own clause, memories.models.CURRENT_SQL), as every read.
_MIND_WHERE = f"mind_id = %(mind_id)s AND {CURRENT_SQL}"

# Exact cosine top-k: `+ 0` turns the ORDER BY into an expression the HNSW index cannot serve,
# so PostgreSQL computes every distance of the mind — the ceiling plain vector search can reach.
_VECTOR_SQL = f"""
SELECT id FROM {Memory._meta.db_table}
 WHERE {_MIND_WHERE} AND embedding IS NOT NULL
 ORDER BY (embedding <=> %(vector)s::vector) + 0, id
 LIMIT %(limit)s
"""  # noqa: S608 — the table name and the clause are ours, values are parameters


def vector_top_k(*, mind_id: str, q: str, limit: int) -> list[str]:
    """The `limit` memories of the mind nearest to `q` by cosine, by exact scan (no index)."""
    vector = _vector_literal(get_embedder().embed([q])[0])
    with connection.cursor() as cursor:
        cursor.execute(_VECTOR_SQL, {"mind_id": mind_id, "now": timezone.now(), "vector": vector, "limit": limit})
        return [row[0] for row in cursor.fetchall()]


def fulltext_top_k(*, mind_id: str, q: str, limit: int) -> list[str]:
    """The `limit` best full-text matches of `q` in the mind: the product's own full-text
    selector (`memories_text_search`, hybrid search's text list), so the question goes through
    the product's query processing (plain words OR-ed, stop words dropped, phrases, exclusions),
    ranked by ts_rank_cd."""
    return memories_text_search(mind_id=mind_id, q=q, limit=limit)


def hybrid_top_k(*, mind_id: str, q: str, limit: int) -> list[str]:
    """GET /memory/search as it stands: full text and vectors fused by reciprocal rank."""
    return [hit.memory.pk for hit in memories_search(mind_id=mind_id, q=q, limit=limit)]


def _one_memory_each(top_k: Callable[..., list[str]]) -> Callable[[str, str, int], Items]:
    return lambda mind_id, q, limit: [(pk,) for pk in top_k(mind_id=mind_id, q=q, limit=limit)]


SYSTEMS: dict[str, System] = {
    system.name: system
    for system in (
        System("vector", _one_memory_each(vector_top_k), "exact cosine top-k over the mind's memories (no index)"),
        System("fulltext", _one_memory_each(fulltext_top_k), "the product's full-text selector, ts_rank_cd"),
        System("hybrid", _one_memory_each(hybrid_top_k), "GET /memory/search: full text + vectors, RRF"),
    )
}


def promotion_step(mind: Mind) -> None:
    """Promote every stored turn into the long-term net before the questions are asked.

    A no-op today: the net and its write path do not exist yet. With them this becomes
    `manage.py promote --now --mind <id>` (every non-expired memory, regardless of age).
    """


# Run in order on every mind after its turns are stored and before any question.
PREPARE_STEPS: tuple[Callable[[Mind], None], ...] = (promotion_step,)
