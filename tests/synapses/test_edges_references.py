"""Edges carry only the composite (mind, knot) references in the database (synapses migration
0005): they refuse an edge to a missing knot and delete a knot's edges when the knot goes without
the ORM's cascades (the ORM's own cascades are tested in test_models)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from synapses.models import Edge
from tests.factories import knot_make, memory_make

pytestmark = pytest.mark.django_db

_EDGE_INSERT = (
    "INSERT INTO synapses_edge (mind_id, source_id, target_id, weight_raw, weight_anchor, layers,"
    " shared_entities, shared_themes, layer_count, created_at)"
    " VALUES (%(mind)s, %(source)s, %(target)s, 1, 1, '{entity}', '{}', '{}', 1, now())"
)


def _edge_sql(mind_id: str, source: int, target: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(_EDGE_INSERT, {"mind": mind_id, "source": source, "target": target})


def test_the_edge_tables_foreign_keys_are_the_two_composite_references_to_knots(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE conrelid = 'synapses_edge'::regclass AND contype = 'f' ORDER BY 1"
        )
        definitions = [row[0] for row in cursor.fetchall()]
    assert definitions == [
        "FOREIGN KEY (mind_id, source_id) REFERENCES synapses_knot(mind_id, id) ON DELETE CASCADE",
        "FOREIGN KEY (mind_id, target_id) REFERENCES synapses_knot(mind_id, id) ON DELETE CASCADE",
    ]


def test_deleting_a_knot_in_sql_deletes_the_edges_of_both_its_directions(mind):
    gone, kept, other = (knot_make(memory=memory_make(mind=mind.mind, key=key)) for key in ("gone", "kept", "other"))
    _edge_sql(mind.mind.pk, gone.pk, kept.pk)
    _edge_sql(mind.mind.pk, kept.pk, gone.pk)
    _edge_sql(mind.mind.pk, kept.pk, other.pk)

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM synapses_knot WHERE id = %s", [gone.pk])

    assert list(Edge.objects.values_list("source_id", "target_id")) == [(kept.pk, other.pk)]


@pytest.mark.parametrize("end", ["source", "target"])
def test_an_edge_to_a_knot_that_does_not_exist_is_refused_by_the_database(mind, end):
    knot = knot_make(memory=memory_make(mind=mind.mind, key="a"))
    missing = knot.pk + 1_000_000
    source, target = (missing, knot.pk) if end == "source" else (knot.pk, missing)
    with pytest.raises(IntegrityError, match=f"edge_mind_{end}_fk"), transaction.atomic():
        _edge_sql(mind.mind.pk, source, target)
