"""Entity edits change the net at once (Trigger 3, docs/synapse-model.md §6): create, alias,
rename, merge and delete by the API and by the UI, each answering the edge rows it created, updated and
deleted — counted here in the table, before and after, never taken from the answer alone."""

from __future__ import annotations

import re

import pytest

from synapses.models import Edge, Entity, Knot
from tests.factories import knot_make
from tests.ui.conftest import logged_in
from tests.vectors import axis

pytestmark = pytest.mark.django_db

_VALUES = ("weight_raw", "weight_anchor", "layers", "shared_entities", "shared_themes", "time_distance", "layer_count")


def _table(mind) -> dict[int, tuple]:
    return {pk: tuple(values) for pk, *values in Edge.objects.filter(mind=mind).values_list("pk", *_VALUES)}


def _diff(before: dict[int, tuple], after: dict[int, tuple]) -> dict[str, int]:
    return {
        "created": len(after.keys() - before.keys()),
        "updated": sum(1 for pk in after.keys() & before.keys() if after[pk] != before[pk]),
        "deleted": len(before.keys() - after.keys()),
    }


def _answered(body: dict) -> dict[str, int]:
    counts = {name: body[f"edges_{name}"] for name in ("created", "updated", "deleted")}
    assert body["edges_recomputed"] == sum(counts.values())
    return counts


@pytest.fixture
def notes(mind) -> dict[str, Knot]:
    """Five knots with orthogonal vectors, no themes, no time: no layer joins any two of them
    until they share an entity, so the net starts with no edge."""
    contents = {
        "tea": "Anna likes tea",
        "work": "Anna works at Siemens",
        "trip": "a trip with Annie to Rome",
        "marie": "Marie lives in Hamburg",
        "bert": "Bert fixed the bike",
    }
    knots = {
        name: knot_make(mind=mind.mind, content=content, weight_anchor=2.0, embedding=axis(i + 1))
        for i, (name, content) in enumerate(contents.items())
    }
    assert not Edge.objects.filter(mind=mind.mind).exists()
    return knots


def test_creating_an_entity_joins_the_knots_that_name_it_at_once(mind, notes):
    before = _table(mind.mind)
    response = mind.agent.post("/synapses/entities", {"name": "Anna"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    after = _table(mind.mind)
    # "tea" and "work" name Anna: one pair, two rows, nothing else.
    assert _answered(body) == _diff(before, after) == {"created": 2, "updated": 0, "deleted": 0}
    pair = Edge.objects.filter(mind=mind.mind, source=notes["tea"], target=notes["work"]).get()
    assert (pair.layers, pair.shared_entities) == (["entity"], [body["id"]])


def test_an_alias_joins_the_knot_naming_it_to_the_entitys_knots(mind, notes):
    anna = mind.agent.post("/synapses/entities", {"name": "Anna"}, format="json").json()["id"]
    before = _table(mind.mind)
    response = mind.agent.patch(f"/synapses/entities/{anna}", {"aliases": ["Annie"]}, format="json")
    assert response.status_code == 200, response.content
    answered, seen = _answered(response.json()), _diff(before, _table(mind.mind))
    assert answered == seen
    # "trip" joins "tea" and "work": two pairs, four new rows. The first pair's rows are
    # evaluated again: Anna is carried by three knots now, so its rarity — and those weights —
    # may change; whatever changed is what the answer counts.
    assert seen["created"] == 4 and seen["deleted"] == 0
    assert Edge.objects.filter(mind=mind.mind, source=notes["trip"]).count() == 2


def test_a_rename_to_a_name_some_knot_holds_joins_that_knot(mind, notes):
    anna = mind.agent.post("/synapses/entities", {"name": "Anna"}, format="json").json()["id"]
    before = _table(mind.mind)
    response = mind.agent.patch(f"/synapses/entities/{anna}", {"name": "Marie", "aliases": ["Anna"]}, format="json")
    assert response.status_code == 200, response.content
    seen = _diff(before, _table(mind.mind))
    assert _answered(response.json()) == seen
    assert seen["created"] == 4  # "marie" joins "tea" and "work"
    assert anna in Knot.objects.get(pk=notes["marie"].pk).entities


def test_a_rename_that_brings_no_knot_changes_no_edge(mind, notes):
    anna = mind.agent.post("/synapses/entities", {"name": "Anna"}, format="json").json()["id"]
    before = _table(mind.mind)
    response = mind.agent.patch(f"/synapses/entities/{anna}", {"name": "Anna Schmidt", "aliases": ["Anna"]},
                                format="json")  # fmt: skip
    assert response.status_code == 200
    assert _answered(response.json()) == _diff(before, _table(mind.mind)) == {"created": 0, "updated": 0, "deleted": 0}


def test_a_merge_joins_the_merged_entitys_knots_to_the_kept_ones(owner, mind, notes):
    agent = mind.agent
    anna = agent.post("/synapses/entities", {"name": "Anna"}, format="json").json()["id"]
    bert = agent.post("/synapses/entities", {"name": "Bert"}, format="json").json()["id"]
    before = _table(mind.mind)
    # A merge is a person's decision: the owner's client, naming the mind.
    response = owner.client.post(f"/synapses/entities/{bert}/merge?mind={mind.mind.pk}", {"into": anna},
                                 format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    seen = _diff(before, _table(mind.mind))
    assert _answered(response.json()) == seen
    assert seen["created"] == 4  # "bert" now carries Anna: joined to "tea" and "work"
    assert Knot.objects.get(pk=notes["bert"].pk).entities == [anna]


def _flash(client, response) -> str:
    """The message the redirect's page shows last: this change's (earlier posts' wait before it)."""
    return [str(m) for m in client.get(response["Location"]).context["messages"]][-1]


def _counts_in(message: str) -> dict[str, int]:
    found = re.search(r"edges: (\d+) created, (\d+) updated, (\d+) deleted", message)
    assert found, message
    return dict(zip(("created", "updated", "deleted"), map(int, found.groups()), strict=True))


def test_the_ui_creates_an_entity_and_says_how_many_edge_rows_changed(owner, mind, notes):
    client = logged_in(owner)
    before = _table(mind.mind)
    response = client.post(f"/app/minds/{mind.mind.pk}/entities/", {"name": "Anna", "aliases": "Annie"})
    assert response.status_code == 302
    message = _flash(client, response)
    # "tea", "work" (Anna) and "trip" (Annie): three pairs, six rows.
    assert _counts_in(message) == _diff(before, _table(mind.mind)) == {"created": 6, "updated": 0, "deleted": 0}
    assert message.startswith("Entity Anna created. 3 knots changed; ")


def test_the_ui_merge_says_how_many_edge_rows_changed(owner, mind, notes):
    client = logged_in(owner)
    base = f"/app/minds/{mind.mind.pk}/entities"
    client.post(f"{base}/", {"name": "Anna", "aliases": ""})
    client.post(f"{base}/", {"name": "Bert", "aliases": ""})
    anna, bert = (Entity.objects.get(mind=mind.mind, name=name) for name in ("Anna", "Bert"))
    before = _table(mind.mind)
    response = client.post(f"{base}/merge/", {"entity": bert.pk, "into": anna.pk})
    assert response.status_code == 302
    seen = _diff(before, _table(mind.mind))
    assert _counts_in(_flash(client, response)) == seen
    assert seen["created"] == 4


def test_deleting_an_entity_by_the_api_takes_away_the_edges_it_alone_carried(owner, mind, notes):
    anna = mind.agent.post("/synapses/entities", {"name": "Anna"}, format="json").json()["id"]
    assert Edge.objects.filter(mind=mind.mind).count() == 2  # "tea"–"work", both directions
    before = _table(mind.mind)
    # A delete is a person's decision (it changes the owner's ignore list): the owner's client.
    response = owner.client.delete(f"/synapses/entities/{anna}?mind={mind.mind.pk}")
    assert response.status_code == 200, response.content
    body = response.json()
    # The pair "tea"–"work" shared only Anna: both rows go, nothing else changes.
    assert _answered(body) == _diff(before, _table(mind.mind)) == {"created": 0, "updated": 0, "deleted": 2}
    assert body["knots_changed"] == 2 and body["ignored"] == ["anna"]  # kept casefolded


def test_the_ui_delete_says_how_many_edge_rows_changed(owner, mind, notes):
    client = logged_in(owner)
    base = f"/app/minds/{mind.mind.pk}/entities"
    client.post(f"{base}/", {"name": "Anna", "aliases": "Annie"})
    anna = Entity.objects.get(mind=mind.mind, name="Anna")
    assert Edge.objects.filter(mind=mind.mind).count() == 6  # "tea", "work", "trip": three pairs
    before = _table(mind.mind)
    response = client.post(f"{base}/{anna.pk}/delete/")
    assert response.status_code == 302
    seen = _diff(before, _table(mind.mind))
    assert _counts_in(_flash(client, response)) == seen == {"created": 0, "updated": 0, "deleted": 6}
