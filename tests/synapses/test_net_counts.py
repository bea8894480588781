"""What the memory answers show of the net: /health, /memory/stats and /memory/health counts and
the memory object's knot_id — assembled by the net's app, never imported by memories."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from memories.models import Memory
from memories.selectors.system import HEALTH_STATS_CACHE_KEY
from memoryproject.core import contributions
from synapses.models import Edge, Entity, Goal, KnotPresence
from tests.factories import knot_make
from tests.memories.insights_support import agent_caller, remember

pytestmark = pytest.mark.django_db


def edge_pair(a, b, *, weight: float = 1.0) -> None:
    """Both directions of one connection, as the promotion writes them."""
    for source, target in ((a, b), (b, a)):
        Edge.objects.create(
            mind=a.mind, source=source, target=target, weight_raw=weight, weight_anchor=weight, layers=["entity"],
            layer_count=1,
        )  # fmt: skip


@pytest.fixture
def net(mind):
    """Three promoted memories (one knot faded), one pending, one edited after its promotion;
    one edge pair, two entities, goals one active and one not."""
    agent = agent_caller(mind.mind)
    memories = [remember(mind.mind, agent, category="fact", key=f"k{n}", content=f"fact {n}") for n in range(5)]
    knots = [knot_make(memory=memory, linked=True) for memory in memories[:3]]
    KnotPresence.objects.filter(knot=knots[2]).update(is_active=False, weight_present=0.05)
    KnotPresence.objects.filter(knot=knots[0]).update(weight_present=0.4)
    KnotPresence.objects.filter(knot=knots[1]).update(weight_present=0.6)
    edge_pair(knots[0], knots[1])
    superseded = knot_make(memory=memories[4], linked=True)
    mind.agent.patch(f"/memory/{memories[4].pk}", {"content": "fact 4, corrected"}, format="json")
    Entity.objects.create(mind=mind.mind, name="Anna")
    Entity.objects.create(mind=mind.mind, name="Berlin")
    Goal.objects.create(mind=mind.mind, statement="Learn Go", motivation=0.5)
    Goal.objects.create(mind=mind.mind, statement="Old aim", motivation=0.2, active=False)
    return mind, memories, knots, superseded


def test_memory_stats_count_the_minds_knots_edges_entities_and_goals(net, other_mind):
    mind, *_ = net
    theirs = remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="not counted")
    knot_make(memory=theirs, linked=True)
    body = mind.agent.get("/memory/stats").json()
    net_part = {name: body[name] for name in body if name.startswith(("knots", "edges", "entities", "goals", "pres"))}
    # Four knots: k0, k1 active, k2 faded, and k4's, whose memory holds other content since.
    # The mean presence of the active ones: (0.4 + 0.6 + k4's damp(0.7)) / 3.
    k4_presence = KnotPresence.objects.get(knot__memory__key="k4", knot__mind=mind.mind).weight_present
    assert net_part == {
        "knots": 4,
        "knots_active": 3,
        "knots_inactive": 1,
        "knots_superseded": 1,
        "presence_mean": round((0.4 + 0.6 + k4_presence) / 3, 4),
        "edges": 2,
        "entities": 2,
        "goals": 2,
        "goals_active": 1,
    }
    # The memories' own counts are still there beside them.
    assert (body["total"], body["active"]) == (5, 5)


def test_memory_health_counts_pending_from_the_links_and_the_net(net):
    mind, memories, _, _ = net
    Memory.objects.filter(pk=memories[3].pk).update(updated_at=timezone.now() - timedelta(hours=2))
    body = mind.agent.get("/memory/health").json()
    # k3 was never promoted; k4 was, but its link is for the content before the edit.
    assert body["pending_promotion"] == 2
    assert 7200 <= body["oldest_pending_age_seconds"] < 7260
    assert (body["knots"], body["knots_active"], body["edges"]) == (4, 3, 2)
    assert body["memories"] == 5


def test_an_expired_memory_is_not_pending(mind):
    remember(mind.mind, agent_caller(mind.mind), category="fact", content="gone", expires_at=timezone.now())
    assert mind.agent.get("/memory/health").json()["pending_promotion"] == 0


def test_health_counts_every_knot_the_active_ones_and_every_edge_row(staff, net, other_mind):
    theirs = remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="theirs")
    knot_make(memory=theirs, linked=True)
    cache.delete(HEALTH_STATS_CACHE_KEY)
    stats = staff.get("/health").json()["stats"]
    assert (stats["knots"], stats["knots_active"], stats["edges"]) == (5, 4, 2)
    assert stats["memories"] == 6


# --- knot_id ---------------------------------------------------------------------------------


def test_a_memory_shows_the_knot_of_its_current_content_and_null_while_pending(net):
    mind, memories, knots, _ = net
    assert mind.agent.get(f"/memory/{memories[0].pk}").json()["knot_id"] == knots[0].pk
    assert mind.agent.get(f"/memory/{memories[3].pk}").json()["knot_id"] is None
    # Edited after its promotion: the old knot holds the old content, the new one waits (unpromoted).
    body = mind.agent.get(f"/memory/{memories[4].pk}").json()
    assert (body["knot_id"], body["promoted_at"]) == (None, None)


def test_lists_search_and_export_show_the_knot_ids(net):
    mind, memories, knots, _ = net
    expected = {memories[n].pk: knots[n].pk for n in range(3)} | {memories[3].pk: None, memories[4].pk: None}
    listed = {memory["id"]: memory["knot_id"] for memory in mind.agent.get("/memory").json()["results"]}
    assert listed == expected
    found = mind.agent.get("/memory/search", {"q": "fact"}).json()["results"]
    assert {hit["id"]: hit["knot_id"] for hit in found} == {hit["id"]: expected[hit["id"]] for hit in found}
    exported = b"".join(mind.agent.get("/mind/export").streaming_content)
    assert {memory["id"]: memory["knot_id"] for memory in json.loads(exported)["memories"]} == expected


@pytest.mark.parametrize("count", [3, 30])
def test_a_page_of_promoted_memories_costs_one_query_more_whatever_its_size(mind, count, django_assert_num_queries):
    agent = agent_caller(mind.mind)
    for n in range(count):
        knot_make(memory=remember(mind.mind, agent, category="fact", key=f"p{n}", content=f"promoted {n}"), linked=True)
    assert mind.agent.get("/memory").status_code == 200  # the key's last_used_at written before
    # AUTH 1, the page's count and rows 2, LOG 4 — and the page's knot ids, one query.
    with django_assert_num_queries(1 + 2 + 4 + 1):
        body = mind.agent.get("/memory").json()
    assert all(memory["knot_id"] is not None for memory in body["results"])


def test_a_page_of_memories_never_promoted_asks_the_net_nothing(mind, django_assert_num_queries):
    agent = agent_caller(mind.mind)
    for n in range(5):
        remember(mind.mind, agent, category="fact", key=f"n{n}", content=f"new {n}")
    assert mind.agent.get("/memory").status_code == 200
    with django_assert_num_queries(1 + 2 + 4):
        assert [memory["knot_id"] for memory in mind.agent.get("/memory").json()["results"]] == [None] * 5


def test_a_later_contributor_fills_what_the_answer_left_open(mind, monkeypatch):
    """How another part of the net (the promotion's `last_promotion_at`) joins /memory/health:
    it registers its own contributor, merged after the net's, without editing memories."""
    monkeypatch.setattr(contributions, "_contributors", dict(contributions._contributors))
    when = "2026-12-01T10:00:00Z"
    contributions.answer_contributor_register(
        contributions.AnswerContributor(name="promotion", mind_health=lambda mind_id, now: {"last_promotion_at": when})
    )
    body = mind.agent.get("/memory/health").json()
    assert body["last_promotion_at"] == when
    assert body["knots"] == 0  # the net's own part is still there
