"""Quality checks next to the latency numbers: does the mind's vector search (the product's own
selector, whichever plan it chooses) find the same nearest memories as an exact scan?"""

from __future__ import annotations

from bench.corpus import search_queries

# hnsw.ef_search values compared; 40 is pgvector's default.
EF_SEARCH_VALUES = (40, 100, 200)
# Queries averaged over.
RECALL_QUERIES = 50


def _nearest_ids(mind_id: str, q: str, k: int, *, ef_search: int, exact: bool) -> tuple[list[str], str]:
    """The ids semantic search returns for `q` at `ef_search`, and the plan it chose; `exact`
    forces the exact scan of the mind's rows (the reference)."""
    from django.conf import settings
    from django.db import transaction
    from django.test import override_settings

    from memories.selectors import search

    bound = 10**9 if exact else settings.SYNAPSE_EXACT_SCAN_MAX_ROWS
    with override_settings(SYNAPSE_HNSW_EF_SEARCH=ef_search, SYNAPSE_EXACT_SCAN_MAX_ROWS=bound):
        hits = search.memories_semantic_search(mind_id=mind_id, q=q, limit=k, threshold=-1.0)
        with transaction.atomic():
            plan = search.vector_plan(mind_id=mind_id, candidates=k)
    return [hit.memory.pk for hit in hits], plan.value


def hnsw_recall(*, mind_id: str, seed: int, k: int) -> dict:
    """Recall@k of the mind's semantic search per ef_search, against the exact scan, and whether
    the selector used the HNSW index (it does for minds above its exact-scan bound)."""
    queries = search_queries(RECALL_QUERIES, seed=seed)
    found = {ef: 0 for ef in EF_SEARCH_VALUES}
    total = 0
    uses_index = {}
    for q in queries:
        exact, _ = _nearest_ids(mind_id, q, k, ef_search=EF_SEARCH_VALUES[0], exact=True)
        total += len(exact)
        for ef in EF_SEARCH_VALUES:
            ids, plan = _nearest_ids(mind_id, q, k, ef_search=ef, exact=False)
            found[ef] += len(set(ids) & set(exact))
            uses_index[ef] = plan == "hnsw"
    return {
        "k": k,
        "queries": len(queries),
        "recall_by_ef_search": {str(ef): round(found[ef] / total, 4) if total else None for ef in EF_SEARCH_VALUES},
        "hnsw_index_used_by_ef_search": {str(ef): used for ef, used in uses_index.items()},
    }
