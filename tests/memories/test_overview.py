"""GET /memory/stats, /memory/health, /memory/tags and /memory/timeline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.selectors import overview
from tests.factories import knot_make
from tests.memories.insights_support import agent_caller, human_caller, remember

pytestmark = pytest.mark.django_db

ALL_ZERO_CATEGORIES = dict.fromkeys(
    ["identity", "preference", "fact", "project", "skill", "mistake", "context", "note"], 0
)


def ago(**kwargs) -> datetime:
    return timezone.now() - timedelta(**kwargs)


@pytest.fixture
def mixed(owner, mind):
    """identity/user/normal verified; fact/agent/high; fact/agent/low expired; note/tool/critical."""
    agent = agent_caller(mind.mind)
    remember(mind.mind, human_caller(owner.user), category="identity", key="name", content="Michael")
    remember(mind.mind, agent, category="fact", key="city", content="Berlin", priority="high")
    remember(mind.mind, agent, category="fact", key="old", content="Old", priority="low", expires_at=ago(hours=1))
    remember(
        mind.mind, agent, category="note", key="tool_note", content="From a tool", priority="critical", source="tool"
    )
    return mind


# --- stats ------------------------------------------------------------------------------------


def test_stats_count_every_stored_memory_and_the_expired_ones_apart(mixed):
    body = mixed.agent.get("/memory/stats").json()
    assert body == {
        "mind_id": mixed.mind.pk,
        "total": 4,
        "active": 3,
        "expired": 1,
        "verified": 1,
        "unverified": 3,
        "by_category": {**ALL_ZERO_CATEGORIES, "identity": 1, "fact": 2, "note": 1},
        "by_source": {"user": 1, "agent": 2, "tool": 1, "system": 0},
        "by_priority": {"low": 1, "normal": 1, "high": 1, "critical": 1},
        # The long-term net's counts (tests/synapses/test_net_counts.py fills them).
        **dict.fromkeys(("knots", "knots_active", "knots_inactive", "knots_superseded"), 0),
        **dict.fromkeys(("edges", "entities", "goals", "goals_active"), 0),
        "presence_mean": None,
    }


def test_a_memory_counts_as_expired_from_its_expiry_on(mind):
    expiry = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    remember(mind.mind, agent_caller(mind.mind), category="fact", content="Brief", expires_at=expiry)
    before = overview.mind_stats(mind=mind.mind, now=expiry - timedelta(microseconds=1))
    at = overview.mind_stats(mind=mind.mind, now=expiry)
    assert (before["active"], before["expired"], at["active"], at["expired"]) == (1, 0, 0, 1)


def test_stats_of_an_empty_mind_are_all_zero(mind):
    body = mind.agent.get("/memory/stats").json()
    assert (body["total"], body["active"], body["expired"], body["verified"], body["unverified"]) == (0, 0, 0, 0, 0)
    assert body["by_category"] == ALL_ZERO_CATEGORIES


def test_stats_count_only_the_callers_mind(mixed, other_mind):
    remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="Theirs")
    assert other_mind.agent.get("/memory/stats").json()["total"] == 1
    assert mixed.agent.get("/memory/stats").json()["total"] == 4


def test_a_reader_sees_stats_and_an_outsider_gets_404(mixed, reader, outsider):
    assert reader.client.get("/memory/stats", {"mind": mixed.mind.pk}).json()["total"] == 4
    assert outsider.client.get("/memory/stats", {"mind": mixed.mind.pk}).status_code == 404


def test_a_human_must_name_the_mind_for_stats(owner, mind):
    response = owner.client.get("/memory/stats")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["mind"]


# --- health -----------------------------------------------------------------------------------


def test_health_counts_pending_promotions_and_the_age_of_the_oldest(mixed):
    promoted = knot_make(memory=Memory.objects.get(mind=mixed.mind, key="name"), linked=True)
    Memory.objects.filter(mind=mixed.mind, key="city").update(updated_at=ago(hours=1))
    Memory.objects.filter(mind=mixed.mind, key="tool_note").update(updated_at=ago(minutes=10))
    body = mixed.agent.get("/memory/health").json()
    assert body["mind_id"] == mixed.mind.pk
    assert body["memories"] == 4
    # name is promoted and old is expired: city and tool_note wait, city for an hour.
    assert body["pending_promotion"] == 2
    assert 3600 <= body["oldest_pending_age_seconds"] < 3660
    link_time = promoted.memory_links.get().created_at.isoformat().replace("+00:00", "Z")
    assert (body["last_promotion_at"], body["last_decay_at"]) == (link_time, None)
    assert body["worker_alive"] is False  # no worker runs during tests


def test_health_of_a_mind_with_nothing_pending_has_no_age(mind):
    body = mind.agent.get("/memory/health").json()
    assert (body["memories"], body["pending_promotion"], body["oldest_pending_age_seconds"]) == (0, 0, None)


def test_health_reports_a_live_worker(mind, monkeypatch):
    monkeypatch.setattr(overview, "worker_alive", lambda: True)
    assert mind.agent.get("/memory/health").json()["worker_alive"] is True


# --- tags -------------------------------------------------------------------------------------


@pytest.fixture
def tagged(mind):
    agent = agent_caller(mind.mind)
    remember(mind.mind, agent, category="fact", content="a", tags=["docker", "deploy"])
    remember(mind.mind, agent, category="fact", content="b", tags=["Docker"])
    remember(mind.mind, agent, category="fact", content="c", tags=["docker", "swarm"])
    remember(mind.mind, agent, category="fact", content="d", tags=["python"])
    remember(mind.mind, agent, category="fact", content="e")
    remember(mind.mind, agent, category="fact", content="f", tags=["docker", "old"], expires_at=ago(minutes=1))
    return mind


def test_tags_are_counted_most_used_first_then_alphabetically(tagged):
    body = tagged.agent.get("/memory/tags").json()
    assert body == {
        "tags": [
            {"tag": "docker", "count": 3},
            {"tag": "deploy", "count": 1},
            {"tag": "python", "count": 1},
            {"tag": "swarm", "count": 1},
        ],
        "total_tags": 4,
        "total_memories": 5,
    }


def test_tags_include_expired_memories_when_asked(tagged):
    body = tagged.agent.get("/memory/tags", {"include_expired": "true"}).json()
    assert body["tags"][0] == {"tag": "docker", "count": 4}
    assert {"tag": "old", "count": 1} in body["tags"]
    assert (body["total_tags"], body["total_memories"]) == (5, 6)


def test_tags_limit_cuts_the_list_but_not_the_totals(tagged):
    body = tagged.agent.get("/memory/tags", {"limit": "2"}).json()
    assert body["tags"] == [{"tag": "docker", "count": 3}, {"tag": "deploy", "count": 1}]
    assert (body["total_tags"], body["total_memories"]) == (4, 5)


def test_tags_of_an_empty_mind(mind):
    assert mind.agent.get("/memory/tags").json() == {"tags": [], "total_tags": 0, "total_memories": 0}


def test_tags_leave_out_other_minds(tagged, other_mind):
    remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="x", tags=["secret"])
    assert [row["tag"] for row in tagged.agent.get("/memory/tags").json()["tags"]] == [
        "docker",
        "deploy",
        "python",
        "swarm",
    ]


@pytest.mark.parametrize(
    ("params", "field"),
    [({"limit": "0"}, "limit"), ({"limit": "x"}, "limit"), ({"include_expired": "maybe"}, "include_expired")],
)
def test_bad_tag_parameters_answer_400(mind, params, field):
    response = mind.agent.get("/memory/tags", params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


# --- timeline ---------------------------------------------------------------------------------


@pytest.fixture
def dated(mind):
    """Created 2026-06-01 12:00 and 12:30 (facts), 15:10 (note), 2026-06-03 09:00 (fact),
    2026-07-15 08:00 (project). 2026-06-01 is a Monday."""
    agent = agent_caller(mind.mind)
    for content, category, created in [
        ("a", "fact", datetime(2026, 6, 1, 12, 0, tzinfo=UTC)),
        ("b", "fact", datetime(2026, 6, 1, 12, 30, tzinfo=UTC)),
        ("c", "note", datetime(2026, 6, 1, 15, 10, tzinfo=UTC)),
        ("d", "fact", datetime(2026, 6, 3, 9, 0, tzinfo=UTC)),
        ("e", "project", datetime(2026, 7, 15, 8, 0, tzinfo=UTC)),
    ]:
        remember(mind.mind, agent, at=created, category=category, content=content)
    return mind


def test_the_timeline_groups_by_day_by_default_oldest_first(dated):
    body = dated.agent.get("/memory/timeline").json()
    assert body == {
        "period": "day",
        "timeline": [
            {"period": "2026-06-01T00:00:00Z", "count": 3, "categories": {"fact": 2, "note": 1}},
            {"period": "2026-06-03T00:00:00Z", "count": 1, "categories": {"fact": 1}},
            {"period": "2026-07-15T00:00:00Z", "count": 1, "categories": {"project": 1}},
        ],
        "total_periods": 3,
    }


@pytest.mark.parametrize(
    ("period", "expected"),
    [
        (
            "hour",
            [("2026-06-01T12:00:00Z", 2), ("2026-06-01T15:00:00Z", 1), ("2026-06-03T09:00:00Z", 1),
             ("2026-07-15T08:00:00Z", 1)],
        ),
        ("week", [("2026-06-01T00:00:00Z", 4), ("2026-07-13T00:00:00Z", 1)]),
        ("month", [("2026-06-01T00:00:00Z", 4), ("2026-07-01T00:00:00Z", 1)]),
        ("year", [("2026-01-01T00:00:00Z", 5)]),
    ],
)  # fmt: skip
def test_the_timeline_groups_by_each_period(dated, period, expected):
    body = dated.agent.get("/memory/timeline", {"period": period}).json()
    assert [(row["period"], row["count"]) for row in body["timeline"]] == expected
    assert body["total_periods"] == len(expected)


def test_the_timeline_limit_keeps_the_most_recent_periods(dated):
    body = dated.agent.get("/memory/timeline", {"period": "day", "limit": "2"}).json()
    assert [row["period"] for row in body["timeline"]] == ["2026-06-03T00:00:00Z", "2026-07-15T00:00:00Z"]
    assert body["total_periods"] == 3


def test_the_timeline_of_an_empty_mind_is_empty(mind):
    assert mind.agent.get("/memory/timeline").json() == {"period": "day", "timeline": [], "total_periods": 0}


def test_a_bad_period_answers_400_listing_the_allowed_ones(mind):
    response = mind.agent.get("/memory/timeline", {"period": "decade"})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["period"]
    assert "hour, day, week, month, year" in response.json()["error"]["fields"]["period"][0]


# --- access, for every read endpoint of recall, the overviews and export ---------------------

READ_PATHS = [
    "/memory/recall",
    "/memory/stats",
    "/memory/health",
    "/memory/tags",
    "/memory/timeline",
    "/memory/graph",
    "/memory/contradictions",
    "/mind/export",
]


@pytest.mark.parametrize("path", READ_PATHS)
def test_every_overview_needs_credentials(api, path):
    assert api.get(path).status_code == 401


@pytest.mark.parametrize("path", READ_PATHS)
def test_an_outsider_naming_the_mind_gets_404(mind, outsider, path):
    response = outsider.client.get(path, {"mind": mind.mind.pk})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("path", READ_PATHS)
def test_a_reader_naming_the_mind_may_read(mind, reader, path):
    assert reader.client.get(path, {"mind": mind.mind.pk}).status_code == 200


@pytest.mark.parametrize("path", ["/memory/compact", "/mind/import"])
def test_writes_need_credentials(api, path):
    assert api.post(path, {}, format="json").status_code == 401


# --- strict parameters, for every read endpoint of recall, the overviews and export -----------


@pytest.mark.parametrize(
    ("path", "takes"),
    [
        ("/memory/recall", "q, mode, intent, mood, limit, max_chars, format, mind"),
        ("/memory/stats", "mind"),
        ("/memory/health", "mind"),
        ("/memory/tags", "limit, include_expired, mind"),
        ("/memory/timeline", "period, limit, include_expired, mind"),
        ("/memory/graph", "max_nodes, category, tag, min_confidence, include_edges, mind"),
        ("/memory/contradictions", "within, mind"),
        ("/mind/export", "format, mind"),
    ],
)
def test_an_unknown_parameter_answers_400_naming_it_and_what_the_endpoint_takes(mind, path, takes):
    response = mind.agent.get(path, {"limt": "5", "limit_": "5"})
    assert response.status_code == 400
    message = f"Unknown parameter. This endpoint takes: {takes}."
    assert response.json()["error"]["fields"] == {"limit_": [message], "limt": [message]}


def test_format_is_refused_where_it_chooses_nothing(mind):
    response = mind.agent.get("/memory/stats", {"format": "json"})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["format"]
