"""The statements of recall with resonance (synapses.resonance.sql): each anchors variant printed
whole and pinned, every statement free of format placeholders, each variant run on PostgreSQL.

The pinned texts are tests/synapses/golden/anchors/<plan>-<text list>.sql. A change to a statement
is a change to review: write the new text into its file (the failing test prints it whole) and
read the diff.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import connection

from memories.selectors.search import tsquery_params
from memories.selectors.vector_plan import VectorPlan
from synapses.net.selectors.candidates import rows_under_net_hnsw_settings, vector_literal
from synapses.resonance import sql
from tests.synapses.resonance_nets import knot_of, memory_of, query_vector, vector_at_cosine

GOLDEN = Path(__file__).parent / "golden" / "anchors"
# A `{name}` or `{}` left in a statement: a format pass that never ran.
_PLACEHOLDER = re.compile(r"\{\w*\}")


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
def test_each_anchors_variant_is_the_pinned_text(plan, text_list):
    statement = sql.ANCHORS_SQL[plan, text_list]
    print(f"--- anchors, {plan} plan, {text_list} text list ---\n{statement}")
    assert statement == (GOLDEN / f"{plan}-{text_list}.sql").read_text(encoding="utf-8")


def test_no_statement_of_the_stage_keeps_a_format_placeholder():
    statements = {
        "goals": sql.GOALS_SQL,
        "lexeme estimates": sql.LEXEME_ESTIMATES_SQL,
        "details": sql.DETAILS_SQL.replace("'{}'", "''"),  # the empty JSON object is a literal
        **{f"shell {ranking}": text for ranking, text in sql.SHELL_SQL.items()},
        **{f"anchors {plan} {text_list}": text for (plan, text_list), text in sql.ANCHORS_SQL.items()},
    }
    left = {name: _PLACEHOLDER.findall(text) for name, text in statements.items() if _PLACEHOLDER.search(text)}
    assert left == {}


@pytest.mark.parametrize(("plan", "text_list"), _variants(), ids=lambda v: str(v))
def test_each_anchors_variant_runs_and_finds_a_knot_by_its_text_and_its_vector(mind, plan, text_list):
    # One knot holding the query's word, near the query; one far knot without it. Every variant
    # must find the first in both lists (an excluded word it does not hold leaves it in).
    q = "zebra -giraffe" if text_list in (sql.TextList.EVERY_MATCH, sql.TextList.RARE_TERMS_EXCLUDING) else "zebra"
    m = mind.mind
    near = knot_of(memory_of(m, "a zebra at dusk"), embedding=vector_at_cosine("zebra", 0.9, axis=1), present=1.0)
    knot_of(memory_of(m, "an old bicycle"), embedding=vector_at_cosine("zebra", 0.1, axis=2), present=1.0)
    params = {
        "mind_id": m.pk,
        "vector": vector_literal(query_vector("zebra")),
        "candidates": 1,
        "term_matches": 10,
        "common": "{}",
        **tsquery_params(q),
    }
    assert bool(params["excluded"]) == (text_list == sql.text_list_of(plan, excluding=True))
    with connection.cursor() as cursor:
        if plan == VectorPlan.EXACT:
            cursor.execute(sql.ANCHORS_SQL[plan, text_list], params)
            rows = cursor.fetchall()
        else:
            rows = rows_under_net_hnsw_settings(cursor, sql.ANCHORS_SQL[plan, text_list], params, candidates=1)
    assert sorted((knot_id, found_by) for knot_id, found_by, *_ in rows) == [(near.pk, "text"), (near.pk, "vector")]
