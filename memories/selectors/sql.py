"""Every statement the memory selectors write by hand, whole, built once at import.

Each is a module-level constant or an entry of a module-level mapping keyed by the variant it
serves (the vector plan, which optional filters a search has, whether expired memories count):
no SQL is assembled per call. Only constants are formatted in (the table, the text-search
configurations, the plan's ORDER BY); every value is a bound parameter. tests/test_statements.py
prints each variant and pins it.

The tsquery of a search text is one fixed expression of the parameters
`memories.selectors.search.tsquery_params(q)` (words, phrases, excluded terms), so a statement's
text is the same for every query; the net's statements over knots use the same expression.
"""

from __future__ import annotations

import itertools
import re

from memories.limits import MAX_TAG_CHARS
from memories.models import CURRENT_SQL, Memory
from memories.selectors.vector_plan import HNSW_SETTINGS_COLUMNS, VectorPlan, distance_orders

_MEMORY = Memory._meta.db_table

# Configurations the stored `search_vector` holds (memories.models.Memory.search_vector): the
# query is parsed in each and the three are OR-ed, so a word matches as written or as a stem.
TEXT_SEARCH_CONFIGS = ("simple", "english", "german")
# The languages among them: a plain word that is a stop word in either is dropped from the query
# (from `simple` too, which has no stop words), so "the" or "und" alone matches nothing.
STOP_WORD_CONFIGS = ("english", "german")

# Full-text matches ranked by ts_rank_cd (rows): when more match, the best this many by the
# cheaper ts_rank (a third of its cost) go on to ts_rank_cd, the rest are left out.
TEXT_PRERANK_ROWS = 1000


# --- the tsquery of a search text ---------------------------------------------------------------


def _lexemes_sql(config: str) -> str:
    """(lexeme, position) of each plain word of the query in `config`."""
    return (
        f"SELECT lexeme, position FROM unnest(to_tsvector('{config}'::regconfig, %(words)s)) AS word,"  # noqa: S608
        " unnest(word.positions) AS position"
    )


# The plain words as one OR-query of their lexemes in every configuration, keeping only the
# words (token positions) that no language drops as a stop word. The lexemes are normalised
# already, so they become tsquery literals (quote doubled, backslash escaped) and are cast, not
# parsed again.
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


def _part_sql(param: str, sql: str) -> str:
    """`sql`, or the empty tsquery when the parameter `param` is empty. With the values bound on
    the client (Django's default with psycopg 3) the planner folds the CASE to one branch, so an
    empty part costs no parsing of its own."""
    return f"CASE WHEN %({param})s = '' THEN ''::tsquery ELSE {sql} END"


# Every part is written in, an empty one as the empty tsquery, which PostgreSQL's `||` and `&&`
# drop (they return the other operand; `!!` of an empty query is empty), so the value is the
# query of only the parts the text has. An empty part's `''::tsquery` draws a NOTICE (no
# lexemes), as a query of stop words always did.
# TSQUERY_ALTERNATIVES_SQL: the words and phrases alone (what a bounded text list splits into
# terms); TSQUERY_SQL: those without the excluded terms.
TSQUERY_ALTERNATIVES_SQL = f"(({_WORDS_TSQUERY_SQL}) || ({_part_sql('phrases', _websearch_sql('phrases'))}))"
_EXCLUDED_TSQUERY_SQL = "!!(" + _websearch_sql("excluded") + ")"
TSQUERY_SQL = f"({TSQUERY_ALTERNATIVES_SQL} && ({_part_sql('excluded', _EXCLUDED_TSQUERY_SQL)}))"


# --- the vector plan ----------------------------------------------------------------------------

# One statement: how many rows the mind has, counted up to the exact-scan bound from a mind
# index alone (an index-only scan of at most SYNAPSE_EXACT_SCAN_MAX_ROWS + 1 entries), and this
# transaction's HNSW settings (set_config(…, true) is SET LOCAL: they end with the transaction).
VECTOR_PLAN_SQL = f"""
SELECT count(*),
       {HNSW_SETTINGS_COLUMNS}
  FROM (SELECT 1 FROM {_MEMORY} WHERE mind_id = %(mind_id)s LIMIT %(probe)s) AS mind_rows
"""  # noqa: S608 — only constants are formatted in


# --- the candidate lists ------------------------------------------------------------------------

# The mind first, then expiry (as `memories.models.current_filter`), then the optional filters.
_WHERE_SQL = f"mind_id = %(mind_id)s AND {CURRENT_SQL}"
_TAG_SQL = f" AND tags @> ARRAY[%(tag)s]::varchar({MAX_TAG_CHARS})[]"
_CATEGORY_SQL = " AND category = %(category)s"


def _where(*, tag: bool, category: bool) -> str:
    return _WHERE_SQL + (_TAG_SQL if tag else "") + (_CATEGORY_SQL if category else "")


# The text list in two steps: of the matches, the TEXT_PRERANK_ROWS best by ts_rank, then those
# ranked by ts_rank_cd. Without the first step every match gets ts_rank_cd, the costliest part
# of a search whose words are common (docs/search.md → "The cost of common words").
_TEXT_TEMPLATE = """SELECT id, updated_at, ts_rank_cd(search_vector, {tsquery})::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM {table}
          WHERE {where} AND search_vector @@ {tsquery}
          ORDER BY ts_rank(search_vector, {tsquery}) DESC
          LIMIT GREATEST(%(candidates)s, {prerank})) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s"""

# The mind's nearest rows under `where`, in the order of the plan (the HNSW plan's relaxed order
# is re-sorted by every caller).
_NEAREST_ORDER_SQL = distance_orders("embedding")
_NEAREST_TEMPLATE = """SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM {table}
  WHERE {where} AND embedding IS NOT NULL
  ORDER BY {order}
  LIMIT %(candidates)s"""

# Hybrid search's two candidate lists in one statement. Hand-written because building and
# compiling the equivalent ORM union took longer than running it.
_CANDIDATES_TEMPLATE = """
(SELECT id, updated_at, 'text' AS found_by, score FROM ({text}) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM ({nearest}) AS nearest)
"""


def _text(where: str) -> str:
    return _TEXT_TEMPLATE.format(tsquery=TSQUERY_SQL, table=_MEMORY, where=where, prerank=TEXT_PRERANK_ROWS)


def _nearest(plan: VectorPlan, where: str) -> str:
    return _NEAREST_TEMPLATE.format(table=_MEMORY, where=where, order=_NEAREST_ORDER_SQL[plan])


# Keyed by (plan, has a tag filter, has a category filter).
CANDIDATES_SQL: dict[tuple[VectorPlan, bool, bool], str] = {
    (plan, tag, category): _CANDIDATES_TEMPLATE.format(
        text=_text(_where(tag=tag, category=category)), nearest=_nearest(plan, _where(tag=tag, category=category))
    )
    for plan, tag, category in itertools.product(VectorPlan, (False, True), (False, True))
}

# The text list alone (the mind's full-text ranking, no filters).
TEXT_SQL = _text(_where(tag=False, category=False))

# Semantic search: the ids of the nearest rows, keyed by plan, with positional `%s` placeholders
# (the ORM's RawSQL takes them) whose values are NEAREST_IDS_PARAMETERS[plan] in order.
_NAMED_PARAMETER = re.compile(r"%\((\w+)\)s")
_NEAREST_IDS_NAMED = {
    plan: f"SELECT id FROM ({_nearest(plan, _where(tag=False, category=False))}) AS nearest"  # noqa: S608
    for plan in VectorPlan
}
NEAREST_IDS_SQL: dict[VectorPlan, str] = {
    plan: _NAMED_PARAMETER.sub("%s", sql) for plan, sql in _NEAREST_IDS_NAMED.items()
}
NEAREST_IDS_PARAMETERS: dict[VectorPlan, tuple[str, ...]] = {
    plan: tuple(_NAMED_PARAMETER.findall(sql)) for plan, sql in _NEAREST_IDS_NAMED.items()
}


# --- tags ---------------------------------------------------------------------------------------

# Keyed by whether expired memories count.
_EXPIRY_SQL = {True: "", False: f" AND {CURRENT_SQL}"}

# GET /memory/tags: each tag with its count, by count (desc) then tag, and how many tags in all.
TAG_COUNTS_SQL: dict[bool, str] = {
    include_expired: f"""
WITH counted AS (
    SELECT tag, count(*) AS n
      FROM {_MEMORY}, unnest(tags) AS tag
     WHERE mind_id = %(mind)s{expiry}
     GROUP BY tag
)
SELECT tag, n, count(*) OVER () FROM counted ORDER BY n DESC, tag LIMIT %(limit)s
"""  # noqa: S608 — only constants are formatted in
    for include_expired, expiry in _EXPIRY_SQL.items()
}
MEMORY_COUNT_SQL: dict[bool, str] = {
    include_expired: f"SELECT count(*) FROM {_MEMORY} WHERE mind_id = %(mind)s{expiry}"  # noqa: S608
    for include_expired, expiry in _EXPIRY_SQL.items()
}

# GET /memory/{id}/related: how many of a row's tags are among the parameter's.
SHARED_TAG_COUNT_SQL = "cardinality(ARRAY(SELECT unnest(tags) INTERSECT SELECT unnest(%s::varchar[])))"
