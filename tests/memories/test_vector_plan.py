"""A mind's vector search among many minds: the exact scan of a small mind, the HNSW index with
iterative scans for a large one, both returning the mind's exact nearest memories in distance order."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.embedders import get_embedder
from memories.models import Memory, Source
from memories.selectors import search, vector_plan
from memories.services.memory import memory_build
from minds.services import mind_create

pytestmark = pytest.mark.django_db

# Minds sharing the table besides the searched one, and memories per mind (rows).
OTHER_MINDS = 10
MEMORIES_PER_MIND = 80
# A query no memory's text contains, so hybrid search's text list stays empty.
QUERY = "qqzzxx vortex"
# Spread of the memories' vectors around the query's (every one stays above the hashing
# embedder's 0.15 search floor: their similarities fall between about 0.4 and 0.95).
NOISE = 0.045


def _similar_memories(mind, count: int, rng: np.random.Generator) -> list[Memory]:
    """`count` memories of `mind` whose vectors scatter around the query's vector."""
    query_vector = get_embedder().embed([QUERY])[0]
    now = timezone.now()
    memories = []
    for index in range(count):
        memory = memory_build(
            mind=mind, fields={"category": "fact", "content": f"stored note {index}"}, key=f"note_{index}",
            source=Source.AGENT, speaker=None, turn_id="", created_at=now, updated_at=now,
        )  # fmt: skip
        vector = query_vector + rng.normal(0.0, NOISE, query_vector.shape).astype(np.float32)
        memory.embedding = vector / np.linalg.norm(vector)
        memories.append(memory)
    return Memory.objects.bulk_create(memories)


@pytest.fixture
def crowded(mind, outsider):
    """The searched mind and ten others of the same size with vectors near the same query."""
    rng = np.random.default_rng(20261201)
    mine = _similar_memories(mind.mind, MEMORIES_PER_MIND, rng)
    for index in range(OTHER_MINDS):
        other, _ = mind_create(owner=outsider.user, name=f"neighbour {index}")
        _similar_memories(other, MEMORIES_PER_MIND, rng)
    return mind, mine


def _exact_nearest(memories: list[Memory], k: int) -> list[tuple[str, float]]:
    """The k nearest of `memories` to the query, computed here in numpy: (id, cosine distance)."""
    query_vector = get_embedder().embed([QUERY])[0].astype(np.float64)
    distances = [(memory.pk, 1.0 - float(np.dot(np.asarray(memory.embedding, dtype=np.float64), query_vector)))
                 for memory in memories]  # fmt: skip
    return sorted(distances, key=lambda pair: (pair[1], pair[0]))[:k]


@pytest.fixture(params=[vector_plan.VectorPlan.EXACT, vector_plan.VectorPlan.HNSW])
def plan(request, settings):
    """Run the test with each plan: the exact-scan bound moved so that the mind falls on that side."""
    bound = 10 * MEMORIES_PER_MIND * (OTHER_MINDS + 1) if request.param == vector_plan.VectorPlan.EXACT else 0
    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = bound
    with connection.cursor() as cursor:
        # A table of 880 rows is small enough that PostgreSQL would sort rather than walk the
        # HNSW graph; without sorts it walks the graph wherever the SQL lets it.
        cursor.execute("SET LOCAL enable_sort = off")
    return request.param


def _plan_of_last_vector_query(captured, marker: str) -> str:
    """EXPLAIN of the captured statement containing `marker`, run again in a transaction with the
    captured vector-plan statement first (it sets the HNSW settings)."""
    [setup] = [query["sql"] for query in captured if "set_config('hnsw.iterative_scan'" in query["sql"]]
    [statement] = [query["sql"] for query in captured if marker in query["sql"] and "set_config" not in query["sql"]]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(setup)
        cursor.execute("EXPLAIN " + statement)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_semantic_search_of_a_mind_among_ten_similar_minds_returns_its_exact_top_ten_in_order(crowded, plan):
    mind, mine = crowded
    with CaptureQueriesContext(connection) as captured:
        hits = search.memories_semantic_search(mind_id=mind.mind.pk, q=QUERY, limit=10, threshold=0.0)
    expected = _exact_nearest(mine, 10)
    assert [hit.memory.pk for hit in hits] == [pk for pk, _ in expected]
    assert [1.0 - hit.similarity for hit in hits] == pytest.approx([distance for _, distance in expected], abs=1e-5)
    explained = _plan_of_last_vector_query(captured.captured_queries, '"memories_memory"."id" IN')
    assert ("memory_embedding_hnsw" in explained) == (plan == vector_plan.VectorPlan.HNSW)


def test_hybrid_searchs_vector_half_of_a_mind_among_ten_similar_minds_is_its_exact_top_fifty(crowded, plan):
    mind, mine = crowded
    with CaptureQueriesContext(connection) as captured:
        hits = search.memories_search(mind_id=mind.mind.pk, q=QUERY, limit=50)
    # No memory's text matches, so the fused list is the vector list in its own order.
    assert {hit.matched for hit in hits} == {("vector",)}
    assert [hit.memory.pk for hit in hits] == [pk for pk, _ in _exact_nearest(mine, 50)]
    explained = _plan_of_last_vector_query(captured.captured_queries, "UNION ALL")
    assert ("memory_embedding_hnsw" in explained) == (plan == vector_plan.VectorPlan.HNSW)


def test_a_mind_up_to_the_bound_is_scanned_exactly_and_one_row_more_uses_the_index(mind, other_mind, settings):
    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = 5
    rng = np.random.default_rng(7)
    _similar_memories(other_mind.mind, 20, rng)  # another mind's rows never count
    [first, *_] = _similar_memories(mind.mind, 5, rng)
    with transaction.atomic():
        assert search.vector_plan(mind_id=mind.mind.pk, candidates=10) == vector_plan.VectorPlan.EXACT
    Memory.objects.filter(pk=first.pk).update(key="renamed")  # an update is no new row
    with transaction.atomic():
        assert search.vector_plan(mind_id=mind.mind.pk, candidates=10) == vector_plan.VectorPlan.EXACT
    _similar_memories(mind.mind, 1, rng)
    with transaction.atomic():
        assert search.vector_plan(mind_id=mind.mind.pk, candidates=10) == vector_plan.VectorPlan.HNSW


def _hnsw_settings() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN "
            "('hnsw.iterative_scan', 'hnsw.ef_search', 'hnsw.max_scan_tuples')"
        )
        return dict(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
def test_the_hnsw_settings_of_a_search_end_with_its_transaction(mind, settings):
    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = 0
    settings.SYNAPSE_HNSW_EF_SEARCH = 200
    _similar_memories(mind.mind, 3, np.random.default_rng(3))
    before = _hnsw_settings()
    assert before["hnsw.iterative_scan"] == "off"  # pgvector's default, so the test can see a change
    with transaction.atomic():
        search.vector_plan(mind_id=mind.mind.pk, candidates=50)
        assert _hnsw_settings() == {
            "hnsw.iterative_scan": "relaxed_order",
            "hnsw.ef_search": "200",
            "hnsw.max_scan_tuples": "20000",
        }
    assert _hnsw_settings() == before
    assert search.memories_semantic_search(mind_id=mind.mind.pk, q=QUERY, limit=10, threshold=0.0)
    assert search.memories_search(mind_id=mind.mind.pk, q=QUERY, limit=10)
    assert _hnsw_settings() == before


def test_a_large_limit_lets_the_hnsw_scan_visit_more_tuples_and_candidates(settings):
    # ef_search follows the candidates wanted up to pgvector's maximum; max_scan_tuples grows with
    # them from pgvector's own default of 20,000.
    settings.SYNAPSE_HNSW_EF_SEARCH = 200
    assert vector_plan.hnsw_settings(10) == {"ef_search": "200", "max_scan_tuples": "20000"}
    assert vector_plan.hnsw_settings(500) == {"ef_search": "500", "max_scan_tuples": "200000"}
    assert vector_plan.hnsw_settings(5000) == {"ef_search": "1000", "max_scan_tuples": "2000000"}
