"""Searching a mind's memories: hybrid (full text + vectors, fused by reciprocal rank) and semantic.

Every query filters by mind first. Text candidates come from the GIN index on the stored
`search_vector`. Vector candidates come, per query, from one of two plans chosen by the size of
the mind (`vector_plan`): an exact scan of the mind's rows (through a mind index) while the mind
is small, else the shared HNSW index with pgvector's iterative scan, which keeps walking the
graph until enough of the mind's rows have passed the filter. docs/search.md explains the
choices and what was measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone
from pgvector.django import CosineDistance

from memories.embedders import get_embedder
from memories.embedders.installation import mind_embedder_check, mind_embedder_refuse
from memories.fusion import Ranked, rrf_fuse
from memories.models import Memory
from memories.selectors.memory import memories_of
from memories.selectors.sql import (
    CANDIDATES_SQL,
    NEAREST_IDS_PARAMETERS,
    NEAREST_IDS_SQL,
    VECTOR_PLAN_SQL,
)
from memories.selectors.vector_plan import VectorPlan, exact_scan_probe, hnsw_settings, plan_for
from pipelinelog.spans import current_span

# Candidates each list contributes before fusion (rows), at least; more when `limit` is larger.
SEARCH_MIN_CANDIDATES = 50

# Which list a hit came from (`matched`).
MATCHED_TEXT = "text"
MATCHED_VECTOR = "vector"


@dataclass(frozen=True)
class SearchHit:
    memory: Memory
    score: float  # the RRF score (memories.fusion.rrf_score): sum of 1 / (RRF_K + rank) over the lists that found it
    matched: tuple[str, ...]  # ("text",), ("vector",) or ("text", "vector")


@dataclass(frozen=True)
class SemanticHit:
    memory: Memory
    similarity: float  # cosine similarity, 1 - cosine distance


# --- the vector half ---------------------------------------------------------------------------


def vector_plan(*, mind_id: str, candidates: int) -> VectorPlan:
    """Choose the plan of this transaction's vector search of `mind_id` and set its HNSW settings:
    the exact scan for a mind of at most settings.SYNAPSE_EXACT_SCAN_MAX_ROWS memories, else HNSW.

    Call inside the transaction that runs the search (transaction.atomic): the settings are
    local to it and never leak into the connection's later transactions.
    """
    params = {"mind_id": mind_id, "probe": exact_scan_probe(), **hnsw_settings(candidates)}
    with connection.cursor() as cursor:
        cursor.execute(VECTOR_PLAN_SQL, params)
        mind_rows = cursor.fetchone()[0]
    return plan_for(mind_rows)


def _embedder_check(mind_id: str, running: str, recorded: str | None) -> None:
    """A query's vector is compared only with vectors of the same embedder (a 409 saying what to
    run): checked on the mind row the caller read when it passes its record, else read here."""
    if recorded is None:
        mind_embedder_check(mind_id, running)
    else:
        mind_embedder_refuse(mind_id, recorded=recorded, running=running)


def _vector_literal(vector) -> str:
    """`[0.1,-0.2,…]`, pgvector's text form (tolist first: formatting numpy scalars one by one is slow)."""
    return "[" + ",".join(map(str, vector.tolist())) + "]"


# --- the text half -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TextQuery:
    """A search text split the way websearch syntax reads it; each part is websearch text again."""

    words: str  # the plain words, space-separated: any of them matches (OR), stop words dropped
    phrases: str  # the quoted phrases, `"a b" OR "c d"`: each one an alternative like a word
    excluded: str  # the `-word` / `-"a phrase"` terms, `x OR "y z"`: a memory holding one is left out


# An optional minus, then a quoted phrase (the closing quote may be missing, as websearch allows)
# or a run of anything but whitespace.
_QUERY_TERM = re.compile(r'(-?)(?:"([^"]*)"?|(\S+))')
# websearch's OR operator (any case). Plain words are alternatives already, so it changes nothing.
_OR = "or"


def text_query(q: str) -> TextQuery:
    """Split `q` into plain words, quoted phrases and excluded terms."""
    words, phrases, excluded = [], [], []
    for match in _QUERY_TERM.finditer(q):
        minus, phrase, word = match.groups()
        if phrase is not None:
            if phrase.strip():
                (excluded if minus else phrases).append(f'"{phrase}"')
        elif minus and len(word) > 0:
            excluded.append(word)
        elif word.lower() != _OR:
            words.append(word)
    return TextQuery(words=" ".join(words), phrases=" OR ".join(phrases), excluded=" OR ".join(excluded))


def _text_params(query: TextQuery) -> dict[str, str]:
    return {"words": query.words, "phrases": query.phrases, "excluded": query.excluded}


def tsquery_params(q: str) -> dict[str, str]:
    """The parameters of memories.selectors.sql.TSQUERY_SQL (and TSQUERY_ALTERNATIVES_SQL) for the search text `q`."""
    return _text_params(text_query(q))


# --- hybrid ------------------------------------------------------------------------------------


def memories_search(
    *,
    mind_id: str,
    q: str,
    limit: int,
    tag: str | None = None,
    category: str | None = None,
    mind_embedder: str | None = None,
) -> list[SearchHit]:
    """GET /memory/search: full-text and vector candidates of the mind, fused by reciprocal rank.

    `q` is raw text (websearch syntax: quotes, OR, -word). At most `limit` hits, best first;
    expired memories left out. The same three statements whatever the number of hits: the
    vector plan (the mind's size and the HNSW settings), both candidate lists (ids only), the
    hits' rows. `mind_embedder`: the mind's recorded embedder when the caller read its row (then
    no statement reads it again; see _embedder_check).
    """
    candidates = max(limit, SEARCH_MIN_CANDIDATES)
    embedder = get_embedder()
    vector = embedder.embed([q])[0]  # a server that is down is told first
    _embedder_check(mind_id, embedder.name, mind_embedder)
    query = text_query(q)
    params = {
        "mind_id": mind_id,
        "now": timezone.now(),
        **_text_params(query),
        "vector": _vector_literal(vector),
        "candidates": candidates,
        "tag": tag,
        "category": category,
    }
    with transaction.atomic():
        plan = vector_plan(mind_id=mind_id, candidates=candidates)
        with connection.cursor() as cursor:
            cursor.execute(CANDIDATES_SQL[plan, bool(tag), bool(category)], params)
            rows = cursor.fetchall()
        fused = _fuse(_ranked_lists(rows, floor=embedder.search_min_similarity))[:limit]
        memory_of = memories_of(mind_id).in_bulk([pk for pk, _, _ in fused])
    hits = [
        SearchHit(memory=memory_of[pk], score=score, matched=matched) for pk, score, matched in fused if pk in memory_of
    ]
    current_span().db_read(
        {
            "table": "memories_memory",
            "operation": "search",
            "vector_plan": plan.value,
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
    """Reciprocal rank fusion (memories.fusion.rrf_fuse) of ranked lists into (pk, score, matched), best first."""
    fused = rrf_fuse(
        {name: [Ranked(c.pk, c.updated_at.timestamp()) for c in candidates] for name, candidates in ranked.items()}
    )
    return [(hit.id, hit.score, hit.matched) for hit in fused]


def memories_semantic_search(
    *, mind_id: str, q: str, limit: int, threshold: float, mind_embedder: str | None = None
) -> list[SemanticHit]:
    """GET /memory/semantic-search: the mind's memories most similar to `q` by vector alone, at
    most `limit`, most similar first (exact distance order, then id), each with cosine
    similarity ≥ `threshold`; expired left out. Two statements: the vector plan, the rows."""
    embedder = get_embedder()
    vector = embedder.embed([q])[0]
    _embedder_check(mind_id, embedder.name, mind_embedder)
    params = {"mind_id": mind_id, "now": timezone.now(), "vector": _vector_literal(vector), "candidates": limit}
    with transaction.atomic():
        plan = vector_plan(mind_id=mind_id, candidates=limit)
        ids_params = [params[name] for name in NEAREST_IDS_PARAMETERS[plan]]
        nearest = list(
            memories_of(mind_id)
            .filter(pk__in=RawSQL(NEAREST_IDS_SQL[plan], ids_params))  # noqa: S611 — a constant statement
            .annotate(distance=CosineDistance("embedding", vector))
            .order_by()
        )
    # The rows come back in no particular order (and the HNSW plan's is only nearly sorted):
    # the exact distances decide.
    nearest.sort(key=lambda memory: (memory.distance, memory.pk))
    hits = [SemanticHit(memory=memory, similarity=1.0 - memory.distance) for memory in nearest]
    hits = [hit for hit in hits if hit.similarity >= threshold]
    current_span().db_read(
        {
            "table": "memories_memory",
            "operation": "semantic_search",
            "vector_plan": plan.value,
            "candidates": len(nearest),
            "results": len(hits),
        }
    )
    return hits
