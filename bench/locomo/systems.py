"""The retrieval systems a LoCoMo run compares, and the steps that prepare a mind before the questions.

This is the one place to add a system: a function `(mind_id, question, limit) -> items`, where
an item is the tuple of memory ids it stands for (one for a memory; a knot linked to several
memories names them all), registered in SYSTEMS; and, if the system needs the mind made ready
after the turns are stored (promotion into the net), its `prepare` step. A run prepares a mind
with the steps of the systems it asks, so a run without `synapse` promotes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from bench.fulltext import text_ranking
from memories.embedders import get_embedder
from memories.models import CURRENT_SQL, Memory
from memories.selectors.search import memories_search
from minds.models import Mind
from synapses.promotion.service import memories_promote
from synapses.resonance.service import resonance_of

Items = list[tuple[str, ...]]


@dataclass(frozen=True)
class System:
    name: str
    top_k: Callable[[str, str, int], Items]  # (mind_id, question, limit) → items, best first
    description: str
    # The top k of a larger limit starts with the top k of a smaller one, so one call at the
    # largest k scores every k. A system without this property is asked once per k.
    prefix_stable: bool = True
    # Run on every mind after its turns are stored and before any question (None: nothing to do).
    prepare: Callable[[Mind, Sequence[str]], None] | None = None


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
    selector (`bench.fulltext.text_ranking`, hybrid search's text list), so the question goes through
    the product's query processing (plain words OR-ed, stop words dropped, phrases, exclusions),
    ranked by ts_rank_cd."""
    return text_ranking(mind_id=mind_id, q=q, limit=limit)


def hybrid_top_k(*, mind_id: str, q: str, limit: int) -> list[str]:
    """GET /memory/search as it stands: full text and vectors fused by reciprocal rank."""
    return [hit.memory.pk for hit in memories_search(mind_id=mind_id, q=q, limit=limit)]


def promotion_step(mind: Mind, memory_ids: Sequence[str]) -> None:
    """Promote every stored turn into the mind's long-term net, in the conversation's order.

    One call per memory: the service takes a batch longest waiting first (`updated_at`, then
    id), and a sync writes one timestamp for its whole batch, so a batch would be promoted in
    random id order. Turn by turn, each knot meets the net as it stood when the turn was said
    (the edges it gets depend on the knots already there). `now_all` takes memories younger
    than the maturity delay, as `manage.py promote --now` does.
    """
    for memory_id in memory_ids:
        memories_promote(memory_ids=[memory_id], now_all=True)


def synapse_top_k(*, mind_id: str, q: str, limit: int) -> Items:
    """GET /synapses/resonance?q=…&limit=… in the default mode (the `resonance_of` service in
    process): each item is a knot and stands for every memory in its `memory_ids`."""
    mind = Mind.objects.get(pk=mind_id)
    return [tuple(item["memory_ids"]) for item in resonance_of(mind=mind, q=q, limit=limit)["items"]]


def _one_memory_each(top_k: Callable[..., list[str]]) -> Callable[[str, str, int], Items]:
    return lambda mind_id, q, limit: [(pk,) for pk in top_k(mind_id=mind_id, q=q, limit=limit)]


SYSTEMS: dict[str, System] = {
    system.name: system
    for system in (
        System("vector", _one_memory_each(vector_top_k), "exact cosine top-k over the mind's memories (no index)"),
        System("fulltext", _one_memory_each(fulltext_top_k), "the product's full-text selector, ts_rank_cd"),
        System("hybrid", _one_memory_each(hybrid_top_k), "GET /memory/search: full text + vectors, RRF"),
        System(
            "synapse",
            lambda mind_id, q, limit: synapse_top_k(mind_id=mind_id, q=q, limit=limit),
            "GET /synapses/resonance, default mode: anchors, spreading activation over the net's edges",
            # The fill of further anchors depends on the limit, so the top 5 of limit 20 need not be
            # the top 5 of limit 5: asked once per k.
            prefix_stable=False,
            prepare=promotion_step,
        ),
    )
}
