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
from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone
from pgvector.django import CosineDistance

from memories.embedders import get_embedder
from memories.models import Memory, current_filter
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


def _vector_literal(vector) -> str:
    """`[0.1,-0.2,…]`, pgvector's text form (tolist first: formatting numpy scalars one by one is slow)."""
    return "[" + ",".join(map(str, vector.tolist())) + "]"


# Both candidate lists in one statement. Only constants are formatted into it (table, the
# configurations, optional filter clauses); every value is a bound parameter. Hand-written
# because building and compiling the equivalent ORM union took longer than running it.
_TSQUERY_SQL = " || ".join(f"websearch_to_tsquery('{config}'::regconfig, %(q)s)" for config in TEXT_SEARCH_CONFIGS)
_CANDIDATES_SQL = """
(SELECT id, updated_at, 'text' AS found_by, ts_rank_cd(search_vector, ({tsquery}))::float8 AS score
   FROM {table}
  WHERE {where} AND search_vector @@ ({tsquery})
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, embedding <=> %(vector)s::vector AS score
   FROM {table}
  WHERE {where} AND embedding IS NOT NULL
  ORDER BY embedding <=> %(vector)s::vector
  LIMIT %(candidates)s)
"""
# The mind first, then expiry (as `memories.models.current_filter`), then the optional filters.
_WHERE_SQL = "mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s)"
_TAG_SQL = " AND tags @> ARRAY[%(tag)s]::varchar(64)[]"
_CATEGORY_SQL = " AND category = %(category)s"


def memories_search(
    *, mind_id: str, q: str, limit: int, tag: str | None = None, category: str | None = None
) -> list[SearchHit]:
    """GET /memory/search: full-text and vector candidates of the mind, fused by reciprocal rank.

    `q` is raw text (websearch syntax: quotes, OR, -word). At most `limit` hits, best first;
    expired memories left out. The same three statements whatever the number of hits: the
    ef_search setting, both candidate lists (ids only), the hits' rows.
    """
    candidates = max(limit, SEARCH_MIN_CANDIDATES)
    embedder = get_embedder()
    params = {
        "mind_id": mind_id,
        "now": timezone.now(),
        "q": q,
        "vector": _vector_literal(embedder.embed([q])[0]),
        "candidates": candidates,
        "tag": tag,
        "category": category,
    }
    where = _WHERE_SQL + (_TAG_SQL if tag else "") + (_CATEGORY_SQL if category else "")
    sql = _CANDIDATES_SQL.format(tsquery=_TSQUERY_SQL, table=Memory._meta.db_table, where=where)
    with transaction.atomic():
        _ef_search_for(candidates)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        fused = _fuse(_ranked_lists(rows, floor=embedder.search_min_similarity))[:limit]
        memory_of = memories_of(mind_id).in_bulk([pk for pk, _, _ in fused])
    hits = [
        SearchHit(memory=memory_of[pk], score=score, matched=matched) for pk, score, matched in fused if pk in memory_of
    ]
    current_span().db_read(
        {"table": "memories_memory", "operation": "search", "candidates": len(rows), "results": len(hits)}
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
        nearest = list(nearest_queryset(memories_of(mind_id).filter(current_filter(timezone.now())), vector, limit))
    hits = [SemanticHit(memory=memory, similarity=1.0 - memory.distance) for memory in nearest]
    hits = [hit for hit in hits if hit.similarity >= threshold]
    current_span().db_read(
        {"table": "memories_memory", "operation": "semantic_search", "candidates": len(nearest), "results": len(hits)}
    )
    return hits
