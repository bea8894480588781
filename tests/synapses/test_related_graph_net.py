"""GET /memory/{id}/related and GET /memory/graph from knots and edges.

Related: the memories whose knots the memory's current knot has edges to come first (`via:
edge`, strongest edge first, with its layers), then the memories sharing tags (`via: tags`) as
before. Graph: the nodes are the mind's active knots (the most present first), the edges the
net's rows among them with their layers and weights.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.models import Memory
from synapses.models import Edge, Entity, Knot, KnotPresence
from tests.factories import knot_make
from tests.memories.insights_support import agent_caller, remember

pytestmark = pytest.mark.django_db


def edge_pair(mind, a: Knot, b: Knot, *, ab: float, ba: float, layers=("embedding",), shared_entities=()) -> None:
    for source, target, weight in ((a, b, ab), (b, a, ba)):
        Edge.objects.create(
            mind=mind, source=source, target=target, weight_raw=weight / 2, weight_anchor=weight,
            layers=list(layers), shared_entities=list(shared_entities), layer_count=len(layers),
        )  # fmt: skip


def presence_set(knot: Knot, value: float) -> None:
    KnotPresence.objects.filter(knot=knot).update(weight_present=value)


# --- related --------------------------------------------------------------------------------------


@pytest.fixture
def linked(mind):
    agent = agent_caller(mind.mind)
    made = {
        name: remember(mind.mind, agent, category="fact", key=name, content=f"about {name}", tags=tags)
        for name, tags in [("center", ["docker", "swarm"]), ("near", ["python"]), ("nearer", []),
                           ("tagged", ["docker"]), ("both", ["swarm"])]
    }  # fmt: skip
    knots = {name: knot_make(memory=memory, linked=True) for name, memory in made.items()}
    edge_pair(mind.mind, knots["center"], knots["near"], ab=2.0, ba=2.5)
    edge_pair(mind.mind, knots["center"], knots["nearer"], ab=4.0, ba=1.0, layers=("entity", "embedding"))
    edge_pair(mind.mind, knots["center"], knots["both"], ab=1.5, ba=1.5, layers=("themes",))
    return mind, made, knots


def test_edge_neighbours_come_first_strongest_edge_first_then_memories_sharing_tags(linked):
    mind, made, knots = linked
    body = mind.agent.get(f"/memory/{made['center'].pk}/related").json()
    assert body["count"] == 4
    assert [(row["key"], row["via"], row["layers"], row["edge_weight"]) for row in body["results"]] == [
        ("nearer", "edge", ["entity", "embedding"], 4.0),
        ("near", "edge", ["embedding"], 2.0),
        ("both", "edge", ["themes"], 1.5),
        ("tagged", "tags", [], None),
    ]
    # A neighbour that also shares tags says which; the neighbour's knot is named.
    assert [row["shared_tags"] for row in body["results"]] == [[], [], ["swarm"], ["docker"]]
    assert body["results"][0]["via_knot_id"] == knots["nearer"].pk


def test_related_pages_run_across_the_edge_neighbours_and_the_tagged_memories(linked):
    mind, made, _ = linked
    page = mind.agent.get(f"/memory/{made['center'].pk}/related", {"limit": "2", "offset": "2"}).json()
    assert (page["count"], [row["key"] for row in page["results"]]) == (4, ["both", "tagged"])


def test_an_expired_neighbour_and_a_superseded_knot_s_edges_are_left_out(linked):
    mind, made, knots = linked
    Memory.objects.filter(pk=made["nearer"].pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    keys = [row["key"] for row in mind.agent.get(f"/memory/{made['center'].pk}/related").json()["results"]]
    assert keys == ["near", "both", "tagged"]
    # The center's content changed and is not promoted yet: its old knot's edges are no longer its own.
    Memory.objects.filter(pk=made["center"].pk).update(content_hash="f" * 64)
    rows = mind.agent.get(f"/memory/{made['center'].pk}/related").json()["results"]
    assert [(row["key"], row["via"]) for row in rows] == [("both", "tags"), ("tagged", "tags")]


# --- graph ----------------------------------------------------------------------------------------


@pytest.fixture
def graph_net(mind):
    """Knots A (presence 5, fact, [x, y], 0.9), B (4, fact, [x], 0.5), C (3, note, [y, z], 0.7), D (2, note)."""
    agent = agent_caller(mind.mind)
    knots = {}
    for name, presence, category, tags, confidence in [
        ("A", 5.0, "fact", ["x", "y"], 0.9),
        ("B", 4.0, "fact", ["x"], 0.5),
        ("C", 3.0, "note", ["y", "z"], 0.7),
        ("D", 2.0, "note", [], 0.7),
    ]:
        memory = remember(mind.mind, agent, category=category, key=name, content=name, tags=tags,
                          confidence=confidence)  # fmt: skip
        knots[name] = knot_make(memory=memory, linked=True)
        Knot.objects.filter(pk=knots[name].pk).update(themes=tags)
        presence_set(knots[name], presence)
    anna = Entity.objects.create(mind=mind.mind, name="Anna")
    edge_pair(mind.mind, knots["A"], knots["B"], ab=3.0, ba=3.5, layers=("entity",), shared_entities=[anna.pk])
    edge_pair(mind.mind, knots["A"], knots["C"], ab=2.0, ba=1.0)
    return mind, knots


def test_the_graph_draws_the_active_knots_most_present_first_and_the_edges_among_them(graph_net):
    mind, knots = graph_net
    body = mind.agent.get("/memory/graph").json()
    assert [node["key"] for node in body["nodes"]] == ["A", "B", "C", "D"]
    node = body["nodes"][0]
    assert (node["id"], node["memory_id"], node["tags"], node["confidence"], node["weight_present"]) == (
        knots["A"].pk, knots["A"].memory_id, ["x", "y"], 0.9, 5.0,
    )  # fmt: skip
    a, b, c = knots["A"].pk, knots["B"].pk, knots["C"].pk
    assert [(e["source"], e["target"], e["layers"], e["weight"]) for e in body["edges"]] == [
        (b, a, ["entity"], 3.5),
        (a, b, ["entity"], 3.0),
        (a, c, ["embedding"], 2.0),
        (c, a, ["embedding"], 1.0),
    ]
    assert body["edges"][0]["shared_entities"] == ["Anna"]
    # 4 rows, 2 of 6 possible pairs; {A, B, C} and {D}.
    assert body["stats"] == {
        "nodes": 4,
        "edges": 4,
        "edges_returned": 4,
        "pairs": 2,
        "density": 0.3333,
        "components": 2,
        "isolated": 1,
        "nodes_truncated": False,
    }


def test_the_graph_filters_by_category_tag_and_confidence_of_the_knots_memories(graph_net):
    mind, _ = graph_net

    def keys(params) -> list[str]:
        return [node["key"] for node in mind.agent.get("/memory/graph", params).json()["nodes"]]

    assert keys({"category": "note"}) == ["C", "D"]
    assert keys({"tag": "X"}) == ["A", "B"]
    assert keys({"min_confidence": "0.7"}) == ["A", "C", "D"]


def test_the_graph_without_edges_still_counts_them(graph_net):
    mind, _ = graph_net
    body = mind.agent.get("/memory/graph", {"include_edges": "false"}).json()
    assert body["edges"] == []
    assert (body["stats"]["edges"], body["stats"]["edges_returned"], body["stats"]["components"]) == (4, 0, 2)


def test_the_graph_keeps_the_max_nodes_most_present_knots_and_only_their_edges(graph_net, mind):
    _, knots = graph_net
    agent = agent_caller(mind.mind)
    for index in range(8):
        extra = knot_make(
            memory=remember(mind.mind, agent, category="fact", key=f"e{index}", content=f"{index}"), linked=True
        )
        presence_set(extra, 1.0)
    body = mind.agent.get("/memory/graph", {"max_nodes": "10"}).json()
    assert [node["key"] for node in body["nodes"]][:4] == ["A", "B", "C", "D"]
    assert (len(body["nodes"]), body["stats"]["nodes_truncated"]) == (10, True)
    body = mind.agent.get("/memory/graph", {"max_nodes": "10", "category": "note"}).json()
    # C and D alone: the edge A–C leads out of the drawing and is left out.
    assert (body["edges"], body["stats"]["pairs"], body["stats"]["components"]) == ([], 0, 2)


def test_the_graph_leaves_out_inactive_knots_expired_memories_and_other_minds(graph_net, other_mind):
    mind, knots = graph_net
    KnotPresence.objects.filter(knot=knots["B"]).update(is_active=False)
    Memory.objects.filter(pk=knots["D"].memory_id).update(expires_at=timezone.now() - timedelta(seconds=1))
    knot_make(
        memory=remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="theirs"), linked=True
    )
    assert [node["key"] for node in mind.agent.get("/memory/graph").json()["nodes"]] == ["A", "C"]


def test_the_graph_takes_the_same_statements_for_4_or_40_knots(graph_net, mind):
    def statements() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert mind.agent.get("/memory/graph").status_code == 200
        return len(queries)

    statements()  # the key's first use of the minute is noted once
    few = statements()
    agent = agent_caller(mind.mind)
    for index in range(36):
        knot_make(memory=remember(mind.mind, agent, category="fact", key=f"n{index}", content=f"n{index}"), linked=True)
    assert statements() == few


def test_another_mind_sees_nothing_of_the_mind_s_graph_and_its_own_graph_shows_it(graph_net, other_mind):
    mind, knots = graph_net
    knot_make(
        memory=remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="B own"), linked=True
    )
    theirs = other_mind.agent.get("/memory/graph").json()
    assert [node["key"] for node in theirs["nodes"]] != [] and theirs["edges"] == []
    mine = {knot.memory_id for knot in knots.values()}
    assert not mine & {node["memory_id"] for node in theirs["nodes"]}
    assert {node["memory_id"] for node in mind.agent.get("/memory/graph").json()["nodes"]} == mine


def test_related_takes_the_same_statements_for_3_or_30_edge_neighbours(linked):
    mind, made, knots = linked

    def statements() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert mind.agent.get(f"/memory/{made['center'].pk}/related").status_code == 200
        return len(queries)

    statements()  # the key's first use of the minute is noted once
    few = statements()
    agent = agent_caller(mind.mind)
    for index in range(27):
        memory = remember(mind.mind, agent, category="fact", key=f"x{index}", content=f"x{index}")
        extra = knot_make(memory=memory, linked=True)
        edge_pair(mind.mind, knots["center"], extra, ab=1.0, ba=1.0)
    # No statement per neighbour; one fewer, as the page of 20 is all edge neighbours and the
    # memories sharing tags are only counted, not read.
    assert statements() == few - 1
