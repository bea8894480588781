"""Every statement of recall with resonance (docs/synapse-model.md §5, §8), written here whole.

A statement that has variants lists them in a mapping built at import; nothing here or in the
modules that run them is assembled per call. Table names come from `synapses.net.tables.TABLES`
and the vector plan's order from `memories.selectors.vector_plan`, both formatted in at import;
every value of a call is a bound parameter. tests/synapses/test_resonance_sql.py prints each
anchors variant whole, pins it and runs it.

    GOALS_SQL              the mind's active goals (perception gravity)
    LEXEME_ESTIMATES_SQL   a mind's lexemes with their estimated matches (a large mind's common terms)
    ANCHORS_SQL            both anchor lists, by (vector plan, text list), and in the same message
                           both lists of the mind's pending memories (_PENDING)
    SHELL_SQL              one shell of spreading activation, by ranking
    DETAILS_SQL            the result knots with their links, superseded flag and entity names
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from memories.models import PENDING_MEMORIES_SQL
from memories.selectors.sql import TSQUERY_ALTERNATIVES_SQL, TSQUERY_SQL
from memories.selectors.vector_plan import VectorPlan, distance_orders, under_hnsw_settings
from synapses import constants
from synapses.net.tables import TABLES

# --- search vector ------------------------------------------------------------------------------

# The mind's active goals embedded by the current embedder, oldest first. Hand-written: building
# the ORM's query cost more than running it (the vector as real[], which psycopg reads as floats).
GOALS_SQL = """
SELECT id, embedding::real[], motivation FROM {goal}
 WHERE mind_id = %(mind_id)s AND active AND embedding IS NOT NULL AND embedding_model = %(model)s
 ORDER BY id
""".format(**TABLES)  # noqa: S608 — only the table name is formatted in

# --- anchors ------------------------------------------------------------------------------------

# Each lexeme of the table's statistics (the most common ones ANALYZE keeps for
# `search_vector`, with the share of knots holding each) and its estimated matches in the mind
# (that share × the mind's share of the table × the table's knots). No rows without statistics.
# Read in the anchors statement itself it cost ~5 ms per call at 100,000 knots (the view's
# arrays detoasted and cast) and ~1 ms of planning; the statistics change only on ANALYZE.
LEXEME_ESTIMATES_SQL = """
WITH statistics AS (
    SELECT max(s.most_common_elems::text) FILTER (WHERE s.attname = 'search_vector')::text[] AS lexemes,
           max(s.most_common_elem_freqs::text) FILTER (WHERE s.attname = 'search_vector')::real[] AS freqs,
           coalesce(max(s.most_common_freqs[array_position(s.most_common_vals::text::text[], %(mind_id)s)])
                      FILTER (WHERE s.attname = 'mind_id'), 0)
           * greatest((SELECT c.reltuples FROM pg_class c WHERE c.oid = '{knot}'::regclass), 0) AS knots
      FROM pg_stats s
     WHERE s.schemaname = current_schema() AND s.tablename = '{knot}' AND s.attname IN ('search_vector', 'mind_id')
)
SELECT x.lexeme, x.freq * statistics.knots
  FROM statistics, unnest(statistics.lexemes, statistics.freqs[1:cardinality(statistics.lexemes)]) AS x(lexeme, freq)
 WHERE x.lexeme IS NOT NULL
""".format(**TABLES)  # noqa: S608 — only the table name is formatted in


class TextList(StrEnum):
    """How the anchors' full-text list reads the mind's matches (each variant below says why)."""

    EVERY_MATCH = "every_match"
    PER_TERM = "per_term"
    RARE_TERMS = "rare_terms"
    RARE_TERMS_EXCLUDING = "rare_terms_excluding"


def text_list_of(plan: VectorPlan, *, excluding: bool) -> TextList:
    """The text list of a search under `plan` for a query that excludes words (`-word`) or not."""
    if plan == VectorPlan.HNSW:
        return TextList.RARE_TERMS_EXCLUDING if excluding else TextList.RARE_TERMS
    return TextList.EVERY_MATCH if excluding else TextList.PER_TERM


# The query's tsquery is one fixed expression of the parameters words, phrases and excluded
# (memories.selectors.sql.TSQUERY_SQL, memories.selectors.search.tsquery_params(q)), so the statement's text is the
# same for every query.
#
# EVERY_MATCH (exact plan, a query that excludes words): every full-text match of the mind
# ranked by ts_rank_cd. A small mind's matches are few, and a bounded list would have to split a
# query whose exclusion applies to the whole.
_EVERY_MATCH = """text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, ({tsquery}))::float8 AS score
      FROM {knot} k JOIN {presence} p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s AND k.search_vector @@ ({tsquery})
     ORDER BY score DESC, k.id
     LIMIT %(candidates)s
)"""

# PER_TERM (exact plan): the query's alternatives (plain words and phrases OR-ed) split into
# terms, the matches of each read up to TEXT_TERM_MATCHES, the union ranked by ts_rank_cd of the
# whole query. A term a large share of the mind holds would make every match of the mind be read
# and ranked; its first matches stand in for the rest, while every match of a rarer term is
# ranked. No term reaches the bound in a mind of a few thousand knots, so there the list is the
# same as ranking every match.
_PER_TERM = """query AS MATERIALIZED (
    SELECT ({tsquery}) AS q
), terms AS (
    SELECT DISTINCT t::tsquery AS term
      FROM query, regexp_split_to_table(query.q::text, ' [|] ') AS t
     WHERE query.q::text <> ''
), matched AS (
    SELECT DISTINCT m.id
      FROM terms, LATERAL (SELECT k.id FROM {knot} k
                            WHERE k.mind_id = %(mind_id)s AND k.search_vector @@ terms.term
                            LIMIT %(term_matches)s) AS m
), text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, query.q)::float8 AS score
      FROM matched JOIN {knot} k ON k.id = matched.id JOIN {presence} p ON p.knot_id = k.id AND p.is_active,
           query
     ORDER BY score DESC, k.id
     LIMIT %(candidates)s
)"""

# RARE_TERMS (a mind above the exact-scan bound, the HNSW plan), where a common term's GIN bitmap
# is what costs: the index is on (mind, search_vector), and a bitmap scan reads every entry of
# each key it is given, the mind's (all its knots) and the term's (every knot holding it), before
# LIMIT can stop anything (at 100,000 knots 12 to 46 ms per common term, 1.5 ms even for a term
# of 1,500 knots). So the mind's common lexemes come first from the table's statistics
# (LEXEME_ESTIMATES_SQL, read once per process and mind for NET_FACTS_SECONDS): a term whose
# estimated matches in the mind exceed TEXT_TERM_MATCHES is common (the `common` parameter), and
# its matches are not read; every other term is rare, and all rare terms go into one bitmap scan
# (the mind's entry read once), up to TEXT_TERM_MATCHES per rare term. The candidates ranked by
# ts_rank_cd of the whole query are the rare terms' matches and the vector list's knots that
# match the query at all, so a common term still weighs in the ranking and in which of the
# vector list's knots are text matches. Without statistics (a table not analysed yet, a mind
# too small a share to be listed) no term is common.
_RARE_TERMS = """query AS MATERIALIZED (
    SELECT q, q AS alternatives FROM (SELECT ({tsquery}) AS q) AS built
), rare AS MATERIALIZED (
    SELECT string_agg(t, ' | ')::tsquery AS q, count(*) AS terms
      FROM query, regexp_split_to_table(query.alternatives::text, ' [|] ') AS t
     WHERE query.alternatives::text <> '' AND btrim(t, '''') <> ALL(%(common)s::text[])
), matched AS (
    (SELECT k.id FROM rare, query, {knot} k
      WHERE rare.terms > 0 AND k.mind_id = %(mind_id)s AND k.search_vector @@ rare.q
      LIMIT %(term_matches)s * (SELECT terms FROM rare))
    UNION
    SELECT n.id FROM nearest n JOIN {knot} k ON k.id = n.id, query WHERE k.search_vector @@ query.q
), text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, query.q)::float8 AS score
      FROM matched JOIN {knot} k ON k.id = matched.id JOIN {presence} p ON p.knot_id = k.id AND p.is_active,
           query
     ORDER BY score DESC, k.id
     LIMIT %(candidates)s
)"""

# RARE_TERMS_EXCLUDING (the HNSW plan, a query that excludes words): RARE_TERMS splitting the
# query's alternatives alone (its words and phrases, TSQUERY_ALTERNATIVES_SQL) into terms, a rare
# term's match kept only if it matches the whole query (holds none of the excluded words). That
# test is a filter on the rows the rare terms' bitmap brings, never an index condition (IS TRUE):
# the whole query holds the common terms too, whose postings are what the rare-term scan avoids
# reading. Before, such a query ranked every match of the mind (1,467 knots and 8,314 buffers
# for `chess -Thursday`).
_RARE_TERMS_EXCLUDING = """query AS MATERIALIZED (
    SELECT q, ({alternatives}) AS alternatives FROM (SELECT ({tsquery}) AS q) AS built
), rare AS MATERIALIZED (
    SELECT string_agg(t, ' | ')::tsquery AS q, count(*) AS terms
      FROM query, regexp_split_to_table(query.alternatives::text, ' [|] ') AS t
     WHERE query.alternatives::text <> '' AND btrim(t, '''') <> ALL(%(common)s::text[])
), matched AS (
    (SELECT k.id FROM rare, query, {knot} k
      WHERE rare.terms > 0 AND k.mind_id = %(mind_id)s AND k.search_vector @@ rare.q
            AND (k.search_vector @@ query.q) IS TRUE
      LIMIT %(term_matches)s * (SELECT terms FROM rare))
    UNION
    SELECT n.id FROM nearest n JOIN {knot} k ON k.id = n.id, query WHERE k.search_vector @@ query.q
), text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, query.q)::float8 AS score
      FROM matched JOIN {knot} k ON k.id = matched.id JOIN {presence} p ON p.knot_id = k.id AND p.is_active,
           query
     ORDER BY score DESC, k.id
     LIMIT %(candidates)s
)"""

_TEXT_LISTS = {
    TextList.EVERY_MATCH: _EVERY_MATCH,
    TextList.PER_TERM: _PER_TERM,
    TextList.RARE_TERMS: _RARE_TERMS,
    TextList.RARE_TERMS_EXCLUDING: _RARE_TERMS_EXCLUDING,
}

# Both anchor lists of the mind's active knots, with what ranking needs of each candidate: the
# nearest by the plan's order (vector_plan.distance_orders; the HNSW plan's relaxed order is
# re-sorted in Python) and the text list. Rows: knot id, found_by "text" | "vector", ts_rank_cd
# or cosine distance, cosine, weight_present, emotion, created_at in seconds since the epoch (a
# float costs far less to read than a datetime).
_ANCHORS = """
WITH nearest AS MATERIALIZED (
    SELECT k.id, k.embedding <=> %(vector)s::vector AS distance
      FROM {knot} k JOIN {presence} p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s
     ORDER BY {order}
     LIMIT %(candidates)s
), {text}, found AS (
    SELECT id, 'text' AS found_by, score FROM text
    UNION ALL
    SELECT id, 'vector' AS found_by, distance AS score FROM nearest
)
SELECT f.id, f.found_by, f.score, 1 - (k.embedding <=> %(vector)s::vector) AS cosine,
       p.weight_present, k.emotion, extract(epoch FROM k.created_at)::float8 AS created_at
  FROM found f JOIN {knot} k ON k.id = f.id JOIN {presence} p ON p.knot_id = f.id
"""

_ORDER = distance_orders("k.embedding")

# Never blind (docs/synapse-model.md §5, "Pending memories"): the same two lists over the mind's
# pending memories (memories.models.PENDING_MEMORIES_SQL, the one SQL form of pending_filter),
# the PENDING_RESONANCE_MAX most recently waiting: their full-text matches ranked by ts_rank_cd
# of the whole query (exclusions included) and their nearest by cosine distance, each up to
# `candidates`. An exact scan of a materialised set: no index of the memories is read but the
# pending table's (mind, since) one, so the HNSW settings of the message do not touch it. Rows:
# memory id, found_by, score (ts_rank_cd or distance), cosine (null without a vector), salience,
# emotion, created_at in seconds since the epoch, then what the answer shows of the memory.
_PENDING = """
WITH pending AS MATERIALIZED (
    SELECT memory.id, memory.embedding, memory.search_vector
      FROM {pending_memories}
     ORDER BY pending.since DESC, pending.memory_id
     LIMIT {bound}
), query AS MATERIALIZED (
    SELECT ({tsquery}) AS q
), text AS (
    SELECT p.id, ts_rank_cd(p.search_vector, query.q)::float8 AS score
      FROM pending p, query
     WHERE p.search_vector @@ query.q
     ORDER BY score DESC, p.id
     LIMIT %(candidates)s
), nearest AS (
    SELECT p.id, p.embedding <=> %(vector)s::vector AS distance
      FROM pending p
     WHERE p.embedding IS NOT NULL
     ORDER BY distance, p.id
     LIMIT %(candidates)s
), found AS (
    SELECT id, 'text' AS found_by, score FROM text
    UNION ALL
    SELECT id, 'vector' AS found_by, distance AS score FROM nearest
)
SELECT f.id, f.found_by, f.score, 1 - (m.embedding <=> %(vector)s::vector) AS cosine, m.salience, m.emotion,
       extract(epoch FROM m.created_at)::float8 AS created_at, m.content, m.tags, m.entities, m.speaker,
       m.created_at AS created
  FROM found f JOIN {memory} m ON m.id = f.id
""".format(
    pending_memories=PENDING_MEMORIES_SQL,
    bound=int(constants.PENDING_RESONANCE_MAX),
    tsquery=TSQUERY_SQL,
    **TABLES,
)  # noqa: S608 — table names, the pending definition, a bound and the tsquery expression, at import


def _anchors(plan: VectorPlan, text_list: TextList) -> str:
    """The anchors message of (plan, text list): under the HNSW plan after the net's HNSW
    settings, and the pending memories' lists last (the settings, the net's lists and the
    short-term layer's in one round trip; the net's rows are the first result a reader fetches)."""
    text = _TEXT_LISTS[text_list].format(tsquery=TSQUERY_SQL, alternatives=TSQUERY_ALTERNATIVES_SQL, **TABLES)
    statement = _ANCHORS.format(text=text, order=_ORDER[plan], **TABLES) + ";\n" + _PENDING
    return under_hnsw_settings(statement) if plan == VectorPlan.HNSW else statement


# Every anchors statement, by (vector plan, text list): the four a call can send.
ANCHORS_SQL: Mapping[tuple[VectorPlan, TextList], str] = {
    (plan, text_list): _anchors(plan, text_list)
    for plan in VectorPlan
    for text_list in TextList
    if text_list in (text_list_of(plan, excluding=False), text_list_of(plan, excluding=True))
}

# --- spreading activation -----------------------------------------------------------------------

# One shell of spreading activation: every frontier entry (a knot and the knot it came from)
# follows its top-k outgoing edges, never back to its predecessor, never to an inactive knot.
# Entries are numbered (slot), so a knot reached by two paths spreads twice, each path with its
# own lock. Each target comes with its cosine to the search vector; `order` picks the edges.
_SHELL = """
WITH frontier AS (
    SELECT source, predecessor, slot
      FROM unnest(%(sources)s::bigint[], %(predecessors)s::bigint[]) WITH ORDINALITY AS f(source, predecessor, slot)
), followed AS (
    SELECT f.slot, e.id AS edge_id, e.target_id, e.layers, e.shared_entities, e.shared_themes,
           p.weight_present, k.emotion, c.cosine,
           row_number() OVER (PARTITION BY f.slot ORDER BY {order}, e.id) AS n
      FROM frontier f
      JOIN {edge} e ON e.mind_id = %(mind_id)s AND e.source_id = f.source
      JOIN {presence} p ON p.knot_id = e.target_id AND p.is_active
      JOIN {knot} k ON k.id = e.target_id,
      LATERAL (SELECT 1 - (k.embedding <=> %(vector)s::vector) AS cosine) c
     WHERE f.predecessor IS NULL OR e.target_id <> f.predecessor
)
SELECT slot, edge_id, target_id, layers, shared_entities, shared_themes, weight_present, emotion, cosine
  FROM followed
 WHERE n <= %(k)s
 ORDER BY slot, n
"""
# The edges a frontier entry follows: the seed's strongest by weight_anchor; the relevance
# ranking's by weight_anchor × the target's cosine to the query (query-aware spreading).
_SHELL_ORDER = {
    constants.RANKING_SEED: "e.weight_anchor DESC",
    constants.RANKING_RELEVANCE: "e.weight_anchor * greatest(c.cosine, 0) DESC",
}
# One shell's statement by ranking.
SHELL_SQL: Mapping[str, str] = {
    ranking: _SHELL.format(order=order, **TABLES) for ranking, order in _SHELL_ORDER.items()
}

# --- the answer ---------------------------------------------------------------------------------

# The result knots' fields, their linked memories (oldest link first), whether their memory's
# current content is held by another knot, the names of their entities (in their order, an id
# with no entity left out) and, the same on every row, the names of the entities the paths
# share. One hand-written statement: compiling the ORM's equivalent (an ArraySubquery, an Exists,
# a second query for the names) cost more than running it.
DETAILS_SQL = """
SELECT k.id, k.memory_id, k.content, k.themes, k.emotion, k.observer, k.created_at,
       ARRAY(SELECT l.memory_id FROM {link} l WHERE l.knot_id = k.id ORDER BY l.created_at, l.id) AS linked,
       EXISTS(SELECT 1 FROM {link} l
               WHERE l.mind_id = k.mind_id AND l.memory_id = k.memory_id AND l.content_hash = m.content_hash
                 AND l.knot_id <> k.id) AS superseded,
       ARRAY(SELECT e.name FROM unnest(k.entities) WITH ORDINALITY AS x(id, n)
               JOIN {entity} e ON e.id = x.id AND e.mind_id = k.mind_id ORDER BY x.n) AS entity_names,
       (SELECT coalesce(jsonb_object_agg(e.id, e.name), '{{}}') FROM {entity} e
         WHERE e.mind_id = %(mind_id)s AND e.id = ANY(%(path_entities)s::bigint[])) AS path_names
  FROM {knot} k JOIN {memory} m ON m.id = k.memory_id
 WHERE k.mind_id = %(mind_id)s AND k.id = ANY(%(ids)s::bigint[])
""".format(**TABLES)  # noqa: S608 — only table names are formatted in
