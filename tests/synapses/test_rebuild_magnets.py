"""`manage.py rebuild_magnets`: knots promoted before entity discovery (with no entities) get the
names found in their content, recorded with their rule, and the edges join them; the mind's ignore
list and switch hold; one mind or every mind."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from synapses.models import Edge, Entity, Knot
from synapses.upkeep.discovery import discovery_update
from tests.factories import knot_make, memory_make

pytestmark = pytest.mark.django_db

OLD_NET = ["Anna works at Siemens.", "Siemens is headquartered in Munich.", "Buy bread on the way home."]


def _old_net(mind) -> list[Knot]:
    knots = []
    for number, content in enumerate(OLD_NET):
        memory = memory_make(mind=mind, key=f"old-{number}", content=content, embedded=True)
        knots.append(knot_make(memory=memory, content=content, linked=True))
    return knots


def _names(knot: Knot) -> set[str]:
    knot.refresh_from_db()
    return set(Entity.objects.filter(pk__in=knot.entities).values_list("name", flat=True))


def test_old_knots_gain_the_names_in_their_content_and_edges_join_them(mind):
    anna, siemens, bread = _old_net(mind.mind)
    assert Edge.objects.filter(mind=mind.mind, layers__contains=["entity"]).count() == 0
    call_command("rebuild_magnets", mind=mind.mind.pk, verbosity=0)
    assert _names(anna) == {"Anna", "Siemens"}
    assert _names(siemens) == {"Siemens", "Munich"}
    assert _names(bread) == set()
    assert {found["rule"] for found in siemens.magnets["entities"]} == {"sentence-start", "mid-sentence"}
    assert siemens.magnets["language"] == "en"
    joined = Edge.objects.filter(mind=mind.mind, source=anna, target=siemens).get()
    assert "entity" in joined.layers
    # Run again: nothing changes.
    call_command("rebuild_magnets", mind=mind.mind.pk, verbosity=0)
    assert Entity.objects.filter(mind=mind.mind).count() == 3


def test_ignored_names_and_a_switched_off_mind_are_respected(mind, other_mind):
    _old_net(mind.mind)
    _old_net(other_mind.mind)
    discovery_update(mind_id=mind.mind.pk, ignored=["SIEMENS"])
    discovery_update(mind_id=other_mind.mind.pk, enabled=False)
    call_command("rebuild_magnets", verbosity=0)  # every mind
    assert set(Entity.objects.filter(mind=mind.mind).values_list("name", flat=True)) == {"Anna", "Munich"}
    assert not Entity.objects.filter(mind=other_mind.mind).exists()


def test_an_unknown_mind_is_refused():
    with pytest.raises(CommandError, match="No mind"):
        call_command("rebuild_magnets", mind="m_nope", verbosity=0)
