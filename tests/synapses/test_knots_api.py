"""GET /synapses/knots (filters, paging) and GET /synapses/knots/{id} with its edges both ways."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.models import EMBEDDING_DIMENSIONS, Memory
from synapses.models import Edge, Entity, Knot, KnotPresence
from tests.factories import knot_make
from tests.vectors import axis

pytestmark = pytest.mark.django_db

KNOT_FIELDS = {
    "id", "memory_id", "content", "category", "observer", "themes", "entities", "entity_ids", "magnets", "event_time",
    "event_precision", "emotion", "weight_raw", "weight_anchor", "presence_base", "weight_present",
    "activation_count", "is_active", "superseded", "created_at", "reinforced_at", "decayed_at",
}  # fmt: skip
EDGE_FIELDS = {
    "id", "source", "target", "weight_raw", "weight_anchor", "layers", "shared_entities", "shared_themes",
    "time_distance", "cosine_initial", "layer_count",
}  # fmt: skip


@pytest.fixture
def net(the_mind):
    anna = Entity.objects.create(mind=the_mind, name="Anna")
    first = knot_make(mind=the_mind, weight_anchor=2.0, entities=[anna.pk], themes=["family"], embedding=axis(1))
    second = knot_make(mind=the_mind, weight_anchor=3.0, themes=["work"], embedding=axis(2))
    faded = knot_make(mind=the_mind, weight_anchor=1.0, entities=[anna.pk], is_active=False, embedding=axis(3))
    Knot.objects.filter(pk=second.pk).update(observer="agent")
    for source, target, weight in ((first, second, 2.5), (second, first, 2.9), (faded, first, 1.1)):
        Edge.objects.create(
            mind=the_mind, source=source, target=target, weight_raw=weight, weight_anchor=weight + 1,
            layers=["entity"], shared_entities=[anna.pk], layer_count=1,
        )  # fmt: skip
    return {"anna": anna, "first": first, "second": second, "faded": faded}


def ids(response) -> list[int]:
    return [row["id"] for row in response.json()["results"]]


def test_knots_are_listed_newest_first_with_the_contract_s_fields(mind, net):
    body = mind.agent.get("/synapses/knots").json()
    assert (body["count"], body["limit"], body["offset"]) == (3, 100, 0)
    assert ids_of(body) == [net["faded"].pk, net["second"].pk, net["first"].pk]
    first = body["results"][2]
    assert set(first) == KNOT_FIELDS
    assert (first["entities"], first["entity_ids"], first["themes"]) == (["Anna"], [net["anna"].pk], ["family"])
    assert (first["weight_anchor"], first["weight_present"], first["is_active"], first["superseded"]) == (
        2.0, 2.0, True, False,
    )  # fmt: skip


def ids_of(body) -> list[int]:
    return [row["id"] for row in body["results"]]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"active": "false"}, ["faded"]),
        ({"active": "true"}, ["second", "first"]),
        ({"observer": "agent"}, ["second"]),
        ({"theme": "FAMILY"}, ["first"]),
        ({"entity": "anna"}, ["faded", "first"]),
        ({"entity": "Nobody"}, []),
        ({"limit": "1", "offset": "1"}, ["second"]),
    ],
)
def test_knots_filter_by_active_observer_theme_and_entity(mind, net, params, expected):
    assert ids(mind.agent.get("/synapses/knots", params)) == [net[name].pk for name in expected]


def test_an_entity_filter_also_matches_an_alias(mind, net):
    Entity.objects.filter(pk=net["anna"].pk).update(aliases=["Annie"])
    assert ids(mind.agent.get("/synapses/knots", {"entity": "ANNIE"})) == [net["faded"].pk, net["first"].pk]


def test_a_superseded_knot_is_marked(mind, net):
    Memory.objects.filter(pk=net["first"].memory_id).update(content_hash="0" * 64)
    assert mind.agent.get(f"/synapses/knots/{net['first'].pk}").json()["superseded"] is True


def test_one_knot_shows_its_outgoing_and_incoming_edges_strongest_first(mind, net):
    body = mind.agent.get(f"/synapses/knots/{net['first'].pk}").json()
    assert set(body) == KNOT_FIELDS | {"outgoing", "incoming", "outgoing_count", "incoming_count"}
    assert [(edge["source"], edge["target"]) for edge in body["outgoing"]] == [(net["first"].pk, net["second"].pk)]
    assert [(edge["source"], edge["weight_raw"]) for edge in body["incoming"]] == [
        (net["second"].pk, 2.9),
        (net["faded"].pk, 1.1),
    ]
    assert set(body["outgoing"][0]) == EDGE_FIELDS
    assert body["outgoing"][0]["shared_entities"] == ["Anna"]
    assert (body["outgoing_count"], body["incoming_count"]) == (1, 2)


def test_a_page_of_knots_reads_entity_names_in_one_query_whatever_its_size(mind, the_mind):
    anna = Entity.objects.create(mind=the_mind, name="Anna")

    def statements() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert mind.agent.get("/synapses/knots").status_code == 200
        return len(queries)

    knot_make(mind=the_mind, weight_anchor=1.0, entities=[anna.pk], embedding=axis(EMBEDDING_DIMENSIONS - 1))
    statements()  # the first call of the key also notes its last use
    few = statements()
    for _ in range(10):
        knot_make(mind=the_mind, weight_anchor=1.0, entities=[anna.pk], embedding=axis(EMBEDDING_DIMENSIONS - 1))
    assert statements() == few


def test_another_mind_s_knot_is_404(mind, other_mind, net):
    assert other_mind.agent.get(f"/synapses/knots/{net['first'].pk}").status_code == 404
    assert other_mind.agent.get("/synapses/knots").json()["count"] == 0


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"active": "maybe"}, "active"),
        ({"observer": "robot"}, "observer"),
        ({"theme": "t" * 65}, "theme"),
        ({"limit": "0"}, "limit"),
        ({"themes": "x"}, "themes"),
    ],
)
def test_bad_knot_filters_answer_400_naming_them(mind, params, field):
    response = mind.agent.get("/synapses/knots", params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_a_human_reader_lists_the_knots_of_the_mind_they_name(reader, mind, net):
    assert reader.client.get("/synapses/knots", {"mind": mind.mind.pk}).json()["count"] == 3
    assert KnotPresence.objects.count() == 3


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/synapses/knots?active=perhaps", None),
        ("get", "/synapses/goals?bogus=1", None),
        ("post", "/synapses/goals", {"motivation": 7}),
        ("get", "/synapses/entities?bogus=1", None),
        ("post", "/synapses/entities", {"name": 5}),
    ],
)
def test_an_outsider_naming_the_mind_gets_404_before_any_parameter_is_checked(outsider, mind, method, path, body):
    joiner = "&" if "?" in path else "?"
    response = getattr(outsider.client, method)(f"{path}{joiner}mind={mind.mind.pk}", body, format="json")
    assert response.status_code == 404


def test_another_mind_s_knot_is_404_even_with_a_bad_parameter(other_mind, net):
    assert other_mind.agent.get(f"/synapses/knots/{net['first'].pk}?bogus=1").status_code == 404
