"""GET /memory/{id}/related (memories sharing tags) and GET /memory/graph (interim: memories as
nodes, shared tags as edges)."""

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


@pytest.fixture
def graph_mind(mind):
    """In recall order: A (critical) [x, y], B (high) [x], C (normal) [y, z], D (low) no tags."""
    agent = agent_caller(mind.mind)
    ids = {}
    for name, priority, tags, confidence, category in [
        ("A", "critical", ["x", "y"], 0.9, "fact"),
        ("B", "high", ["x"], 0.5, "fact"),
        ("C", "normal", ["y", "z"], 0.7, "note"),
        ("D", "low", [], 0.7, "note"),
    ]:
        memory = remember(
            mind.mind, agent, category=category, key=name, content=name, priority=priority, tags=tags,
            confidence=confidence,
        )  # fmt: skip
        ids[name] = memory.pk
        ids[f"{name}_updated_at"] = memory.updated_at.isoformat().replace("+00:00", "Z")
    return mind, ids


def test_the_graph_links_memories_sharing_tags(graph_mind):
    mind, ids = graph_mind
    body = mind.agent.get("/memory/graph").json()
    assert [node["key"] for node in body["nodes"]] == ["A", "B", "C", "D"]
    assert body["nodes"][0] == {
        "id": ids["A"],
        "key": "A",
        "category": "fact",
        "priority": "critical",
        "tags": ["x", "y"],
        "confidence": 0.9,
        "verified": False,
        "updated_at": ids["A_updated_at"],
    }
    assert body["edges"] == [
        {"source": ids["A"], "target": ids["B"], "layers": ["themes"], "weight": 0.5, "shared_tags": ["x"]},
        {"source": ids["A"], "target": ids["C"], "layers": ["themes"], "weight": 0.5, "shared_tags": ["y"]},
    ]
    # 2 of 6 possible pairs; {A, B, C} and {D}.
    assert body["stats"] == {
        "nodes": 4,
        "edges": 2,
        "edges_returned": 2,
        "density": 0.3333,
        "components": 2,
        "isolated": 1,
        "nodes_truncated": False,
    }


def test_the_graph_filters_by_category_tag_and_confidence(graph_mind):
    mind, _ = graph_mind
    assert [n["key"] for n in mind.agent.get("/memory/graph", {"category": "note"}).json()["nodes"]] == ["C", "D"]
    assert [n["key"] for n in mind.agent.get("/memory/graph", {"tag": "X"}).json()["nodes"]] == ["A", "B"]
    assert [n["key"] for n in mind.agent.get("/memory/graph", {"min_confidence": "0.7"}).json()["nodes"]] == [
        "A",
        "C",
        "D",
    ]


def test_the_graph_without_edges_still_reports_the_stats(graph_mind):
    mind, _ = graph_mind
    body = mind.agent.get("/memory/graph", {"include_edges": "false"}).json()
    assert body["edges"] == []
    assert (body["stats"]["edges"], body["stats"]["edges_returned"], body["stats"]["components"]) == (2, 0, 2)


def test_the_graph_keeps_the_first_max_nodes_in_recall_order(mind):
    agent = agent_caller(mind.mind)
    for index in range(11):
        remember(mind.mind, agent, at=T0 + minutes(index), category="fact", key=f"m{index}", content=f"{index}")
    body = mind.agent.get("/memory/graph", {"max_nodes": "10"}).json()
    assert [node["key"] for node in body["nodes"]] == [f"m{index}" for index in range(10, 0, -1)]
    assert body["stats"]["nodes_truncated"] is True


def test_the_graph_leaves_out_expired_and_other_minds_memories(graph_mind, other_mind):
    mind, _ = graph_mind
    remember(mind.mind, agent_caller(mind.mind), category="fact", content="old", tags=["x"],
             expires_at=timezone.now() - timedelta(seconds=1))  # fmt: skip
    remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="theirs", tags=["x"])
    assert [node["key"] for node in mind.agent.get("/memory/graph").json()["nodes"]] == ["A", "B", "C", "D"]


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


def test_a_misspelt_graph_filter_answers_400_instead_of_drawing_everything(graph_mind):
    mind, _ = graph_mind
    response = mind.agent.get("/memory/graph", {"tags": "docker"})
    assert response.status_code == 400
    takes = "max_nodes, category, tag, min_confidence, include_edges, mind"
    assert response.json()["error"]["fields"] == {"tags": [f"Unknown parameter. This endpoint takes: {takes}."]}
