"""The statements of recall with resonance (synapses.resonance.sql): one anchors variant per plan
and kind of query, each run on PostgreSQL. Their texts are printed whole and pinned with every
other stage's statements by tests/test_statements.py (tests/golden/statements.sql).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from memories.embedders import get_embedder
from memories.models import Memory
from memories.selectors.search import tsquery_params
from memories.selectors.vector_plan import VectorPlan
from synapses.net.selectors.candidates import rows_under_net_hnsw_settings, vector_literal
from synapses.resonance import sql
from tests.factories import knot_make, memory_make
from tests.vectors import at_cosine_to_query, query_vector


def _variants() -> list[tuple[VectorPlan, sql.TextList]]:
    return sorted(sql.ANCHORS_SQL)


def test_the_anchors_statement_has_one_variant_per_plan_and_kind_of_query():
    assert set(sql.ANCHORS_SQL) == {
        (VectorPlan.EXACT, sql.TextList.EVERY_MATCH),
        (VectorPlan.EXACT, sql.TextList.PER_TERM),
        (VectorPlan.HNSW, sql.TextList.RARE_TERMS),
        (VectorPlan.HNSW, sql.TextList.RARE_TERMS_EXCLUDING),
    }
    for plan in VectorPlan:
        for excluding in (False, True):
            assert (plan, sql.text_list_of(plan, excluding=excluding)) in sql.ANCHORS_SQL


@pytest.mark.parametrize(("plan", "text_list"), _variants(), ids=lambda v: str(v))
def test_each_anchors_variant_runs_and_finds_a_knot_by_its_text_and_its_vector(mind, plan, text_list):
    # One knot holding the query's word, near the query; one far knot without it. Every variant
    # must find the first in both lists (an excluded word it does not hold leaves it in).
    q = "zebra -giraffe" if text_list in (sql.TextList.EVERY_MATCH, sql.TextList.RARE_TERMS_EXCLUDING) else "zebra"
    m = mind.mind
    near = knot_make(
        memory=memory_make(mind=m, content="a zebra at dusk", salience=0.7),
        embedding=at_cosine_to_query("zebra", 0.9, axis=1),
        presence=1.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    knot_make(
        memory=memory_make(mind=m, content="an old bicycle", salience=0.7),
        embedding=at_cosine_to_query("zebra", 0.1, axis=2),
        presence=1.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    # A pending memory holding the word, as near as the knot; one far and without it.
    waiting = memory_make(mind=m, content="the zebra crossed")
    Memory.objects.filter(pk=waiting.pk).update(embedding=at_cosine_to_query("zebra", 0.9, axis=3))
    memory_make(mind=m, content="a wooden spoon")
    params = {
        "mind_id": m.pk,
        "vector": vector_literal(query_vector("zebra")),
        "candidates": 1,
        "term_matches": 10,
        "common": "{}",
        "now": timezone.now(),
        **tsquery_params(q),
    }
    assert bool(params["excluded"]) == (text_list == sql.text_list_of(plan, excluding=True))
    with connection.cursor() as cursor:
        if plan == VectorPlan.EXACT:
            cursor.execute(sql.ANCHORS_SQL[plan, text_list], params)
            rows = cursor.fetchall()
        else:
            rows = rows_under_net_hnsw_settings(cursor, sql.ANCHORS_SQL[plan, text_list], params, candidates=1)
        # The message's last result: the same lists of the mind's pending memories.
        assert cursor.nextset()
        pending_rows = cursor.fetchall()
    assert sorted((knot_id, found_by) for knot_id, found_by, *_ in rows) == [(near.pk, "text"), (near.pk, "vector")]
    assert sorted((memory_id, found_by) for memory_id, found_by, *_ in pending_rows) == [
        (waiting.pk, "text"),
        (waiting.pk, "vector"),
    ]
