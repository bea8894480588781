"""The vector plan: how one search of a mind finds its nearest rows, for memories and the net alike.

A small mind is scanned exactly (every distance of its rows, through a mind index, sorted); a
mind above settings.SYNAPSE_EXACT_SCAN_MAX_ROWS goes through the shared HNSW index with
pgvector's iterative scan, whose candidate list and scan bound are set for the transaction
(docs/search.md, "The vector half"). Every search of the project chooses and runs its plan with
what is here, so the choice, the order that forces it and the settings are written once:

    VectorPlan                  the two plans
    plan_for(rows)              the plan of a mind holding `rows` rows (counted up to the bound + 1)
    exact_scan_probe()          how far a count must go to decide (the bound + 1)
    distance_orders(column)     the ORDER BY of each plan for a vector column (built at import)
    HNSW_SETTINGS_COLUMNS       the transaction's HNSW settings as columns of a SELECT
    HNSW_SETTINGS_SQL           … as a statement of their own, sent in one message with a search
    hnsw_settings(candidates)   their values for a search that wants `candidates` rows
    under_hnsw_settings(sql)    a search as the second statement of a message that sets them first
    rows_under_hnsw_settings()  that message's rows (one round trip)
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from django.conf import settings

# pgvector's maximum hnsw.ef_search (rows): the HNSW scan's candidate list.
HNSW_MAX_EF_SEARCH = 1000
# Tuples an iterative HNSW scan may visit per candidate wanted before it stops (tuples): with
# pgvector's own default of 20,000 as the floor, enough for a mind holding ≥ 0.25 % of the
# table, whatever `limit` asks.
HNSW_SCAN_TUPLES_PER_CANDIDATE = 400
HNSW_MIN_MAX_SCAN_TUPLES = 20_000


class VectorPlan(StrEnum):
    """How one vector search of a mind finds its nearest rows."""

    EXACT = "exact"  # every distance of the mind's rows, sorted: exact by construction
    HNSW = "hnsw"  # the shared HNSW index, iterative scan in relaxed order, re-sorted afterwards


def exact_scan_probe() -> int:
    """Rows a count of the mind must reach to tell the plans apart: the exact-scan bound + 1."""
    return settings.SYNAPSE_EXACT_SCAN_MAX_ROWS + 1


def plan_for(rows: int) -> VectorPlan:
    """EXACT for a mind of at most SYNAPSE_EXACT_SCAN_MAX_ROWS rows (a count up to
    exact_scan_probe() is enough), else HNSW."""
    return VectorPlan.EXACT if rows <= settings.SYNAPSE_EXACT_SCAN_MAX_ROWS else VectorPlan.HNSW


def distance_orders(column: str) -> Mapping[VectorPlan, str]:
    """The ORDER BY of a nearest-rows search on `column` under each plan (the query vector is the
    parameter %(vector)s). The exact plan orders by the distance plus zero, an expression the
    HNSW index cannot deliver, so PostgreSQL computes every distance of the rows a mind index
    finds and sorts them; the HNSW plan orders by the distance alone, so the index delivers the
    rows — in relaxed order, so every caller re-sorts them. For statement mappings built at
    import, never per call."""
    distance = f"{column} <=> %(vector)s::vector"
    return {VectorPlan.EXACT: f"({distance}) + 0", VectorPlan.HNSW: distance}


# This transaction's HNSW settings as columns of a SELECT (set_config(…, true) is SET LOCAL: they
# end with the transaction), with the parameters of hnsw_settings(); every vector search of the
# project sets them so. The settings only matter when the HNSW plan runs; a plan statement that
# counts the mind sets them always and stays one statement.
HNSW_SETTINGS_COLUMNS = """set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true)"""

# The same settings as a statement of their own, sent in one message with the search it is for
# ("settings;\nsearch", one execute, then cursor.nextset()). PostgreSQL runs the statements of
# one message (the simple query protocol) as one transaction, or inside the open one: the
# settings hold for the search, and no round trip is spent on them. That takes Django's
# client-side binding (its default with psycopg 3): with server-side binding one execute could
# not hold two statements.
HNSW_SETTINGS_SQL = "SELECT " + HNSW_SETTINGS_COLUMNS


def hnsw_settings(candidates: int, *, ef_search_floor: int | None = None) -> dict[str, str]:
    """hnsw.* settings of a search that wants `candidates` rows (values as set_config takes them):
    a candidate list of at least `ef_search_floor` (memories' recall setting,
    settings.SYNAPSE_HNSW_EF_SEARCH, when None) and `candidates`, at most pgvector's maximum."""
    floor = settings.SYNAPSE_HNSW_EF_SEARCH if ef_search_floor is None else ef_search_floor
    ef_search = min(max(floor, candidates), HNSW_MAX_EF_SEARCH)
    max_scan_tuples = max(HNSW_MIN_MAX_SCAN_TUPLES, HNSW_SCAN_TUPLES_PER_CANDIDATE * candidates)
    return {"ef_search": str(ef_search), "max_scan_tuples": str(max_scan_tuples)}


def under_hnsw_settings(sql: str) -> str:
    """`sql` as the second statement of a message whose first sets the HNSW settings
    (HNSW_SETTINGS_SQL): for statement mappings built at import, never per call."""
    return HNSW_SETTINGS_SQL + ";\n" + sql


def rows_under_hnsw_settings(
    cursor, message: str, params: Mapping[str, object], hnsw: Mapping[str, str]
) -> list[tuple]:
    """The rows of a message built by under_hnsw_settings(), run with the settings `hnsw`
    (hnsw_settings()): one round trip for the settings and the search."""
    cursor.execute(message, {**params, **hnsw})
    cursor.nextset()
    return cursor.fetchall()
