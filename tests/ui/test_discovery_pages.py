"""The entities page's control of entity discovery: a writer deletes an entity (its knots lose it,
its names go on the ignore list), the owner switches discovery off and edits the ignore list; a
writer who is not the owner sees the setting and cannot change it."""

from __future__ import annotations

import pytest

from synapses.models import Entity, Knot
from synapses.upkeep.discovery import discovery_get
from tests.nets import net_build
from tests.ui.conftest import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def net(mind) -> dict:
    return net_build(mind)


def test_a_writer_deletes_an_entity_its_knots_lose_it_and_its_names_are_ignored(writer, net):
    mind = net["mind"].mind
    entity = Entity.objects.filter(mind=mind).order_by("pk").first()
    carriers = Knot.objects.filter(mind=mind, entities__contains=[entity.pk]).count()
    assert carriers > 0
    client = logged_in(writer)
    page = client.get(f"/app/minds/{mind.pk}/entities/").content.decode()
    assert f'action="/app/minds/{mind.pk}/entities/{entity.pk}/delete/"' in page
    assert 'id="discovery"' not in page  # the owner's, not a writer's
    response = client.post(f"/app/minds/{mind.pk}/entities/{entity.pk}/delete/", follow=True)
    assert response.status_code == 200
    body = response.content.decode()
    assert f"Entity {entity.name} deleted: {carriers} knot" in body
    assert not Entity.objects.filter(pk=entity.pk).exists()
    assert Knot.objects.filter(mind=mind, entities__contains=[entity.pk]).count() == 0
    mind.refresh_from_db()
    assert entity.name.lower() in discovery_get(mind).ignored


def test_the_owner_switches_discovery_off_and_edits_the_ignore_list(owner, writer, net):
    mind = net["mind"].mind
    client = logged_in(owner)
    assert 'id="discovery"' in client.get(f"/app/minds/{mind.pk}/entities/").content.decode()
    response = client.post(f"/app/minds/{mind.pk}/entities/discovery/", {"ignored": "Siemens\n\nAcme Corp\n"})
    assert response.status_code == 302
    mind.refresh_from_db()
    setting = discovery_get(mind)
    assert (setting.enabled, setting.ignored) == (False, ["acme corp", "siemens"])  # an unticked box is off
    # A writer may not change it.
    assert logged_in(writer).post(f"/app/minds/{mind.pk}/entities/discovery/", {"enabled": "on"}).status_code == 403
    too_long = client.post(f"/app/minds/{mind.pk}/entities/discovery/", {"enabled": "on", "ignored": "x" * 101})
    assert too_long.status_code == 400
    assert "at most 100 characters" in too_long.content.decode()
