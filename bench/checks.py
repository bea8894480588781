"""Quality checks next to the latency numbers: does the HNSW scan, filtered by mind, find the
same nearest memories as an exact scan?"""

from __future__ import annotations

from bench.corpus import search_queries

# hnsw.ef_search values compared; 40 is pgvector's default.
EF_SEARCH_VALUES = (40, 100, 200)
# Queries averaged over.
RECALL_QUERIES = 50


def _nearest_ids(mind_id: str, vector, k: int, settings_sql: list[str]) -> tuple[list[str], str]:
    """The ids semantic search's vector query returns under `settings_sql`, and its query plan.

    /memory/search's vector branch is the same ORDER BY embedding <=> … LIMIT under the same
    mind and expiry filters, written in SQL (memories.selectors.search._CANDIDATES_SQL).
    """
    from django.db import connection, transaction
    from django.utils import timezone

    from memories.models import current_filter
    from memories.selectors.memory import memories_of
    from memories.selectors.search import nearest_queryset

    with transaction.atomic():
        with connection.cursor() as cursor:
            for statement in settings_sql:
                cursor.execute(statement)
        queryset = nearest_queryset(memories_of(mind_id).filter(current_filter(timezone.now())), vector, k)
        ids = [memory.pk for memory in queryset]
        sql, params = queryset.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
    return ids, plan


def hnsw_recall(*, mind_id: str, seed: int, k: int) -> dict:
    """Recall@k of the vector candidate query per ef_search, against an exact scan, and whether
    the planner used the HNSW index at all."""
    from memories.embedders import get_embedder

    embedder = get_embedder()
    queries = search_queries(RECALL_QUERIES, seed=seed)
    vectors = embedder.embed(queries)
    found = {ef: 0 for ef in EF_SEARCH_VALUES}
    total = 0
    uses_index = {}
    for vector in vectors:
        # Exact: no index scans, so PostgreSQL computes every distance of the mind and sorts.
        exact, _ = _nearest_ids(mind_id, vector, k, ["SET LOCAL enable_indexscan = off"])
        total += len(exact)
        for ef in EF_SEARCH_VALUES:
            ids, plan = _nearest_ids(mind_id, vector, k, [f"SET LOCAL hnsw.ef_search = {ef}"])
            found[ef] += len(set(ids) & set(exact))
            uses_index[ef] = "memory_embedding_hnsw" in plan
    return {
        "k": k,
        "queries": len(queries),
        "recall_by_ef_search": {str(ef): round(found[ef] / total, 4) if total else None for ef in EF_SEARCH_VALUES},
        "hnsw_index_used_by_ef_search": {str(ef): used for ef, used in uses_index.items()},
    }
