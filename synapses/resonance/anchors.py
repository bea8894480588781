"""The anchors of a resonance (shell 0): the mind's active knots found by the query itself, by a
fusion of full-text rank and cosine (docs/synapse-model.md §5, "Anchors").

The statements (synapses.resonance.sql): the count of the mind's active knots up to the
exact-scan bound, which picks the vector plan (none for a mind this process found above the
bound in the last NET_FACTS_SECONDS; for such a mind, once per NET_FACTS_SECONDS, its common
lexemes from the table's statistics), then the anchor candidates, both lists in one statement (a
large mind's HNSW settings travel in the same message).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from django.conf import settings
from django.db import connection
from django.utils import timezone

from memories.fusion import Ranked, rrf_fuse
from memories.selectors.search import tsquery_params
from memories.selectors.vector_plan import VectorPlan
from pipelinelog.spans import current_span
from synapses import constants
from synapses.config import synapse_settings
from synapses.net.selectors.candidates import knot_vector_plan, rows_under_net_hnsw_settings, vector_literal
from synapses.net.tables import TABLES
from synapses.resonance import sql
from synapses.resonance.pending import PENDING_KEY, PendingMemory, PendingRow, pending_memory, stand_in_id

# --- what this process knows of each net --------------------------------------------------------


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


def text_array(values: list[str]) -> str:
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
        cursor.execute(sql.LEXEME_ESTIMATES_SQL, {"mind_id": mind_id})
        common = text_array([lexeme for lexeme, n in cursor.fetchall() if n > term_matches])
    _NET_FACTS.common[key] = (now + constants.NET_FACTS_SECONDS, common)
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
        _NET_FACTS.above_bound[key] = now + constants.NET_FACTS_SECONDS
    return plan


# --- the two lists ------------------------------------------------------------------------------


class AnchorRow(NamedTuple):
    """One row of the anchors statement: a knot one of the lists found."""

    knot_id: int
    found_by: str  # "text" | "vector"
    score: float  # ts_rank_cd (text) or cosine distance (vector)
    cosine: float
    weight_present: float
    emotion: str
    created_at: float  # seconds since the epoch: a float costs far less to read than a datetime


def anchor_rows(*, mind_id: str, q: str, vector: np.ndarray, candidates: int) -> list[tuple]:
    """Both anchor lists of the mind's active knots, `candidates` each, as the statement's rows
    (AnchorRow's fields, in its order): anchor_and_pending_rows without the pending memories."""
    return anchor_and_pending_rows(mind_id=mind_id, q=q, vector=vector, candidates=candidates)[0]


def anchor_and_pending_rows(
    *, mind_id: str, q: str, vector: np.ndarray, candidates: int
) -> tuple[list[tuple], list[tuple]]:
    """Both anchor lists of the mind's active knots, `candidates` each, as the statement's rows
    (AnchorRow's fields, in its order), and the same two lists of the mind's pending memories
    (synapses.resonance.pending.PendingRow's fields), the second result of the same message.

    One round trip for a mind this process knows above the exact-scan bound (the HNSW settings
    and the lists in one message), one more to count a mind's knots otherwise (_vector_plan)
    and, once per NET_FACTS_SECONDS, one to read a large mind's common lexemes."""
    text_params = tsquery_params(q)
    term_matches = constants.TEXT_TERM_MATCHES
    params = {
        "mind_id": mind_id,
        "vector": vector_literal(vector),
        "candidates": candidates,
        "term_matches": term_matches,
        "now": timezone.now(),
        **text_params,
    }
    plan = _vector_plan(mind_id, candidates)
    if plan == VectorPlan.HNSW:
        params["common"] = _common_lexemes(mind_id, term_matches)
    statement = sql.ANCHORS_SQL[plan, sql.text_list_of(plan, excluding=bool(text_params["excluded"]))]
    with connection.cursor() as cursor:
        if plan == VectorPlan.EXACT:
            cursor.execute(statement, params)
            rows = cursor.fetchall()
        else:
            # The net's own HNSW settings (ef_search = the rows wanted), not memories' recall setting.
            rows = rows_under_net_hnsw_settings(cursor, statement, params, candidates=candidates)
        pending = cursor.fetchall() if cursor.nextset() else []
    current_span().db_read(
        {"table": TABLES["knot"], "operation": "anchors", "vector_plan": str(plan), "candidates": len(rows),
         "pending": len(pending)}
    )  # fmt: skip
    return rows, pending


# --- sizes and fusion ---------------------------------------------------------------------------


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
    return AnchorSizes(wanted=wanted, per_list=constants.ANCHOR_MIN_CANDIDATES)


@dataclass(frozen=True)
class AnchorCandidate:
    knot_id: int  # a pending memory's stand-in id (negative) when `pending` is set
    cosine: float
    text_match: bool
    weight_present: float
    emotion: str
    score: float  # the fused score (reciprocal rank over the text and the vector list)
    pending: PendingMemory | None = None  # a memory not yet promoted (synapses.resonance.pending)


def anchor_candidates(*, mind_id: str, q: str, vector: np.ndarray, sizes: AnchorSizes) -> list[AnchorCandidate]:
    """The mind's active knots and pending memories by fusion (reciprocal rank) of full-text rank
    and cosine, best first, at most `sizes.wanted`, each with cosine ≥ the anchor floor or a
    full-text match; each list (of knots, of pending memories) brings `sizes.fetched`, and a
    pending memory's rows join the knots' lists by their score. The statements of
    anchor_and_pending_rows."""
    floor = synapse_settings.ANCHOR_FLOOR
    # Each candidate's first row by its key (a knot's id, a pending memory's PENDING_KEY + id).
    found: dict[str, AnchorRow | PendingRow] = {}
    text_matches: set[str] = set()
    # (score, tie-break, key): equal scores in knot id order, pending memories after the knots.
    text_list: list[tuple[float, tuple, str]] = []
    vector_list: list[tuple[float, tuple, str]] = []
    knot_rows, pending_rows = anchor_and_pending_rows(mind_id=mind_id, q=q, vector=vector, candidates=sizes.fetched)
    rows = [(str(row.knot_id), (0, row.knot_id, ""), row) for row in map(AnchorRow._make, knot_rows)]
    rows += [(PENDING_KEY + row.memory_id, (1, 0, row.memory_id), row) for row in map(PendingRow._make, pending_rows)]
    for key, tie, row in rows:
        found.setdefault(key, row)
        if row.found_by == "text":
            text_matches.add(key)
            text_list.append((-row.score, tie, key))
        elif row.cosine is not None and row.cosine >= floor:
            vector_list.append((row.score, tie, key))
    fused = rrf_fuse(
        {
            "text": [Ranked(key, found[key].created_at) for _, _, key in sorted(text_list)],
            "vector": [Ranked(key, found[key].created_at) for _, _, key in sorted(vector_list)],
        }
    )
    candidates = []
    for hit in fused[: sizes.wanted]:
        row = found[hit.id]
        if isinstance(row, PendingRow):
            memory = pending_memory(row)
            candidate = AnchorCandidate(
                knot_id=stand_in_id(len(candidates)), cosine=float(row.cosine or 0.0),
                text_match=hit.id in text_matches, weight_present=memory.weight_present, emotion=row.emotion,
                score=hit.score, pending=memory,
            )  # fmt: skip
        else:
            candidate = AnchorCandidate(
                knot_id=row.knot_id, cosine=float(row.cosine), text_match=hit.id in text_matches,
                weight_present=row.weight_present, emotion=row.emotion, score=hit.score,
            )  # fmt: skip
        candidates.append(candidate)
    return candidates
