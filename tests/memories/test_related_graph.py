"""GET /memory/{id}/related of memories without a knot (memories sharing tags), the pure tag graph,
and GET /memory/graph's parameters. Related memories by edges and the graph of knots are tested
with the net (tests/synapses/test_related_graph_net.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

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
