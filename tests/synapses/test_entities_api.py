"""Entities API: list, create, rename, aliases, merge (a person only), each keeping knots and edges right."""

from __future__ import annotations

import pytest

from memories.models import EMBEDDING_DIMENSIONS
from synapses.models import Edge, Entity, Knot
from tests.factories import knot_make
from tests.vectors import axis

pytestmark = pytest.mark.django_db


def entity_post(client, body):
    return client.post("/synapses/entities", body, format="json")


def knot_saying(mind, content: str, *, anchor: float = 2.0, entities=(), embedding_axis: int = 1) -> Knot:
    knot = knot_make(mind=mind, weight_anchor=anchor, entities=list(entities), embedding=axis(embedding_axis))
    Knot.objects.filter(pk=knot.pk).update(content=content)
    return knot


def edge_pair(mind, a: Knot, b: Knot, *, layers, shared_entities=()) -> None:
    for source, target in ((a, b), (b, a)):
        Edge.objects.create(
            mind=mind, source=source, target=target, weight_raw=1.0, weight_anchor=3.0, layers=list(layers),
            shared_entities=list(shared_entities), layer_count=len(layers), cosine_initial=0.9,
        )  # fmt: skip


def test_a_new_entity_is_created_and_knots_naming_it_gain_it(mind):
    says = knot_saying(mind.mind, "Lunch with Anna on Friday")
    silent = knot_saying(mind.mind, "Annabel called")  # not the whole word
    response = entity_post(mind.agent, {"name": "Anna", "aliases": ["Annie", "annie", " Anna "]})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["aliases"], body["knots"], body["knots_gained"]) == ("Anna", ["Annie"], 1, 1)
    assert Knot.objects.get(pk=says.pk).entities == [body["id"]]
    assert Knot.objects.get(pk=silent.pk).entities == []


def test_a_name_is_unique_per_mind_in_any_case_and_across_aliases(mind, other_mind):
    entity_post(mind.agent, {"name": "Anna", "aliases": ["Annie"]})
    for body, field in [({"name": "ANNA"}, "name"), ({"name": "annie"}, "name"), ({"name": "B", "aliases": ["anna"]},
                                                                                   "aliases")]:  # fmt: skip
        response = entity_post(mind.agent, body)
        assert response.status_code == 409, body
        assert list(response.json()["error"]["fields"]) == [field]
    # Another mind may have its own Anna.
    assert entity_post(other_mind.agent, {"name": "Anna"}).status_code == 201


def test_entities_are_listed_by_name_with_their_knot_counts_and_filtered(mind):
    anna = entity_post(mind.agent, {"name": "Anna"}).json()["id"]
    entity_post(mind.agent, {"name": "Bert", "aliases": ["Bertie"]})
    knot_make(mind=mind.mind, weight_anchor=1.0, entities=[anna], embedding=axis(EMBEDDING_DIMENSIONS - 1))
    body = mind.agent.get("/synapses/entities").json()
    assert [(row["name"], row["knots"]) for row in body["results"]] == [("Anna", 1), ("Bert", 0)]
    assert [row["name"] for row in mind.agent.get("/synapses/entities", {"name": "tie"}).json()["results"]] == ["Bert"]


def test_a_new_alias_brings_knots_naming_it_and_their_edges_are_recomputed(mind):
    anna_id = entity_post(mind.agent, {"name": "Anna"}).json()["id"]
    carrier = knot_saying(mind.mind, "Anna likes tea", anchor=5.0, entities=[anna_id], embedding_axis=1)
    nickname = knot_saying(mind.mind, "Annie likes coffee", anchor=0.7, embedding_axis=2)
    edge_pair(mind.mind, carrier, nickname, layers=["embedding"])

    response = mind.agent.patch(f"/synapses/entities/{anna_id}", {"aliases": ["Annie"]}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["knots_gained"] == 1
    assert Knot.objects.get(pk=nickname.pk).entities == [anna_id]
    # The entity layer fires now and wins (factor 1, depth 1, bonus 0.1 for the embedding layer beside it):
    # A' = 0.7 + 0.1 = 0.8, B' = 5.1, gap 4.3: up = 0.8 + 4.3 · 0.444 = 2.7092, down = 5.1 − 4.3 · 0.297 = 3.8229.
    edge = Edge.objects.get(source=nickname, target=carrier)
    assert (edge.layers, edge.shared_entities) == (["entity", "embedding"], [anna_id])
    assert edge.weight_raw == pytest.approx(2.7092, abs=1e-3)
    assert Edge.objects.get(source=carrier, target=nickname).weight_raw == pytest.approx(3.8229, abs=1e-3)


def test_a_rename_keeps_the_id_and_refuses_a_name_another_entity_holds(mind):
    anna = entity_post(mind.agent, {"name": "Anna"}).json()["id"]
    entity_post(mind.agent, {"name": "Bert"})
    assert mind.agent.patch(f"/synapses/entities/{anna}", {"name": "Anne"}, format="json").json()["name"] == "Anne"
    clash = mind.agent.patch(f"/synapses/entities/{anna}", {"name": "bert"}, format="json")
    assert (clash.status_code, list(clash.json()["error"]["fields"])) == (409, ["name"])
    assert Entity.objects.get(pk=anna).name == "Anne"


def test_a_merge_by_a_person_moves_the_knots_and_the_names_and_recomputes_the_edges(owner, mind):
    anna = entity_post(mind.agent, {"name": "Anna"}).json()["id"]
    annie = entity_post(mind.agent, {"name": "Annie", "aliases": ["Ann"]}).json()["id"]
    a = knot_make(mind=mind.mind, weight_anchor=5.0, entities=[anna], embedding=axis(1))
    b = knot_make(mind=mind.mind, weight_anchor=0.7, entities=[annie], embedding=axis(2))
    both = knot_make(mind=mind.mind, weight_anchor=1.0, entities=[anna, annie], embedding=axis(3))
    edge_pair(mind.mind, a, b, layers=["embedding"])

    response = owner.client.post(f"/synapses/entities/{annie}/merge?mind={mind.mind.pk}", {"into": anna},
                                 format="json")  # fmt: skip

    assert response.status_code == 200, response.content
    assert (response.json()["name"], response.json()["aliases"]) == ("Anna", ["Annie", "Ann"])
    assert not Entity.objects.filter(pk=annie).exists()
    assert [Knot.objects.get(pk=k.pk).entities for k in (a, b, both)] == [[anna], [anna], [anna]]
    # a and b share Anna now: entity wins, embedding beside it (bonus 0.1): the values of the alias test.
    assert Edge.objects.get(source=b, target=a).weight_raw == pytest.approx(2.7092, abs=1e-3)


def test_a_mind_key_may_not_merge_entities(mind):
    anna = entity_post(mind.agent, {"name": "Anna"}).json()["id"]
    annie = entity_post(mind.agent, {"name": "Annie"}).json()["id"]
    response = mind.agent.post(f"/synapses/entities/{annie}/merge", {"into": anna}, format="json")
    assert response.status_code == 403
    assert "person" in response.json()["error"]["message"]
    assert Entity.objects.filter(pk=annie).exists()


@pytest.mark.parametrize(
    ("into", "field"),
    [("self", "into"), (10**12, "into"), ("1", "into")],
)
def test_a_bad_merge_target_answers_400_naming_into(owner, mind, into, field):
    annie = entity_post(mind.agent, {"name": "Annie"}).json()["id"]
    target = annie if into == "self" else into
    response = owner.client.post(f"/synapses/entities/{annie}/merge?mind={mind.mind.pk}", {"into": target},
                                 format="json")  # fmt: skip
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_another_mind_s_entity_cannot_be_the_target_of_a_merge(owner, mind, other_mind):
    theirs = entity_post(other_mind.agent, {"name": "Theirs"}).json()["id"]
    mine = entity_post(mind.agent, {"name": "Mine"}).json()["id"]
    response = owner.client.post(f"/synapses/entities/{mine}/merge?mind={mind.mind.pk}", {"into": theirs},
                                 format="json")  # fmt: skip
    assert (response.status_code, list(response.json()["error"]["fields"])) == (400, ["into"])
    assert other_mind.agent.patch(f"/synapses/entities/{mine}", {"name": "x"}, format="json").status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "name"), ({"name": ""}, "name"), ({"name": "x" * 101}, "name"), ({"name": "A", "aliases": "B"}, "aliases"),
     ({"name": "A", "aliases": [5]}, "aliases.0"), ({"name": "A", "kind": "person"}, "kind")],
)  # fmt: skip
def test_a_bad_entity_answers_400_naming_the_field(mind, body, field):
    response = entity_post(mind.agent, body)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_a_reader_lists_entities_but_cannot_create_them(reader, mind):
    assert reader.client.get("/synapses/entities", {"mind": mind.mind.pk}).status_code == 200
    response = reader.client.post(f"/synapses/entities?mind={mind.mind.pk}", {"name": "A"}, format="json")
    assert response.status_code == 403
