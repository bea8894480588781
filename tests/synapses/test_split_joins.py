"""`manage.py rebuild_magnets` splits what the old match test merged: a memory joined to a knot
that states another fact is promoted again (its own knot and edges, or the knot of its fact),
a paraphrase stays joined, a reactivation the join caused is taken back, and a second run
changes nothing (synapses/promotion/split.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from pipelinelog.models import LogEntry
from synapses.models import Edge, Knot, KnotPresence, LinkKind, MemoryKnot
from synapses.net.presence import knot_half_reactivate
from synapses.promotion.knots import link_create
from synapses.promotion.split import mind_joins_split
from tests.factories import knot_make, memory_make

pytestmark = pytest.mark.django_db

ALLERGIC = "Alice is allergic to peanuts."
NOT_ALLERGIC = "Alice is not allergic to peanuts."
PARAPHRASE = "alice is allergic to peanuts"  # the same fact in other capitals, no full stop
ROOM_4 = "The meeting is in room 4."
ROOM_7 = "The meeting is in room 7."


def _knot_of(mind, key: str, content: str, **presence) -> Knot:
    """A memory promoted into a knot of its own, with its origin link, at its content's vector."""
    memory = memory_make(mind=mind, key=key, content=content, embedded=True)
    return knot_make(memory=memory, embedding=memory.embedding, linked=True, **presence)


def _joined(mind, key: str, content: str, knot: Knot, *, at, kind=LinkKind.DUPLICATE):
    """A memory linked to `knot` as the old match test did (cosine alone), by promotion's own link."""
    memory = memory_make(mind=mind, key=key, content=content, embedded=True)
    link_create(memory, knot.pk, kind, at)
    return memory


def _links(mind) -> dict[str, tuple[int, str]]:
    return dict(
        (memory_id, (knot_id, kind))
        for memory_id, knot_id, kind in MemoryKnot.objects.filter(mind=mind).values_list("memory_id", "knot_id", "kind")
    )


def _net(mind) -> tuple[set, set, dict]:
    knots = set(Knot.objects.filter(mind=mind).values_list("pk", "memory_id", "content"))
    edges = set(Edge.objects.filter(mind=mind).values_list("source_id", "target_id", "layer_count"))
    presences = dict(KnotPresence.objects.filter(mind=mind).values_list("knot_id", "is_active"))
    return knots, edges, {"links": _links(mind), "presences": presences}


def test_a_contradicting_join_gets_its_own_knot_a_paraphrase_stays_joined(mind):
    now = timezone.now()
    allergic = _knot_of(mind.mind, "allergy", ALLERGIC)
    negated = _joined(mind.mind, "allergy_update", NOT_ALLERGIC, allergic, at=now - timedelta(hours=3))
    same = _joined(mind.mind, "allergy_again", PARAPHRASE, allergic, at=now - timedelta(hours=2))
    room = _knot_of(mind.mind, "room", ROOM_4)
    moved = _joined(mind.mind, "room_update", ROOM_7, room, at=now - timedelta(hours=2))
    # The same new fact again, joined later: it belongs with the first "room 7", not with "room 4".
    again = _joined(mind.mind, "room_update_again", ROOM_7, room, at=now - timedelta(hours=1))
    assert Knot.objects.filter(mind=mind.mind).count() == 2
    assert not Edge.objects.filter(mind=mind.mind).exists()

    call_command("rebuild_magnets", mind=mind.mind.pk, verbosity=0)

    knots = {knot.memory_id: knot for knot in Knot.objects.filter(mind=mind.mind)}
    assert set(knots) == {allergic.memory_id, negated.pk, room.memory_id, moved.pk}  # two knots each
    assert knots[negated.pk].content == NOT_ALLERGIC and knots[moved.pk].content == ROOM_7
    links = _links(mind.mind)
    assert links[negated.pk] == (knots[negated.pk].pk, LinkKind.ORIGIN)  # moved to its own knot
    assert links[moved.pk] == (knots[moved.pk].pk, LinkKind.ORIGIN)
    assert links[again.pk] == (knots[moved.pk].pk, LinkKind.DUPLICATE)  # with its fact
    assert links[same.pk] == (allergic.pk, LinkKind.DUPLICATE)  # a paraphrase stays joined
    assert links[allergic.memory_id] == (allergic.pk, LinkKind.ORIGIN)
    # The new knots formed their edges: each with the knot it contradicts (near, same words).
    for new, old in ((knots[negated.pk], allergic), (knots[moved.pk], room)):
        assert Edge.objects.filter(mind=mind.mind, source=new, target=old).exists()
        assert Edge.objects.filter(mind=mind.mind, source=old, target=new).exists()
        assert KnotPresence.objects.get(knot=new).is_active

    splits = LogEntry.objects.filter(node="synapses.promotion.split", kind="decision").order_by("id")
    assert [(row.content["kind"], row.content["newer"]) for row in splits] == [
        ("negation", ["negated"]),
        ("number", ["7"]),
        ("number", ["7"]),
    ]
    outcomes = LogEntry.objects.filter(node="synapses.promotion.split", kind="output").order_by("id")
    assert [row.content["promotion"] for row in outcomes] == ["created", "created", "duplicate"]

    before = _net(mind.mind)
    call_command("rebuild_magnets", mind=mind.mind.pk, verbosity=0)  # nothing left to split
    assert _net(mind.mind) == before
    assert LogEntry.objects.filter(node="synapses.promotion.split", kind="decision").count() == 3


def test_a_reactivation_by_a_contradicting_memory_is_taken_back(mind):
    earlier = timezone.now() - timedelta(days=30)
    knot = _knot_of(mind.mind, "room", ROOM_4, is_active=False, created_at=earlier)
    presence = KnotPresence.objects.select_related("knot").get(knot=knot)
    at = timezone.now() - timedelta(hours=1)
    knot_half_reactivate(presence=presence, now=at)  # what the old promotion did on the join
    moved = _joined(mind.mind, "room_update", ROOM_7, knot, at=at, kind=LinkKind.REACTIVATED)
    weights = Knot.objects.filter(pk=knot.pk).values_list("weight_raw", "weight_anchor", "activation_count").get()

    call_command("rebuild_magnets", mind=mind.mind.pk, verbosity=0)

    assert not KnotPresence.objects.get(knot=knot).is_active  # inactive again, as before the join
    assert Knot.objects.filter(pk=knot.pk).values_list("weight_raw", "weight_anchor", "activation_count").get() == (
        weights
    )
    own = Knot.objects.get(mind=mind.mind, memory_id=moved.pk)
    assert _links(mind.mind)[moved.pk] == (own.pk, LinkKind.ORIGIN)


def test_a_reactivation_renewed_since_is_left_to_its_knot(mind):
    """A use after the join renewed the knot on its own account: only the link moves."""
    knot = _knot_of(mind.mind, "room", ROOM_4, is_active=False)
    presence = KnotPresence.objects.select_related("knot").get(knot=knot)
    at = timezone.now() - timedelta(hours=1)
    knot_half_reactivate(presence=presence, now=at)
    moved = _joined(mind.mind, "room_update", ROOM_7, knot, at=at, kind=LinkKind.REACTIVATED)
    KnotPresence.objects.filter(knot=knot).update(reinforced_at=at + timedelta(minutes=5))

    call_command("rebuild_magnets", mind=mind.mind.pk, verbosity=0)

    assert KnotPresence.objects.get(knot=knot).is_active
    assert Knot.objects.filter(mind=mind.mind, memory_id=moved.pk).exists()


def test_no_split_leaves_the_joins(mind):
    allergic = _knot_of(mind.mind, "allergy", ALLERGIC)
    negated = _joined(mind.mind, "allergy_update", NOT_ALLERGIC, allergic, at=timezone.now())
    call_command("rebuild_magnets", mind=mind.mind.pk, no_split=True, verbosity=0)
    assert Knot.objects.filter(mind=mind.mind).count() == 1
    assert _links(mind.mind)[negated.pk] == (allergic.pk, LinkKind.DUPLICATE)


def test_the_split_itself_forms_the_new_knots_edges_and_counts(mind):
    """Before the magnets pass rebuilds the mind's edges: the new knot's come from its promotion."""
    allergic = _knot_of(mind.mind, "allergy", ALLERGIC)
    negated = _joined(mind.mind, "allergy_update", NOT_ALLERGIC, allergic, at=timezone.now())
    _joined(mind.mind, "allergy_again", PARAPHRASE, allergic, at=timezone.now())

    summary = mind_joins_split(mind_id=mind.mind.pk)

    assert (summary.joins, summary.split, summary.created, summary.rejoined, summary.left) == (2, 1, 1, 0, 0)
    new = Knot.objects.get(mind=mind.mind, memory_id=negated.pk)
    assert Edge.objects.filter(mind=mind.mind, source=new, target=allergic).exists()
    assert summary.pairs_written == Edge.objects.filter(mind=mind.mind, source=new).count() >= 1
    assert mind_joins_split(mind_id=mind.mind.pk).split == 0


def test_a_memory_promotion_would_not_take_stays_joined(mind):
    """An expired memory is never promoted: its split rolls back, the link is where it was."""
    allergic = _knot_of(mind.mind, "allergy", ALLERGIC)
    past = timezone.now() - timedelta(days=1)
    expired = memory_make(mind=mind.mind, key="allergy_update", content=NOT_ALLERGIC, embedded=True, expires_at=past)
    link_create(expired, allergic.pk, LinkKind.DUPLICATE, past)

    summary = mind_joins_split(mind_id=mind.mind.pk)

    assert (summary.split, summary.left) == (0, 1)
    assert _links(mind.mind)[expired.pk] == (allergic.pk, LinkKind.DUPLICATE)
    assert Knot.objects.filter(mind=mind.mind).count() == 1
