"""GET /memory/{id}/related of memories without a knot (memories sharing tags), the pure tag graph,
and GET /memory/graph's parameters. Related memories by edges and the graph of knots are tested
with the net (tests/synapses/test_related_graph_net.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memories import taggraph
from memories.taggraph import GraphEdge, tag_graph
from tests.memories.insights_support import T0, agent_caller, minutes, remember

pytestmark = pytest.mark.django_db


# --- related ----------------------------------------------------------------------------------


@pytest.fixture
def web(mind, other_mind):
    agent = agent_caller(mind.mind)
    made = {}
    for name, tags, minute in [
        ("center", ["docker", "deploy", "swarm"], 0),
        ("two", ["deploy", "docker"], 1),
        ("one", ["swarm"], 2),
        ("none", ["python"], 3),
        ("three", ["docker", "extra", "deploy", "swarm"], 4),
        ("one_newer", ["swarm", "k8s"], 5),
    ]:
        made[name] = remember(
            mind.mind, agent, at=T0 + minutes(minute), category="fact", key=name, content=name, tags=tags
        )
    remember(mind.mind, agent, category="fact", key="expired", content="gone", tags=["docker"],
             expires_at=timezone.now() - timedelta(seconds=1))  # fmt: skip
    remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="theirs", tags=["docker"])
    return mind, made


def test_related_memories_share_tags_most_shared_first_then_newest(web):
    mind, made = web
    body = mind.agent.get(f"/memory/{made['center'].pk}/related").json()
    assert (body["count"], body["limit"], body["offset"]) == (4, 20, 0)
    assert [(row["key"], row["shared_tags"], row["via"]) for row in body["results"]] == [
        ("three", ["docker", "deploy", "swarm"], "tags"),
        ("two", ["docker", "deploy"], "tags"),
        ("one_newer", ["swarm"], "tags"),
        ("one", ["swarm"], "tags"),
    ]
    assert body["results"][0]["id"] == made["three"].pk


def test_related_is_paged_with_limit_and_offset(web):
    mind, made = web
    body = mind.agent.get(f"/memory/{made['center'].pk}/related", {"limit": "1", "offset": "1"}).json()
    assert body["count"] == 4
    assert [row["key"] for row in body["results"]] == ["two"]


def test_a_memory_without_tags_has_no_related_memories(mind):
    memory = remember(mind.mind, agent_caller(mind.mind), category="fact", content="untagged")
    body = mind.agent.get(f"/memory/{memory.pk}/related").json()
    assert (body["count"], body["results"]) == (0, [])


def test_related_of_another_minds_memory_is_404(web, other_mind):
    _, made = web
    assert other_mind.agent.get(f"/memory/{made['center'].pk}/related").status_code == 404


def test_related_of_an_unknown_memory_is_404(mind):
    assert mind.agent.get("/memory/mem_doesnotexist0/related").status_code == 404


def test_a_bad_related_limit_answers_400(web):
    mind, made = web
    response = mind.agent.get(f"/memory/{made['center'].pk}/related", {"limit": "0"})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["limit"]


def test_an_unknown_related_parameter_answers_400_naming_it(web):
    mind, made = web
    response = mind.agent.get(f"/memory/{made['center'].pk}/related", {"tags": "docker"})
    assert response.status_code == 400
    message = "Unknown parameter. This endpoint takes: limit, offset, mind."
    assert response.json()["error"]["fields"] == {"tags": [message]}


def test_a_human_reader_sees_related_memories_without_naming_the_mind(web, reader):
    _, made = web
    assert reader.client.get(f"/memory/{made['center'].pk}/related").json()["count"] == 4


# --- graph: the pure parts ------------------------------------------------------------------


def test_edges_weigh_shared_tags_against_the_larger_tag_set():
    graph = tag_graph([("a", ["x", "y", "z", "w"]), ("b", ["x", "y"]), ("c", ["q"]), ("d", ["y", "q"])])
    # a-b share x, y: 2 / max(4, 2); b-d share y: 1 / 2; c-d share q: 1 / 2; a-d share y: 1 / 4.
    assert graph.edges == [
        GraphEdge(source="a", target="b", weight=0.5, shared_tags=["x", "y"]),
        GraphEdge(source="b", target="d", weight=0.5, shared_tags=["y"]),
        GraphEdge(source="c", target="d", weight=0.5, shared_tags=["q"]),
        GraphEdge(source="a", target="d", weight=0.25, shared_tags=["y"]),
    ]
    assert (graph.edge_count, graph.components, graph.isolated) == (4, 1, 0)


def test_only_the_heaviest_edges_are_returned_but_all_are_counted():
    graph = tag_graph([("a", ["x"]), ("b", ["x", "y"]), ("c", ["x", "y"])], max_edges=1)
    # b-c share x, y: 2 / 2 = 1.0; a-b and a-c share x: 1 / 2.
    assert graph.edges == [GraphEdge(source="b", target="c", weight=1.0, shared_tags=["x", "y"])]
    assert graph.edge_count == 3


def test_components_count_isolated_nodes_as_their_own():
    graph = tag_graph([("a", ["x"]), ("b", ["x", "z"]), ("c", ["z", "y"]), ("d", ["y"]), ("e", ["w"]), ("f", [])])
    # a-b-c-d form one chain; e and f are alone.
    assert (graph.components, graph.isolated) == (3, 2)
    assert tag_graph([]).components == 0


def test_a_thousand_nodes_sharing_one_tag_are_counted_without_an_object_per_pair(monkeypatch):
    built = []

    class CountedEdge(GraphEdge):
        def __init__(self, **fields):
            super().__init__(**fields)
            built.append(self)

    monkeypatch.setattr(taggraph, "GraphEdge", CountedEdge)
    graph = tag_graph([(f"n{i}", ["common", f"own{i}"]) for i in range(1000)])
    assert (graph.edge_count, len(graph.edges), graph.components) == (499_500, 5000, 1)
    # The 499,500 pairs are counted in numpy; only the returned edges become objects.
    assert len(built) == 5000


# --- graph: the endpoint --------------------------------------------------------------------


# The graph's nodes are knots and its edges the net's (tests/synapses/test_related_graph_net.py);
# its parameters are checked here as before.


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"max_nodes": "9"}, "max_nodes"),
        ({"max_nodes": "1001"}, "max_nodes"),
        ({"category": "gossip"}, "category"),
        ({"min_confidence": "1.5"}, "min_confidence"),
        ({"min_confidence": "nan"}, "min_confidence"),
        ({"min_confidence": "high"}, "min_confidence"),
        ({"include_edges": "perhaps"}, "include_edges"),
        ({"tag": "t" * 65}, "tag"),
    ],
)
def test_bad_graph_parameters_answer_400(mind, params, field):
    response = mind.agent.get("/memory/graph", params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_a_misspelt_graph_filter_answers_400_instead_of_drawing_everything(mind):
    response = mind.agent.get("/memory/graph", {"tags": "docker"})
    assert response.status_code == 400
    takes = "max_nodes, category, tag, min_confidence, include_edges, mind"
    assert response.json()["error"]["fields"] == {"tags": [f"Unknown parameter. This endpoint takes: {takes}."]}
