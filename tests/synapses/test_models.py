"""The net's tables against the real database: cascades, uniqueness, checks, composite references."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from memories.models import Memory, PendingPromotion
from synapses.models import Edge, Entity, Goal, Knot, KnotPresence, LinkKind, MemoryKnot
from tests.factories import knot_make, memory_make

pytestmark = pytest.mark.django_db


def edge_make(source: Knot, target: Knot, **fields) -> Edge:
    defaults = {"weight_raw": 1.0, "weight_anchor": 3.9552, "layers": ["entity"], "layer_count": 1}
    return Edge.objects.create(mind=source.mind, source=source, target=target, **(defaults | fields))


def link_make(memory: Memory, knot: Knot, kind: str) -> MemoryKnot:
    return MemoryKnot.objects.create(
        mind=memory.mind, memory=memory, content_hash=memory.content_hash, knot=knot, kind=kind
    )


def test_deleting_a_memory_deletes_its_knots_their_presence_and_their_edges(mind):
    gone, kept = memory_make(mind=mind.mind, key="gone"), memory_make(mind=mind.mind, key="kept")
    gone_knot, kept_knot = knot_make(memory=gone), knot_make(memory=kept)
    edge_make(gone_knot, kept_knot)
    edge_make(kept_knot, gone_knot)
    link_make(gone, gone_knot, LinkKind.ORIGIN)

    gone.delete()

    assert not Knot.objects.filter(pk=gone_knot.pk).exists()
    assert not KnotPresence.objects.filter(knot_id=gone_knot.pk).exists()
    assert Edge.objects.count() == 0
    assert MemoryKnot.objects.count() == 0
    assert Knot.objects.filter(pk=kept_knot.pk).exists()


def test_a_memory_linked_as_duplicate_returns_to_pending_when_its_knot_goes(mind):
    original = memory_make(mind=mind.mind, key="original", content="Anna likes tea")
    twin = memory_make(mind=mind.mind, key="twin", content="Anna likes tea.")
    knot = knot_make(memory=original)
    link_make(original, knot, LinkKind.ORIGIN)
    link_make(twin, knot, LinkKind.DUPLICATE)
    assert not PendingPromotion.objects.filter(memory_id__in=[original.pk, twin.pk]).exists()

    original.delete()

    assert not MemoryKnot.objects.filter(memory=twin).exists()
    assert list(PendingPromotion.objects.values_list("memory_id", "content_hash")) == [(twin.pk, twin.content_hash)]


def test_losing_the_link_of_an_earlier_version_leaves_the_current_one_promoted(mind):
    memory = memory_make(mind=mind.mind, key="edited", content="version two")
    other = memory_make(mind=mind.mind, key="other", content="version one")
    link_make(memory, knot_make(memory=memory), LinkKind.ORIGIN)
    knot = knot_make(memory=other)
    MemoryKnot.objects.create(mind=mind.mind, memory=memory, content_hash="0" * 64, knot=knot, kind=LinkKind.DUPLICATE)
    assert not PendingPromotion.objects.filter(memory=memory).exists()

    other.delete()

    assert MemoryKnot.objects.filter(memory=memory).count() == 1
    assert not PendingPromotion.objects.filter(memory=memory).exists()


def test_one_memory_version_cannot_get_two_knots(mind):
    memory = memory_make(mind=mind.mind, key="once")
    knot_make(memory=memory)
    with pytest.raises(IntegrityError), transaction.atomic():
        knot_make(memory=memory)


def test_one_memory_version_cannot_link_twice(mind):
    memory = memory_make(mind=mind.mind, key="once")
    knot = knot_make(memory=memory)
    link_make(memory, knot, LinkKind.ORIGIN)
    with pytest.raises(IntegrityError), transaction.atomic():
        link_make(memory, knot, LinkKind.DUPLICATE)


def test_an_edge_pair_is_written_once_per_direction(mind):
    a, b = (
        knot_make(memory=memory_make(mind=mind.mind, key="a")),
        knot_make(memory=memory_make(mind=mind.mind, key="b")),
    )
    edge_make(a, b)
    edge_make(b, a)
    with pytest.raises(IntegrityError), transaction.atomic():
        edge_make(a, b)


def test_an_edge_from_a_knot_to_itself_is_refused_by_the_database(mind):
    a = knot_make(memory=memory_make(mind=mind.mind, key="a"))
    with pytest.raises(IntegrityError, match="edge_no_self_loop"), transaction.atomic():
        edge_make(a, a)


def test_entity_names_are_unique_per_mind_whatever_their_case(mind, other_mind):
    Entity.objects.create(mind=mind.mind, name="Anna")
    Entity.objects.create(mind=other_mind.mind, name="anna")  # another mind may know its own Anna
    with pytest.raises(IntegrityError, match="entity_unique_mind_lower_name"), transaction.atomic():
        Entity.objects.create(mind=mind.mind, name="ANNA")


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO synapses_edge (mind_id, source_id, target_id, weight_raw, weight_anchor, layers,"
        " shared_entities, shared_themes, layer_count, created_at)"
        " VALUES (%(other)s, %(a)s, %(b)s, 1, 1, '{entity}', '{}', '{}', 1, now())",
        "UPDATE synapses_knotpresence SET mind_id = %(other)s WHERE knot_id = %(a)s",
        "INSERT INTO synapses_memoryknot (mind_id, memory_id, content_hash, knot_id, kind, created_at)"
        " VALUES (%(other)s, %(memory)s, 'x', %(a)s, 'duplicate', now())",
    ],
    ids=["edge", "presence", "memory link"],
)
def test_a_row_naming_a_knot_of_another_mind_is_refused_by_the_database(mind, other_mind, sql):
    memory = memory_make(mind=mind.mind, key="a")
    a, b = knot_make(memory=memory), knot_make(memory=memory_make(mind=mind.mind, key="b"))
    params = {"other": other_mind.mind.pk, "a": a.pk, "b": b.pk, "memory": memory.pk}
    with pytest.raises(IntegrityError, match="_fk"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_the_presence_table_leaves_half_of_every_page_free(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'synapses_knotpresence'")
        assert cursor.fetchone()[0] == ["fillfactor=50"]


def test_a_goals_motivation_stays_between_0_and_1(mind):
    Goal.objects.create(mind=mind.mind, statement="finish the book", motivation=1.0)
    with pytest.raises(IntegrityError, match="goal_motivation_0_1"), transaction.atomic():
        Goal.objects.create(mind=mind.mind, statement="everything", motivation=1.5)


def test_deleting_a_mind_deletes_its_net(mind):
    a, b = (
        knot_make(memory=memory_make(mind=mind.mind, key="a")),
        knot_make(memory=memory_make(mind=mind.mind, key="b")),
    )
    edge_make(a, b)
    Entity.objects.create(mind=mind.mind, name="Anna")
    Goal.objects.create(mind=mind.mind, statement="rest", motivation=0.5)

    mind.mind.delete()

    assert (Knot.objects.count(), Edge.objects.count(), Entity.objects.count(), Goal.objects.count()) == (0, 0, 0, 0)
