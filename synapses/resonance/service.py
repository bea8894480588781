"""Recall with resonance: what the query brings up from the long-term net (docs/synapse-model.md §5, §8).

Passive: nothing here writes a weight. The statements of one call, whatever the size of the net
or the number of results (tests/synapses/test_resonance_service.py pins them):

1. the active goals (gravity; skipped when the factor is 0),
2. the count of the mind's active knots up to the exact-scan bound, which picks the vector plan
   (none for a mind this process found above the bound in the last NET_FACTS_SECONDS; for such
   a mind, once per NET_FACTS_SECONDS, its common lexemes from the table's statistics),
3. the anchor candidates: full-text and vector lists in one statement (a large mind's HNSW
   settings travel in the same message),
4. one statement per shell of spreading activation (a window function picks each frontier
   entry's top edges),
5. the resulting knots with their memory links, the superseded flag and the entity names.

The arithmetic (ranking, dedup, gravity, modes, the text) is in the pure `synapses.resonance`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from django.conf import settings
from django.db import connection

from memories.embedders import get_embedder
from memories.fusion import Ranked, rrf_fuse
from memories.models import Memory
from memories.selectors.search import tsquery_alternatives_sql, tsquery_sql
from memories.selectors.vector_plan import VectorPlan, distance_orders, under_hnsw_settings
from memoryproject.domain import ValidationFailed
from minds.models import Mind
from pipelinelog.spans import current_span, span
from synapses import constants
from synapses.config import setting
from synapses.models import Entity, Goal, Knot, KnotPresence, MemoryKnot
from synapses.net.selectors.candidates import knot_vector_plan, rows_under_net_hnsw_settings, vector_literal
from synapses.resonance.arithmetic import (
    GravityShift,
    Mode,
    RankedKnot,
    Reached,
    ResonanceLine,
    Step,
    fan_out,
    gravity_shift,
    mode_of,
    modes_with_overrides,
    ranked,
    ranked_by_relevance,
    spread_activation,
    unknown_mode_message,
)

# The key of a mind's settings that holds its mode overrides ({name: {hop_depth, gravity_factor}}).
MIND_MODES_SETTING = "modes"
# Anchor candidates each list (text, vector) brings before fusion, at least (knots): the
# anchors plus enough further ones to fill a `limit` spreading could not.
ANCHOR_MIN_CANDIDATES = 20

_KNOT = Knot._meta.db_table
_PRESENCE = KnotPresence._meta.db_table
_LINK = MemoryKnot._meta.db_table
_ENTITY = Entity._meta.db_table
_MEMORY = Memory._meta.db_table

# The vector list's order under each plan (vector_plan.distance_orders; the HNSW plan's relaxed
# order is re-sorted in Python).
_ORDER = distance_orders("k.embedding")

# Both anchor lists of the mind's active knots, with what ranking needs of each candidate.
_ANCHORS_SQL = """
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

# The text list: every full-text match of the mind ranked by ts_rank_cd (a query that excludes
# words) ...
_TEXT_ALL = """text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, ({tsquery}))::float8 AS score
      FROM {knot} k JOIN {presence} p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s AND k.search_vector @@ ({tsquery})
     ORDER BY score DESC, k.id
     LIMIT %(candidates)s
)"""
# ... or, for a query of alternatives (plain words and phrases OR-ed), the matches of each term
# counted up to TEXT_TERM_MATCHES, the union ranked by ts_rank_cd of the whole query. A term a
# large share of the mind holds (a speaker's name, "like") would make every match of the mind be
# read and ranked (23,000 of 100,000 knots, 1.2 s); its first matches stand in for the rest,
# while every match of a rarer term is ranked. No term reaches the bound in a mind of a few
# thousand knots, so there the list is the same as ranking every match.
_TEXT_BY_TERM = """query AS MATERIALIZED (
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
"""
# Matches of one query term that the text list reads at most (knots): see _TEXT_BY_TERM.
TEXT_TERM_MATCHES = 300

# ... and in a mind above the exact-scan bound (the HNSW plan), where a common term's GIN bitmap
# is what costs: the index is on (mind, search_vector), and a bitmap scan reads every entry of
# each key it is given, the mind's (all its knots) and the term's (every knot holding it), before
# LIMIT can stop anything (at 100,000 knots 12 to 46 ms per common term, 1.5 ms even for a term
# of 1,500 knots). So the mind's common lexemes come first from the table's statistics
# (_LEXEME_ESTIMATES_SQL, read once per process and mind for NET_FACTS_SECONDS): a term whose
# estimated matches in the mind exceed TEXT_TERM_MATCHES is common (the `common` parameter), and
# its matches are not read; every other term is rare, and all rare terms go into one bitmap scan
# (the mind's entry read once), up to TEXT_TERM_MATCHES per rare term. The candidates ranked by
# ts_rank_cd of the whole query are the rare terms' matches and the vector list's knots that
# match the query at all, so a common term still weighs in the ranking and in which of the
# vector list's knots are text matches. Without statistics (a table not analysed yet, a mind
# too small a share to be listed) no term is common.
_TEXT_LARGE = """query AS MATERIALIZED (
    SELECT q, {alternatives} AS alternatives FROM (SELECT ({tsquery}) AS q) AS built
), rare AS MATERIALIZED (
    SELECT string_agg(t, ' | ')::tsquery AS q, count(*) AS terms
      FROM query, regexp_split_to_table(query.alternatives::text, ' [|] ') AS t
     WHERE query.alternatives::text <> '' AND btrim(t, '''') <> ALL(%(common)s::text[])
), matched AS (
    (SELECT k.id FROM rare, query, {knot} k
      WHERE rare.terms > 0 AND k.mind_id = %(mind_id)s AND k.search_vector @@ rare.q {exclusion}
      LIMIT %(term_matches)s * (SELECT terms FROM rare))
    UNION
    SELECT n.id FROM nearest n JOIN {knot} k ON k.id = n.id, query WHERE k.search_vector @@ query.q
"""
# A query that excludes words (`-word`) splits its alternatives alone (its words and phrases,
# tsquery_alternatives_sql) into terms, and a rare term's match is kept only if it matches the
# whole query (holds none of the excluded words). That test is a filter on the rows the rare
# terms' bitmap brings, never an index condition (IS TRUE): the whole query holds the common
# terms too, whose postings are what the rare-term scan avoids reading. Before, such a query
# ranked every match of the mind (1,467 knots and 8,314 buffers for `chess -Thursday`).
_TEXT_LARGE_EXCLUSION = "AND (k.search_vector @@ query.q) IS TRUE"
# Each lexeme of the table's statistics (the most common ones ANALYZE keeps for
# `search_vector`, with the share of knots holding each) and its estimated matches in the mind
# (that share × the mind's share of the table × the table's knots). No rows without statistics.
# Read in the statement itself it cost ~5 ms per call at 100,000 knots (the view's arrays
# detoasted and cast) and ~1 ms of planning; the statistics change only on ANALYZE.
_LEXEME_ESTIMATES_SQL = f"""
WITH statistics AS (
    SELECT max(s.most_common_elems::text) FILTER (WHERE s.attname = 'search_vector')::text[] AS lexemes,
           max(s.most_common_elem_freqs::text) FILTER (WHERE s.attname = 'search_vector')::real[] AS freqs,
           coalesce(max(s.most_common_freqs[array_position(s.most_common_vals::text::text[], %(mind_id)s)])
                      FILTER (WHERE s.attname = 'mind_id'), 0)
           * greatest((SELECT c.reltuples FROM pg_class c WHERE c.oid = '{_KNOT}'::regclass), 0) AS knots
      FROM pg_stats s
     WHERE s.schemaname = current_schema() AND s.tablename = '{_KNOT}' AND s.attname IN ('search_vector', 'mind_id')
)
SELECT x.lexeme, x.freq * statistics.knots
  FROM statistics, unnest(statistics.lexemes, statistics.freqs[1:cardinality(statistics.lexemes)]) AS x(lexeme, freq)
 WHERE x.lexeme IS NOT NULL
"""  # noqa: S608 — only the table name is formatted in
# Seconds one process keeps what it read of a mind's net for the anchors statement (the lexeme
# estimates above, and that the mind is above the exact-scan bound) before reading it again.
# Both change only by ANALYZE or by the mind's knots growing past the bound, or shrinking back
# (a memory deleted, a sweep): a stale fact changes which common terms are read or which vector
# plan runs for that long, both plans and both term sets still returning matches of the query.
NET_FACTS_SECONDS = 60.0


@dataclass
class _NetFacts:
    """What this process read of each mind's net, each fact with the monotonic time it expires."""

    above_bound: dict[tuple[str, int], float] = field(default_factory=dict)  # (mind, bound) → expiry
    # (mind, term bound) → (expiry, the common lexemes as one text[] literal)
    common: dict[tuple[str, int], tuple[float, str]] = field(default_factory=dict)

    def forget(self) -> None:
        self.above_bound.clear()
        self.common.clear()


_NET_FACTS = _NetFacts()


def net_facts_forget() -> None:
    """Drop what this process remembers of every net (tests that ANALYZE or resize a mind)."""
    _NET_FACTS.forget()


def _text_array(values: list[str]) -> str:
    """`values` as PostgreSQL's text form of a text[] (each element double-quoted, `\\` and `"`
    escaped): one string parameter instead of an array adapted element by element on every call
    (~500 lexemes at 100,000 knots)."""
    return "{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


def _common_lexemes(mind_id: str, term_matches: int) -> str:
    """The lexemes estimated in more than `term_matches` of the mind's knots, as a text[] literal
    (one statement when this process has not read them in NET_FACTS_SECONDS, else none)."""
    now = time.monotonic()
    key = (mind_id, term_matches)
    cached = _NET_FACTS.common.get(key)
    if cached is not None and cached[0] > now:
        return cached[1]
    with connection.cursor() as cursor:
        cursor.execute(_LEXEME_ESTIMATES_SQL, {"mind_id": mind_id})
        common = _text_array([lexeme for lexeme, n in cursor.fetchall() if n > term_matches])
    _NET_FACTS.common[key] = (now + NET_FACTS_SECONDS, common)
    return common


def _vector_plan(mind_id: str, candidates: int) -> VectorPlan:
    """The plan of the anchors' vector half: HNSW, without a statement, for a mind this process
    found above the exact-scan bound in the last NET_FACTS_SECONDS; else the mind's active knots
    counted up to the bound (2.2 ms at 100,000 knots). The count's own HNSW settings are not
    relied on: anchor_rows sends them with the lists."""
    key = (mind_id, settings.SYNAPSE_EXACT_SCAN_MAX_ROWS)
    now = time.monotonic()
    if _NET_FACTS.above_bound.get(key, 0.0) > now:
        return VectorPlan.HNSW
    plan = knot_vector_plan(mind_id=mind_id, candidates=candidates).vector_plan
    if plan == VectorPlan.HNSW:
        _NET_FACTS.above_bound[key] = now + NET_FACTS_SECONDS
    return plan


# The end of both bounded text lists (_TEXT_BY_TERM and _TEXT_LARGE end with their `matched`
# knots): the active ones, ranked by ts_rank_cd of the whole query.
_RANKED_MATCHES = """), text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, query.q)::float8 AS score
      FROM matched JOIN {knot} k ON k.id = matched.id JOIN {presence} p ON p.knot_id = k.id AND p.is_active,
           query
     ORDER BY score DESC, k.id
     LIMIT %(candidates)s
)"""

# One shell of spreading activation: every frontier entry (a knot and the knot it came from)
# follows its top-k outgoing edges, never back to its predecessor, never to an inactive knot.
# Entries are numbered (slot), so a knot reached by two paths spreads twice, each path with its
# own lock. Each target comes with its cosine to the search vector; `order` picks the edges.
_SHELL_SQL = f"""
WITH frontier AS (
    SELECT source, predecessor, slot
      FROM unnest(%(sources)s::bigint[], %(predecessors)s::bigint[]) WITH ORDINALITY AS f(source, predecessor, slot)
), followed AS (
    SELECT f.slot, e.id AS edge_id, e.target_id, e.layers, e.shared_entities, e.shared_themes,
           p.weight_present, k.emotion, c.cosine,
           row_number() OVER (PARTITION BY f.slot ORDER BY {{order}}, e.id) AS n
      FROM frontier f
      JOIN synapses_edge e ON e.mind_id = %(mind_id)s AND e.source_id = f.source
      JOIN {_PRESENCE} p ON p.knot_id = e.target_id AND p.is_active
      JOIN {_KNOT} k ON k.id = e.target_id,
      LATERAL (SELECT 1 - (k.embedding <=> %(vector)s::vector) AS cosine) c
     WHERE f.predecessor IS NULL OR e.target_id <> f.predecessor
)
SELECT slot, edge_id, target_id, layers, shared_entities, shared_themes, weight_present, emotion, cosine
  FROM followed
 WHERE n <= %(k)s
 ORDER BY slot, n
"""  # noqa: S608 — only table names are formatted in
# The edges a frontier entry follows: the seed's strongest by weight_anchor; the relevance
# ranking's by weight_anchor × the target's cosine to the query (query-aware spreading).
_SHELL_ORDER = {
    constants.RANKING_SEED: "e.weight_anchor DESC",
    constants.RANKING_RELEVANCE: "e.weight_anchor * greatest(c.cosine, 0) DESC",
}


def mind_modes(mind: Mind) -> tuple[dict[str, Mode], dict[str, str]]:
    """The modes this mind knows (the defaults with its overrides) and the overrides left out."""
    return modes_with_overrides((mind.settings or {}).get(MIND_MODES_SETTING))


def mode_resolve(mind: Mind, name: str) -> Mode:
    """The mind's mode called `name` (empty: `default`); ValidationFailed listing the known ones."""
    modes, _ = mind_modes(mind)
    mode = mode_of(name, modes)
    if mode is None:
        raise ValidationFailed({"mode": [unknown_mode_message(name, modes)]})
    return mode


# --- search vector -----------------------------------------------------------------------------

# The mind's active goals embedded by the current embedder, oldest first. Hand-written: building
# the ORM's query cost more than running it (the vector as real[], which psycopg reads as floats).
_GOALS_SQL = f"""
SELECT id, embedding::real[], motivation FROM {Goal._meta.db_table}
 WHERE mind_id = %(mind_id)s AND active AND embedding IS NOT NULL AND embedding_model = %(model)s
 ORDER BY id
"""  # noqa: S608 — only the table name is formatted in


def search_vector(*, mind: Mind, q: str, mode: Mode, intent: str) -> GravityShift:
    """The embedding of `q` bent by the mind's active goals (perception gravity), with exactly
    one `calculation` log row saying what gravity did."""
    embedder = get_embedder()
    raw = embedder.embed([q])[0]
    raw_intent = intent.strip().lower() in constants.RAW_SEARCH_INTENTS
    goals: list[tuple[int, Any, float]] = []
    if not raw_intent and mode.gravity_factor > 0:
        with connection.cursor() as cursor:
            cursor.execute(_GOALS_SQL, {"mind_id": mind.pk, "model": embedder.name})
            goals = [
                (goal_id, np.asarray(vector, dtype=np.float64), motivation)
                for goal_id, vector, motivation in cursor.fetchall()
            ]
    shift = gravity_shift(
        raw, goals, factor=mode.gravity_factor, raw_intent=raw_intent, threshold=setting("GRAVITY_THRESHOLD")
    )
    current_span().calculation(
        {"calculation": "perception_gravity", "mode": mode.name, "mode_factor": mode.gravity_factor, **shift.as_log()}
    )
    return shift


# --- anchors -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnchorCandidate:
    knot_id: int
    cosine: float
    text_match: bool
    weight_present: float
    emotion: str
    score: float  # the fused score (reciprocal rank over the text and the vector list)


def _text_list(plan: VectorPlan, *, q: str, excluding: bool) -> str:
    """The text list's SQL (still to be formatted with the tsquery and the tables): in a large
    mind (the HNSW plan) the rare terms' matches up to a bound, those holding an excluded word
    left out; in a smaller one every match ranked for a query that excludes words, else each
    term's matches up to a bound."""
    if plan == VectorPlan.HNSW:
        alternatives = f"({tsquery_alternatives_sql(q)})" if excluding else "q"
        exclusion = _TEXT_LARGE_EXCLUSION if excluding else ""
        return _TEXT_LARGE.replace("{alternatives}", alternatives).replace("{exclusion}", exclusion) + _RANKED_MATCHES
    if excluding:
        return _TEXT_ALL
    return _TEXT_BY_TERM + _RANKED_MATCHES


def anchor_rows(*, mind_id: str, q: str, vector: np.ndarray, candidates: int) -> list[tuple]:
    """Both anchor lists of the mind's active knots, `candidates` each: rows (knot id, found_by
    "text" | "vector", ts_rank_cd or cosine distance, cosine, weight_present, emotion, created_at
    in seconds since the epoch: a float costs far less to read than a datetime).

    One round trip for a mind this process knows above the exact-scan bound (the HNSW settings
    and the lists in one message), one more to count a mind's knots otherwise (_vector_plan)
    and, once per NET_FACTS_SECONDS, one to read a large mind's common lexemes."""
    tsquery, text_params = tsquery_sql(q)
    params = {
        "mind_id": mind_id,
        "vector": vector_literal(vector),
        "candidates": candidates,
        "term_matches": TEXT_TERM_MATCHES,
        **text_params,
    }
    plan = _vector_plan(mind_id, candidates)
    excluding = bool(text_params.get("excluded"))
    if plan == VectorPlan.HNSW:
        params["common"] = _common_lexemes(mind_id, TEXT_TERM_MATCHES)
    text = _text_list(plan, q=q, excluding=excluding)
    text = text.format(tsquery=tsquery, knot=_KNOT, presence=_PRESENCE)
    sql = _ANCHORS_SQL.format(text=text, knot=_KNOT, presence=_PRESENCE, order=_ORDER[plan])
    if plan == VectorPlan.EXACT:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
    else:
        # The net's own HNSW settings (ef_search = the rows wanted), not memories' recall setting.
        with connection.cursor() as cursor:
            rows = rows_under_net_hnsw_settings(cursor, under_hnsw_settings(sql), params, candidates=candidates)
    current_span().db_read({"table": _KNOT, "operation": "anchors", "vector_plan": str(plan), "candidates": len(rows)})
    return rows


class AnchorSizes(NamedTuple):
    """How many anchor candidates a resonance weighs (`wanted`, after fusion) and how many each
    list brings at least (`per_list`)."""

    wanted: int
    per_list: int

    @property
    def fetched(self) -> int:
        """Rows each anchor list fetches (anchor_rows' `candidates`), and its HNSW scan as many."""
        return max(self.wanted, self.per_list)


def anchor_list_sizes(*, limit: int, relevance: bool) -> AnchorSizes:
    """The anchor sizes of a resonance of `limit` items. "relevance" ranking weighs two lists of
    RELEVANCE_MIN_CANDIDATES (at least `limit` each); "seed" ranking wants ANCHOR_COUNT
    candidates beyond the list it may have to fill."""
    if relevance:
        per_list = max(limit, constants.RELEVANCE_MIN_CANDIDATES)
        return AnchorSizes(wanted=2 * per_list, per_list=per_list)
    wanted = max(limit, constants.ANCHOR_COUNT) + constants.ANCHOR_COUNT
    return AnchorSizes(wanted=wanted, per_list=ANCHOR_MIN_CANDIDATES)


def anchor_candidates(*, mind_id: str, q: str, vector: np.ndarray, sizes: AnchorSizes) -> list[AnchorCandidate]:
    """The mind's active knots by fusion (reciprocal rank) of full-text rank and cosine, best
    first, at most `sizes.wanted`, each with cosine ≥ the anchor floor or a full-text match; each
    list brings `sizes.fetched`. The statements of anchor_rows."""
    floor = setting("ANCHOR_FLOOR")
    rows = anchor_rows(mind_id=mind_id, q=q, vector=vector, candidates=sizes.fetched)
    by_id: dict[int, dict[str, Any]] = {}
    text_list: list[tuple[float, int]] = []
    vector_list: list[tuple[float, int]] = []
    for knot_id, found_by, score, cosine, present, emotion, created_at in rows:
        entry = by_id.setdefault(
            knot_id,
            {"cosine": float(cosine), "text": False, "present": present, "emotion": emotion, "at": created_at},
        )
        if found_by == "text":
            entry["text"] = True
            text_list.append((-score, knot_id))
        elif cosine >= floor:
            vector_list.append((score, knot_id))
    fused = rrf_fuse(
        {
            "text": [Ranked(str(pk), by_id[pk]["at"]) for _, pk in sorted(text_list)],
            "vector": [Ranked(str(pk), by_id[pk]["at"]) for _, pk in sorted(vector_list)],
        }
    )
    return [
        AnchorCandidate(
            knot_id=int(hit.id),
            cosine=by_id[int(hit.id)]["cosine"],
            text_match=by_id[int(hit.id)]["text"],
            weight_present=by_id[int(hit.id)]["present"],
            emotion=by_id[int(hit.id)]["emotion"],
            score=hit.score,
        )
        for hit in fused[: sizes.wanted]
    ]


# --- spreading activation ----------------------------------------------------------------------


def spread(
    *, mind_id: str, anchors: list[Reached], hop_depth: int, vector: np.ndarray, ranking: str = constants.RANKING_SEED
) -> list[Reached]:
    """Every knot reached from the anchors in up to `hop_depth` shells (duplicates included;
    ranking dedups them), each entry with the activation it carries (spread_activation). One
    statement per shell that has a frontier."""
    pool: list[Reached] = []
    frontier = anchors
    sql = _SHELL_SQL.format(order=_SHELL_ORDER[ranking])
    literal = vector_literal(vector)
    for shell in range(1, min(hop_depth, constants.MAX_HOP_DEPTH) + 1):
        if not frontier:
            break
        with connection.cursor() as cursor:
            cursor.execute(
                sql,
                {
                    "mind_id": mind_id,
                    "sources": [r.knot_id for r in frontier],
                    "predecessors": [r.predecessor for r in frontier],
                    "k": fan_out(shell),
                    "vector": literal,
                },
            )
            rows = cursor.fetchall()
        following: list[Reached] = []
        for slot, edge_id, target, layers, shared_entities, shared_themes, present, emotion, cosine in rows:
            origin = frontier[slot - 1]
            step = Step(
                from_knot_id=origin.knot_id,
                edge_id=edge_id,
                layers=tuple(layers),
                shared_entities=tuple(shared_entities),
                shared_themes=tuple(shared_themes),
            )
            activation = spread_activation(origin.activation, shell, float(cosine))
            following.append(
                origin.then(step, knot_id=target, weight_present=present, emotion=emotion, activation=activation)
            )
        pool.extend(following)
        frontier = following
    return pool


# --- the answer --------------------------------------------------------------------------------


# The result knots' fields, their linked memories (oldest link first), whether their memory's
# current content is held by another knot, the names of their entities (in their order, an id
# with no entity left out) and, the same on every row, the names of the entities the paths
# share. One hand-written statement: compiling the ORM's equivalent (an ArraySubquery, an Exists,
# a second query for the names) cost more than running it.
_DETAILS_SQL = f"""
SELECT k.id, k.memory_id, k.content, k.themes, k.emotion, k.observer, k.created_at,
       ARRAY(SELECT l.memory_id FROM {_LINK} l WHERE l.knot_id = k.id ORDER BY l.created_at, l.id) AS linked,
       EXISTS(SELECT 1 FROM {_LINK} l
               WHERE l.mind_id = k.mind_id AND l.memory_id = k.memory_id AND l.content_hash = m.content_hash
                 AND l.knot_id <> k.id) AS superseded,
       ARRAY(SELECT e.name FROM unnest(k.entities) WITH ORDINALITY AS x(id, n)
               JOIN {_ENTITY} e ON e.id = x.id AND e.mind_id = k.mind_id ORDER BY x.n) AS entity_names,
       (SELECT coalesce(jsonb_object_agg(e.id, e.name), '{{}}') FROM {_ENTITY} e
         WHERE e.mind_id = %(mind_id)s AND e.id = ANY(%(path_entities)s::bigint[])) AS path_names
  FROM {_KNOT} k JOIN {_MEMORY} m ON m.id = k.memory_id
 WHERE k.mind_id = %(mind_id)s AND k.id = ANY(%(ids)s::bigint[])
"""  # noqa: S608 — only table names are formatted in
_DETAIL_FIELDS = ("id", "memory_id", "content", "themes", "emotion", "observer", "created_at", "linked", "superseded",
                  "entity_names")  # fmt: skip


def _knot_details(
    mind_id: str, knot_ids: list[int], path_entities: set[int]
) -> tuple[dict[int, dict[str, Any]], dict[int, str]]:
    """The result knots' fields by id (with their linked memories, the superseded flag and their
    entities' names), and the names of `path_entities`. One statement, none for no knots."""
    if not knot_ids:
        return {}, {}
    with connection.cursor() as cursor:
        cursor.execute(_DETAILS_SQL, {"mind_id": mind_id, "ids": knot_ids, "path_entities": sorted(path_entities)})
        rows = cursor.fetchall()
    details = {row[0]: dict(zip(_DETAIL_FIELDS, row[:-1], strict=True)) for row in rows}
    names = {int(entity_id): name for entity_id, name in json.loads(rows[0][-1]).items()} if rows else {}
    return details, names


def _item(knot: RankedKnot, details: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    reached = knot.reached
    memory_ids = [details["memory_id"], *dict.fromkeys(m for m in details["linked"] if m != details["memory_id"])]
    return {
        "rank": knot.rank,
        "knot_id": reached.knot_id,
        "memory_id": details["memory_id"],
        "memory_ids": memory_ids,
        "content": details["content"],
        "themes": list(details["themes"]),
        "entities": list(details["entity_names"]),
        "emotion": details["emotion"],
        "observer": details["observer"],
        "created_at": details["created_at"],
        "weight_present": reached.weight_present,
        "shell": reached.shell,
        "rank_weight": knot.rank_weight,
        "superseded": details["superseded"],
        "path": [
            {
                "from_knot_id": step.from_knot_id,
                "edge_id": step.edge_id,
                "layers": list(step.layers),
                "shared_entities": [names[e] for e in step.shared_entities if e in names],
                "shared_themes": list(step.shared_themes),
            }
            for step in reached.path
        ],
    }


def resonance_of(
    *, mind: Mind, q: str, mode: str = "", intent: str = "", mood: str = "", limit: int, ranking: str | None = None
) -> dict[str, Any]:
    """GET /synapses/resonance: the mind's knots resonating with `q`, strongest first (§5.6).

    `limit` knots whenever the net holds that many active knots that are anchor candidates or
    reachable from the anchors. `ranking` (default: the RESONANCE_RANKING setting): "relevance"
    weighs every anchor candidate and every knot spreading reached by the query
    (ranked_by_relevance); "seed" ranks the anchors and their spread by presence, and further
    anchor candidates (shell 0, no path) only fill the list when spreading yields fewer. Raises
    ValidationFailed for an unknown mode. One pipeline-log span `synapses.resonance` records the
    search vector, anchors, shells, paths, factors and the outcome.
    """
    chosen = mode_resolve(mind, mode)
    ranking = ranking or setting("RESONANCE_RANKING")
    relevance = ranking == constants.RANKING_RELEVANCE
    with span("synapses.resonance", mind=mind) as log:
        log.input({"q": q[:200], "mode": chosen.name, "intent": intent, "mood": mood, "limit": limit,
                   "ranking": ranking})  # fmt: skip
        shift = search_vector(mind=mind, q=q, mode=chosen, intent=intent)
        sizes = anchor_list_sizes(limit=limit, relevance=relevance)
        candidates = anchor_candidates(mind_id=mind.pk, q=q, vector=shift.vector, sizes=sizes)
        as_reached = [
            Reached(
                knot_id=c.knot_id,
                shell=0,
                weight_present=c.weight_present,
                emotion=c.emotion,
                activation=c.score if relevance else 0.0,
            )
            for c in candidates
        ]
        anchors, reserve = as_reached[: constants.ANCHOR_COUNT], as_reached[constants.ANCHOR_COUNT :]
        log.decision(
            {
                "decision": "anchors",
                "anchors": [
                    {"knot_id": c.knot_id, "cosine": round(c.cosine, 6), "text_match": c.text_match,
                     "score": round(c.score, 6)}
                    for c in candidates[: constants.ANCHOR_COUNT]
                ],
                "floor": setting("ANCHOR_FLOOR"),
                "candidates": len(candidates),
            }
        )  # fmt: skip
        reached = spread(
            mind_id=mind.pk, anchors=anchors, hop_depth=chosen.hop_depth, vector=shift.vector, ranking=ranking
        )
        pool = [*anchors, *reached]
        if relevance:
            own = {c.knot_id: c.score for c in candidates}
            result = ranked_by_relevance([*as_reached, *reached], own=own, mood=mood, limit=limit)
            anchor_ids = {r.knot_id for r in anchors}
            filled = sum(1 for k in result if k.reached.shell == 0 and k.reached.knot_id not in anchor_ids)
        else:
            distinct = {r.knot_id for r in pool}
            fill = [r for r in reserve if r.knot_id not in distinct][: max(0, limit - len(distinct))]
            result = ranked([*pool, *fill], mood=mood, limit=limit)
            filled = len(fill)
        path_entities = {e for k in result for step in k.reached.path for e in step.shared_entities}
        details, names = _knot_details(mind.pk, [k.reached.knot_id for k in result], path_entities)
        items = [_item(k, details[k.reached.knot_id], names) for k in result if k.reached.knot_id in details]
        log.output(
            {
                "outcome": "resonance" if items else ("empty" if anchors else "no_anchor"),
                "ranking": ranking,
                "shells": {str(s): sum(1 for r in pool if r.shell == s) for s in range(chosen.hop_depth + 1)},
                "filled": filled,
                "items": [
                    {"knot_id": i["knot_id"], "shell": i["shell"], "rank_weight": round(i["rank_weight"], 6),
                     "path": [step["edge_id"] for step in i["path"]]}
                    for i in items
                ],
            }
        )  # fmt: skip
    return {
        "anchor_count": len(anchors),
        "hop_depth": chosen.hop_depth,
        "mode": chosen.name,
        "mood": mood,
        "ranking": ranking,
        "gravity": {"factor": shift.factor, "cosine_to_raw": shift.cosine_to_raw, "outcome": shift.outcome},
        "items": items,
    }


def resonance_lines(items: list[dict[str, Any]]) -> list[ResonanceLine]:
    """The recall text's view of resonance items (strongest first), names already resolved."""
    return [
        ResonanceLine(
            content=item["content"],
            observer=item["observer"],
            emotion=item["emotion"],
            layers_by_step=[step["layers"] for step in item["path"]],
            entity_names_by_step=[step["shared_entities"] for step in item["path"]],
            themes_by_step=[step["shared_themes"] for step in item["path"]],
            superseded=item["superseded"],
        )
        for item in items
    ]
