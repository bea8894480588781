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
from memories.fusion import Ranked, rrf_fuse
from memories.limits import MAX_TAG_CHARS
from memories.models import CURRENT_SQL, Memory
from memories.selectors.memory import memories_of
from memories.selectors.vector_plan import (
    HNSW_SETTINGS_COLUMNS,
    VectorPlan,
    distance_orders,
    exact_scan_probe,
    hnsw_settings,
    plan_for,
)
from pipelinelog.spans import current_span

# Candidates each list contributes before fusion (rows), at least; more when `limit` is larger.
SEARCH_MIN_CANDIDATES = 50
# Full-text matches ranked by ts_rank_cd (rows): when more match, the best this many by the
# cheaper ts_rank (a third of its cost) go on to ts_rank_cd, the rest are left out.
TEXT_PRERANK_ROWS = 1000
# Configurations the stored `search_vector` holds (memories.models.Memory.search_vector): the
# query is parsed in each and the three are OR-ed, so a word matches as written or as a stem.
TEXT_SEARCH_CONFIGS = ("simple", "english", "german")
# The languages among them: a plain word that is a stop word in either is dropped from the query
# (from `simple` too, which has no stop words), so "the" or "und" alone matches nothing.
STOP_WORD_CONFIGS = ("english", "german")

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


# One statement: how many rows the mind has, counted up to the exact-scan bound from a mind
# index alone (an index-only scan of at most SYNAPSE_EXACT_SCAN_MAX_ROWS + 1 entries), and this
# transaction's HNSW settings (set_config(…, true) is SET LOCAL: they end with the transaction).
_VECTOR_PLAN_SQL = f"""
SELECT count(*),
       {HNSW_SETTINGS_COLUMNS}
  FROM (SELECT 1 FROM {Memory._meta.db_table} WHERE mind_id = %(mind_id)s LIMIT %(probe)s) AS mind_rows
"""  # noqa: S608 — only constants are formatted in


def vector_plan(*, mind_id: str, candidates: int) -> VectorPlan:
    """Choose the plan of this transaction's vector search of `mind_id` and set its HNSW settings:
    the exact scan for a mind of at most settings.SYNAPSE_EXACT_SCAN_MAX_ROWS memories, else HNSW.

    Call inside the transaction that runs the search (transaction.atomic): the settings are
    local to it and never leak into the connection's later transactions.
    """
    params = {"mind_id": mind_id, "probe": exact_scan_probe(), **hnsw_settings(candidates)}
    with connection.cursor() as cursor:
        cursor.execute(_VECTOR_PLAN_SQL, params)
        mind_rows = cursor.fetchone()[0]
    return plan_for(mind_rows)


# The mind's nearest rows under `where`, in the order of the plan (vector_plan.distance_orders:
# the HNSW plan's relaxed order is re-sorted by every caller).
_NEAREST_ORDER_SQL = distance_orders("embedding")
_NEAREST_SQL = """SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM {table}
  WHERE {where} AND embedding IS NOT NULL
  ORDER BY {order}
  LIMIT %(candidates)s"""


def _nearest_sql(plan: VectorPlan, where: str) -> str:
    return _NEAREST_SQL.format(table=Memory._meta.db_table, where=where, order=_NEAREST_ORDER_SQL[plan])


_NAMED_PARAMETER = re.compile(r"%\((\w+)\)s")


def _positional(sql: str, params: dict) -> tuple[str, list]:
    """`%(name)s` placeholders as `%s` with the values in order, as the ORM's RawSQL takes them."""
    return _NAMED_PARAMETER.sub("%s", sql), [params[name] for name in _NAMED_PARAMETER.findall(sql)]


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


def _lexemes_sql(config: str) -> str:
    """(lexeme, position) of each plain word of the query in `config`."""
    return (
        f"SELECT lexeme, position FROM unnest(to_tsvector('{config}'::regconfig, %(words)s)) AS word,"  # noqa: S608
        " unnest(word.positions) AS position"
    )


# The plain words as one OR-query of their lexemes in every configuration, keeping only the
# words (token positions) that no language drops as a stop word. The lexemes are normalised
# already, so they become tsquery literals (quote doubled, backslash escaped) and are cast, not
# parsed again. Only the configuration names are formatted in.
_WORDS_TSQUERY_SQL = (  # noqa: S608
    "(SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''',"
    " ' | '), '')::tsquery FROM ({lexemes}) AS lexemes WHERE position IN ({kept}))"
).format(
    lexemes=" UNION ALL ".join(_lexemes_sql(config) for config in TEXT_SEARCH_CONFIGS),
    kept=" INTERSECT ".join(
        f"SELECT position FROM ({_lexemes_sql(config)}) AS kept"  # noqa: S608
        for config in STOP_WORD_CONFIGS
    ),
)


def _websearch_sql(param: str) -> str:
    return " || ".join(f"websearch_to_tsquery('{config}'::regconfig, %({param})s)" for config in TEXT_SEARCH_CONFIGS)


def _tsquery_sql(query: TextQuery) -> str:
    """The tsquery of `query` as SQL (the texts are parameters): any of its words or phrases,
    none of its excluded terms. Only the parts `query` has are in it."""
    alternatives = [
        f"({sql})"
        for part, sql in ((query.words, _WORDS_TSQUERY_SQL), (query.phrases, _websearch_sql("phrases")))
        if part
    ]
    tsquery = " || ".join(alternatives)
    if query.excluded:
        excluded = f"!!({_websearch_sql('excluded')})"
        tsquery = f"({tsquery}) && {excluded}" if tsquery else excluded
    return tsquery or "''::tsquery"


def _text_params(query: TextQuery) -> dict[str, str]:
    return {"words": query.words, "phrases": query.phrases, "excluded": query.excluded}


def tsquery_params(q: str) -> dict[str, str]:
    """The parameters of TSQUERY_SQL and TSQUERY_ALTERNATIVES_SQL for the search text `q`."""
    return _text_params(text_query(q))


def _part_sql(param: str, sql: str) -> str:
    """`sql`, or the empty tsquery when the parameter `param` is empty. With the values bound on
    the client (Django's default with psycopg 3) the planner folds the CASE to one branch, so an
    empty part costs no parsing of its own."""
    return f"CASE WHEN %({param})s = '' THEN ''::tsquery ELSE {sql} END"


# The tsquery of a search text as one fixed expression of the parameters tsquery_params(q), for
# statements written whole over another table whose stored `search_vector` holds the same
# TEXT_SEARCH_CONFIGS (the net's knots): every part is written in, an empty one as the empty
# tsquery, which PostgreSQL's `||` and `&&` drop (they return the other operand; `!!` of an empty
# query is empty). So its value is the one _tsquery_sql gives, which writes only the parts a
# text has, while the statement's text is the same for every query. An empty part's
# `''::tsquery` draws a NOTICE (no lexemes), as a query of stop words always did.
# TSQUERY_ALTERNATIVES_SQL: the words and phrases alone (what a bounded text list splits into
# terms); TSQUERY_SQL: those without the excluded terms.
TSQUERY_ALTERNATIVES_SQL = f"(({_WORDS_TSQUERY_SQL}) || ({_part_sql('phrases', _websearch_sql('phrases'))}))"
_EXCLUDED_TSQUERY_SQL = "!!(" + _websearch_sql("excluded") + ")"
TSQUERY_SQL = f"({TSQUERY_ALTERNATIVES_SQL} && ({_part_sql('excluded', _EXCLUDED_TSQUERY_SQL)}))"


# --- hybrid ------------------------------------------------------------------------------------

# Both candidate lists in one statement. Only constants are formatted into it (table, the
# configurations, the vector plan's ORDER BY, optional filter clauses); every value is a bound
# parameter. Hand-written because building and compiling the equivalent ORM union took longer
# than running it.
# The text list in two steps: of the matches, the TEXT_PRERANK_ROWS best by ts_rank, then those
# ranked by ts_rank_cd. Without the first step every match gets ts_rank_cd, the costliest part
# of a search whose words are common (docs/search.md → "The cost of common words").
_TEXT_SQL = """SELECT id, updated_at, ts_rank_cd(search_vector, ({tsquery}))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM {table}
          WHERE {where} AND search_vector @@ ({tsquery})
          ORDER BY ts_rank(search_vector, ({tsquery})) DESC
          LIMIT GREATEST(%(candidates)s, {prerank})) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s"""
_CANDIDATES_SQL = """
(SELECT id, updated_at, 'text' AS found_by, score FROM ({text}) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM ({nearest}) AS nearest)
"""


def _text_sql(where: str, query: TextQuery) -> str:
    return _TEXT_SQL.format(
        tsquery=_tsquery_sql(query), table=Memory._meta.db_table, where=where, prerank=TEXT_PRERANK_ROWS
    )


# The mind first, then expiry (as `memories.models.current_filter`), then the optional filters.
_WHERE_SQL = f"mind_id = %(mind_id)s AND {CURRENT_SQL}"
_TAG_SQL = f" AND tags @> ARRAY[%(tag)s]::varchar({MAX_TAG_CHARS})[]"
_CATEGORY_SQL = " AND category = %(category)s"


def memories_search(
    *, mind_id: str, q: str, limit: int, tag: str | None = None, category: str | None = None
) -> list[SearchHit]:
    """GET /memory/search: full-text and vector candidates of the mind, fused by reciprocal rank.

    `q` is raw text (websearch syntax: quotes, OR, -word). At most `limit` hits, best first;
    expired memories left out. The same three statements whatever the number of hits: the
    vector plan (the mind's size and the HNSW settings), both candidate lists (ids only), the
    hits' rows.
    """
    candidates = max(limit, SEARCH_MIN_CANDIDATES)
    embedder = get_embedder()
    query = text_query(q)
    params = {
        "mind_id": mind_id,
        "now": timezone.now(),
        **_text_params(query),
        "vector": _vector_literal(embedder.embed([q])[0]),
        "candidates": candidates,
        "tag": tag,
        "category": category,
    }
    where = _WHERE_SQL + (_TAG_SQL if tag else "") + (_CATEGORY_SQL if category else "")
    with transaction.atomic():
        plan = vector_plan(mind_id=mind_id, candidates=candidates)
        sql = _CANDIDATES_SQL.format(text=_text_sql(where, query), nearest=_nearest_sql(plan, where))
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
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


def memories_text_search(*, mind_id: str, q: str, limit: int) -> list[str]:
    """The ids of the mind's memories that match `q` by full text alone, best first (ts_rank_cd,
    then most recently updated, then id): hybrid search's text list, at most `limit`; expired
    memories left out. One statement."""
    query = text_query(q)
    params = {"mind_id": mind_id, "now": timezone.now(), **_text_params(query), "candidates": limit}
    with connection.cursor() as cursor:
        cursor.execute(_text_sql(_WHERE_SQL, query), params)
        return [row[0] for row in cursor.fetchall()]


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


def memories_semantic_search(*, mind_id: str, q: str, limit: int, threshold: float) -> list[SemanticHit]:
    """GET /memory/semantic-search: the mind's memories most similar to `q` by vector alone, at
    most `limit`, most similar first (exact distance order, then id), each with cosine
    similarity ≥ `threshold`; expired left out. Two statements: the vector plan, the rows."""
    vector = get_embedder().embed([q])[0]
    params = {"mind_id": mind_id, "now": timezone.now(), "vector": _vector_literal(vector), "candidates": limit}
    with transaction.atomic():
        plan = vector_plan(mind_id=mind_id, candidates=limit)
        # Only our constants are formatted in; every value is a parameter.
        nearest_sql = f"SELECT id FROM ({_nearest_sql(plan, _WHERE_SQL)}) AS nearest"  # noqa: S608
        ids_sql, ids_params = _positional(nearest_sql, params)
        nearest = list(
            memories_of(mind_id)
            .filter(pk__in=RawSQL(ids_sql, ids_params))  # noqa: S611
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
