"""Searching a mind's memories: hybrid (full text + vectors, fused by reciprocal rank) and semantic.

Both candidate queries filter by mind first and use an index each: the GIN index on the stored
`search_vector` for text, the HNSW index on `embedding` (cosine) for vectors. Neither does
work proportional to the size of the mind beyond what the indexes do. docs/search.md explains
the choices and what was measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection, transaction
from django.db.models import CharField, F, Q, QuerySet, Value
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
# pgvector's HNSW scan returns at most `hnsw.ef_search` rows and applies WHERE filters (mind,
# expiry) after the scan, so each query raises it to settings.SYNAPSE_HNSW_EF_SEARCH, and to
# the candidate count when that is larger, up to pgvector's maximum (rows).
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


def live(memories: QuerySet[Memory]) -> QuerySet[Memory]:
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
    ef_search = min(max(settings.SYNAPSE_HNSW_EF_SEARCH, candidates), HNSW_MAX_EF_SEARCH)
    with connection.cursor() as cursor:
        # SET LOCAL cannot take a bind parameter; the value is an int we computed.
        cursor.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")


def nearest_queryset(memories: QuerySet[Memory], vector, candidates: int) -> QuerySet[Memory]:
    """The `candidates` memories nearest to `vector`, nearest first, each with `.distance`.

    Ordered by the distance alone (no tie-breaker column): only then can PostgreSQL walk the
    HNSW index instead of computing every distance.
    """
    return (
        memories.filter(embedding__isnull=False)
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")[:candidates]
    )


def memories_search(
    *, mind_id: str, q: str, limit: int, tag: str | None = None, category: str | None = None
) -> list[SearchHit]:
    """GET /memory/search: full-text and vector candidates of the mind, fused by reciprocal rank.

    `q` is raw text (websearch syntax: quotes, OR, -word). At most `limit` hits, best first;
    expired memories left out. The same three statements whatever the number of hits: the
    ef_search setting, both candidate lists in one UNION ALL (ids only), the hits' rows.
    """
    candidates = max(limit, SEARCH_MIN_CANDIDATES)
    memories = live(memories_of(mind_id))
    if tag:
        memories = memories.filter(tags__contains=[tag])
    if category:
        memories = memories.filter(category=category)
    text_query = _text_query(q)
    embedder = get_embedder()
    vector = embedder.embed([q])[0]
    columns = ("pk", "updated_at", "found_by", "score")
    by_text = (
        memories.filter(search_vector=text_query)
        .annotate(
            found_by=Value(MATCHED_TEXT, output_field=CharField()),
            score=SearchRank(F("search_vector"), text_query, cover_density=True),
        )
        .order_by("-score", "-updated_at", "id")
        .values_list(*columns)[:candidates]
    )
    by_vector = (
        memories.filter(embedding__isnull=False)
        .annotate(
            found_by=Value(MATCHED_VECTOR, output_field=CharField()),
            score=CosineDistance("embedding", vector),
        )
        .order_by("score")  # the distance alone: the HNSW index delivers rows in this order
        .values_list(*columns)[:candidates]
    )
    with transaction.atomic():
        _ef_search_for(candidates)
        rows = list(by_text.union(by_vector, all=True))
        fused = _fuse(_ranked_lists(rows, floor=getattr(embedder, "search_min_similarity", 0.0)))[:limit]
        memory_of = memories_of(mind_id).in_bulk([pk for pk, _, _ in fused])
    hits = [
        SearchHit(memory=memory_of[pk], score=score, matched=matched) for pk, score, matched in fused if pk in memory_of
    ]
    current_span().db_read(
        {
            "table": "memories_memory",
            "operation": "search",
            "candidates": len(rows),
            "results": len(hits),
        }
    )
    return hits


@dataclass(frozen=True)
class Candidate:
    pk: str
    updated_at: datetime


def _ranked_lists(rows: list[tuple], *, floor: float) -> dict[str, list[Candidate]]:
    """Split the UNION ALL rows (pk, updated_at, found_by, score) into the two ranked lists.

    Re-sorted here in each branch's own order, because SQL does not promise that UNION ALL keeps
    it. Vector rows below the embedder's `floor` similarity are dropped: for that embedder they
    are unrelated texts, and fusion would otherwise return them for any query.
    """
    text = sorted(
        (row for row in rows if row[2] == MATCHED_TEXT), key=lambda row: (-row[3], -row[1].timestamp(), row[0])
    )
    vector = sorted(
        (row for row in rows if row[2] == MATCHED_VECTOR and 1.0 - row[3] >= floor), key=lambda row: (row[3], row[0])
    )
    return {
        MATCHED_TEXT: [Candidate(pk=row[0], updated_at=row[1]) for row in text],
        MATCHED_VECTOR: [Candidate(pk=row[0], updated_at=row[1]) for row in vector],
    }


def _fuse(ranked: dict[str, list[Candidate]]) -> list[tuple[str, float, tuple[str, ...]]]:
    """Reciprocal rank fusion of ranked lists (rank 1 = best) into (pk, score, matched), best first.

    Ties (equal scores) go to the candidate with the better single rank, then the more recently updated.
    """
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    matched: dict[str, list[str]] = {}
    updated_at: dict[str, datetime] = {}
    for list_name, candidates in ranked.items():
        for rank, candidate in enumerate(candidates, start=1):
            scores[candidate.pk] = scores.get(candidate.pk, 0.0) + 1.0 / (RRF_K + rank)
            best_rank[candidate.pk] = min(best_rank.get(candidate.pk, rank), rank)
            matched.setdefault(candidate.pk, []).append(list_name)
            updated_at.setdefault(candidate.pk, candidate.updated_at)
    order = sorted(scores, key=lambda pk: (-scores[pk], best_rank[pk], -updated_at[pk].timestamp(), pk))
    return [(pk, scores[pk], tuple(matched[pk])) for pk in order]


def memories_semantic_search(*, mind_id: str, q: str, limit: int, threshold: float) -> list[SemanticHit]:
    """GET /memory/semantic-search: the mind's memories most similar to `q` by vector alone,
    at most `limit`, each with cosine similarity ≥ `threshold`; expired left out."""
    vector = get_embedder().embed([q])[0]
    with transaction.atomic():
        _ef_search_for(limit)
        nearest = list(nearest_queryset(live(memories_of(mind_id)), vector, limit))
    hits = [SemanticHit(memory=memory, similarity=1.0 - memory.distance) for memory in nearest]
    hits = [hit for hit in hits if hit.similarity >= threshold]
    current_span().db_read(
        {"table": "memories_memory", "operation": "semantic_search", "candidates": len(nearest), "results": len(hits)}
    )
    return hits
