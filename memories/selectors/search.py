"""Searching a mind's memories: hybrid (full text + vectors, fused by reciprocal rank) and semantic.

Both candidate queries filter by mind first and use an index each: the GIN index on the stored
`search_vector` for text, the HNSW index on `embedding` (cosine) for vectors. Neither does
work proportional to the size of the mind beyond what the indexes do. docs/search.md explains
the choices and what was measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from pgvector.django import CosineDistance

from memories.embedders import get_embedder
from memories.models import Memory
from memories.selectors.memory import memories_of
from pipelinelog.spans import current_span

# The k of reciprocal rank fusion: a hit at rank r of a list scores 1 / (k + r). 60 is the value
# of the original RRF paper (Cormack et al., 2009); it keeps one list's top hit from drowning
# a document that both lists rank well.
RRF_K = 60
# Candidates each list contributes before fusion (rows), at least; more when `limit` is larger.
SEARCH_MIN_CANDIDATES = 50
# pgvector's HNSW scan returns at most `hnsw.ef_search` rows (default 40) and applies WHERE
# filters (mind, expiry) after the scan, so it is raised per query to cover the candidates.
# 1000 is pgvector's maximum.
HNSW_MIN_EF_SEARCH = 100
HNSW_MAX_EF_SEARCH = 1000
# Configurations the stored `search_vector` holds (memories.models.Memory.search_vector): the
# query is parsed in each and the three are OR-ed, so a word matches as written or as a stem.
TEXT_SEARCH_CONFIGS = ("simple", "english", "german")

# Which list a hit came from (`matched`).
MATCHED_TEXT = "text"
MATCHED_VECTOR = "vector"


@dataclass(frozen=True)
class SearchHit:
    memory: Memory
    score: float  # the RRF score: sum of 1 / (RRF_K + rank) over the lists that found it
    matched: tuple[str, ...]  # ("text",), ("vector",) or ("text", "vector")


@dataclass(frozen=True)
class SemanticHit:
    memory: Memory
    similarity: float  # cosine similarity, 1 - cosine distance


def _live(memories: QuerySet[Memory]) -> QuerySet[Memory]:
    """Expired memories leave search (they stay stored)."""
    return memories.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))


def _text_query(q: str):
    """`websearch_to_tsquery` in every configuration, OR-ed: never a syntax error, whatever `q` holds."""
    queries = [SearchQuery(q, config=config, search_type="websearch") for config in TEXT_SEARCH_CONFIGS]
    combined = queries[0]
    for query in queries[1:]:
        combined = combined | query
    return combined


def _ef_search_for(candidates: int) -> None:
    """Let this transaction's HNSW scans return enough rows for `candidates` after filtering."""
    ef_search = min(max(HNSW_MIN_EF_SEARCH, candidates), HNSW_MAX_EF_SEARCH)
    with connection.cursor() as cursor:
        # SET LOCAL cannot take a bind parameter; the value is an int we computed.
        cursor.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")


def _nearest(memories: QuerySet[Memory], vector, candidates: int) -> list[Memory]:
    """The `candidates` memories nearest to `vector`, nearest first, each with `.distance`.

    Ordered by the distance alone (no tie-breaker column): only then can PostgreSQL walk the
    HNSW index instead of computing every distance.
    """
    return list(
        memories.filter(embedding__isnull=False)
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")[:candidates]
    )


def memories_search(
    *, mind_id: str, q: str, limit: int, tag: str | None = None, category: str | None = None
) -> list[SearchHit]:
    """GET /memory/search: full-text and vector candidates of the mind, fused by reciprocal rank.

    `q` is raw text (websearch syntax: quotes, OR, -word). At most `limit` hits, best first;
    expired memories left out. Three queries whatever the number of hits.
    """
    candidates = max(limit, SEARCH_MIN_CANDIDATES)
    memories = _live(memories_of(mind_id))
    if tag:
        memories = memories.filter(tags__contains=[tag])
    if category:
        memories = memories.filter(category=category)
    text_query = _text_query(q)
    vector = get_embedder().embed([q])[0]
    with transaction.atomic():
        by_text = list(
            memories.filter(search_vector=text_query)
            .annotate(rank=SearchRank(F("search_vector"), text_query, cover_density=True))
            .order_by("-rank", "-updated_at", "id")[:candidates]
        )
        _ef_search_for(candidates)
        by_vector = _nearest(memories, vector, candidates)

    floor = getattr(get_embedder(), "search_min_similarity", 0.0)
    by_vector = [memory for memory in by_vector if 1.0 - memory.distance >= floor]
    hits = _fuse({MATCHED_TEXT: by_text, MATCHED_VECTOR: by_vector})[:limit]
    current_span().db_read(
        {
            "table": "memories_memory",
            "operation": "search",
            "text_candidates": len(by_text),
            "vector_candidates": len(by_vector),
            "results": len(hits),
        }
    )
    return hits


def _fuse(ranked: dict[str, list[Memory]]) -> list[SearchHit]:
    """Reciprocal rank fusion of ranked lists (rank 1 = best) into one list, best first.

    Ties (equal scores) go to the hit with the better single rank, then the more recently updated.
    """
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    matched: dict[str, list[str]] = {}
    memory_of: dict[str, Memory] = {}
    for list_name, memories in ranked.items():
        for rank, memory in enumerate(memories, start=1):
            scores[memory.pk] = scores.get(memory.pk, 0.0) + 1.0 / (RRF_K + rank)
            best_rank[memory.pk] = min(best_rank.get(memory.pk, rank), rank)
            matched.setdefault(memory.pk, []).append(list_name)
            memory_of.setdefault(memory.pk, memory)
    order = sorted(
        scores,
        key=lambda pk: (-scores[pk], best_rank[pk], -memory_of[pk].updated_at.timestamp(), pk),
    )
    return [SearchHit(memory=memory_of[pk], score=scores[pk], matched=tuple(matched[pk])) for pk in order]


def memories_semantic_search(*, mind_id: str, q: str, limit: int, threshold: float) -> list[SemanticHit]:
    """GET /memory/semantic-search: the mind's memories most similar to `q` by vector alone,
    at most `limit`, each with cosine similarity ≥ `threshold`; expired left out."""
    vector = get_embedder().embed([q])[0]
    with transaction.atomic():
        _ef_search_for(limit)
        nearest = _nearest(_live(memories_of(mind_id)), vector, limit)
    hits = [SemanticHit(memory=memory, similarity=1.0 - memory.distance) for memory in nearest]
    hits = [hit for hit in hits if hit.similarity >= threshold]
    current_span().db_read(
        {"table": "memories_memory", "operation": "semantic_search", "candidates": len(nearest), "results": len(hits)}
    )
    return hits
