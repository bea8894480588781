"""POST /memory/compact: old unverified agent memories sharing tags become one summary each."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.api.overview_serializers import CompactRequestSerializer
from memories.clustering import clusters_by_tag, summary_content
from memories.models import Memory, MemoryAudit
from memories.services import compact
from memories.services.compact import memories_compact
from tests.memories.insights_support import agent_caller, human_caller, remember

pytestmark = pytest.mark.django_db


def days_ago(days: float, minute: int = 0):
    return timezone.now() - timedelta(days=days) + timedelta(minutes=minute)


@pytest.fixture
def old(owner, mind):
    """Six old agent memories in two themes, and memories that must never be compacted."""
    agent, human = agent_caller(mind.mind), human_caller(owner.user)
    made = {}

    def add(name, who, at, **fields):
        made[name] = remember(mind.mind, who, at=at, key=name, **fields)

    add("d1", agent, days_ago(40, 1), category="fact", content="Use docker compose for dev", tags=["docker", "dev"])
    add("d2", agent, days_ago(40, 2), category="fact", content="Docker images are built in CI", tags=["docker", "ci"],
        priority="high")  # fmt: skip
    add("d3", agent, days_ago(40, 3), category="fact", content="Docker swarm for prod", tags=["dev", "docker", "prod"])
    add("p1", agent, days_ago(40, 4), category="note", content="Python 3.11 everywhere", tags=["python"])
    add("p2", agent, days_ago(40, 5), category="note", content="Use ruff", tags=["python", "lint"])
    add("p3", agent, days_ago(40, 6), category="note", content="pytest for tests", tags=["python"])
    # Never compacted:
    add("human", human, days_ago(50), category="fact", content="Docker is allowed", tags=["docker"])
    add("verified", agent, days_ago(50), category="fact", content="Docker 27 is installed", tags=["docker"])
    Memory.objects.filter(pk=made["verified"].pk).update(verified=True, verified_at=days_ago(45))
    add("recent", agent, days_ago(1), category="fact", content="Docker buildx is set up", tags=["docker"])
    add("tool", agent, days_ago(50), category="fact", content="docker version 27.1", tags=["docker"], source="tool")
    add("expired", agent, days_ago(50), category="fact", content="Old docker note", tags=["docker"],
        expires_at=days_ago(45))  # fmt: skip
    add("untagged", agent, days_ago(50), category="fact", content="No tags here")
    return mind, made


def compact_call(client, **body):
    return client.post("/memory/compact", body, format="json")


def test_old_unverified_agent_memories_are_folded_into_summaries_and_expire(old):
    mind, made = old
    audit_before = MemoryAudit.objects.count()
    response = compact_call(mind.agent)
    assert response.status_code == 200
    body = response.json()
    assert (body["dry_run"], body["clusters_processed"], body["memories_compacted"]) == (False, 2, 6)
    docker, python = body["results"]
    assert (docker["tags"], docker["category"], docker["size"]) == (["docker"], "fact", 3)
    assert docker["member_ids"] == [made["d1"].pk, made["d2"].pk, made["d3"].pk]
    assert (python["tags"], python["category"], python["member_ids"]) == (
        ["python"],
        "note",
        [made["p1"].pk, made["p2"].pk, made["p3"].pk],
    )

    summary = Memory.objects.get(pk=docker["summary_id"], mind=mind.mind)
    assert summary.content == "- Use docker compose for dev\n- Docker images are built in CI\n- Docker swarm for prod"
    assert (summary.source, summary.confidence, summary.verified, summary.tags) == ("system", 0.7, False, ["docker"])
    assert summary.priority == "high"  # the highest of its members
    assert summary.attributes == {"compacted_from": [made["d1"].pk, made["d2"].pk, made["d3"].pk]}
    assert summary.expires_at is None

    members = Memory.objects.filter(pk__in=docker["member_ids"] + python["member_ids"])
    assert all(member.expired for member in members)
    untouched = ["human", "verified", "recent", "tool", "untagged"]
    assert [Memory.objects.get(pk=made[name].pk).expires_at for name in untouched] == [None] * 5
    # 6 members expired ("updated") + 2 summaries created.
    rows = MemoryAudit.objects.filter(mind=mind.mind).order_by("id")[audit_before:]
    assert sorted((row.action, tuple(row.changed_fields)) for row in rows) == sorted(
        [("updated", ("expires_at",))] * 6 + [("created", ())] * 2
    )


def test_each_expired_member_has_an_audit_row_naming_it_and_the_caller(old):
    mind, _ = old
    body = compact_call(mind.agent).json()
    member_ids = [member_id for result in body["results"] for member_id in result["member_ids"]]
    rows = MemoryAudit.objects.filter(mind=mind.mind, action="updated", changed_fields=["expires_at"])
    actor = f"agent:{mind.mind.keys.get().prefix}"
    assert sorted((row.memory_id, row.actor) for row in rows) == sorted((pk, actor) for pk in member_ids)


def test_the_summaries_take_the_place_of_their_members_in_recall(old):
    mind, _ = old
    compact_call(mind.agent)
    keys = [memory["key"] for memory in mind.agent.get("/memory/recall", {"format": "json"}).json()["memories"]]
    assert not {"d1", "d2", "d3", "p1", "p2", "p3"} & set(keys)
    assert len(keys) == 7  # 5 untouched current memories + 2 summaries


def test_a_dry_run_reports_the_groups_and_changes_nothing(old):
    mind, made = old
    before = list(Memory.objects.order_by("pk").values_list("pk", "expires_at", "updated_at"))
    audit_before = MemoryAudit.objects.count()
    body = compact_call(mind.agent, dry_run=True).json()
    assert (body["dry_run"], body["clusters_processed"], body["memories_compacted"]) == (True, 2, 6)
    assert [(result["tags"], result["summary_id"]) for result in body["results"]] == [
        (["docker"], None),
        (["python"], None),
    ]
    assert list(Memory.objects.order_by("pk").values_list("pk", "expires_at", "updated_at")) == before
    assert MemoryAudit.objects.count() == audit_before


def test_compacting_twice_finds_nothing_the_second_time(old):
    mind, _ = old
    compact_call(mind.agent)
    body = compact_call(mind.agent).json()
    assert (body["clusters_processed"], body["memories_compacted"], body["results"]) == (0, 0, [])


def test_max_clusters_stops_after_that_many_groups(old):
    mind, _ = old
    body = compact_call(mind.agent, max_clusters=1).json()
    assert [result["tags"] for result in body["results"]] == [["docker"]]


def test_groups_smaller_than_min_cluster_size_are_left_alone(old):
    mind, _ = old
    assert compact_call(mind.agent, min_cluster_size=4).json()["clusters_processed"] == 0
    # "dev" is carried by two memories, but "docker" (three) is chosen first and takes both of them.
    body = compact_call(mind.agent, min_cluster_size=2, dry_run=True).json()
    assert [result["tags"] for result in body["results"]] == [["docker"], ["python"]]


def test_category_limits_the_candidates(old):
    mind, _ = old
    body = compact_call(mind.agent, category="note").json()
    assert [result["tags"] for result in body["results"]] == [["python"]]


def test_older_than_takes_seconds_or_a_unit(old):
    mind, _ = old
    assert compact_call(mind.agent, older_than="60d").json()["clusters_processed"] == 0
    assert compact_call(mind.agent, older_than=39 * 86400, dry_run=True).json()["clusters_processed"] == 2


@pytest.mark.parametrize("older_than", ["0.5s", 0.5])
def test_older_than_keeps_fractions_of_a_second(older_than):
    request = CompactRequestSerializer(data={"older_than": older_than})
    assert request.is_valid()
    assert request.validated_data["older_than"] == timedelta(milliseconds=500)


def test_an_older_than_reaching_before_the_year_1_finds_nothing_older(old):
    mind, _ = old
    response = compact_call(mind.agent, older_than="200000w")
    assert response.status_code == 200
    assert response.json()["clusters_processed"] == 0


def test_a_human_compaction_writes_system_summaries_audited_as_the_human(old, owner):
    mind, _ = old
    response = owner.client.post(f"/memory/compact?mind={mind.mind.pk}", {}, format="json")
    assert response.status_code == 200
    summary_id = response.json()["results"][0]["summary_id"]
    summary = Memory.objects.get(pk=summary_id)
    assert (summary.source, summary.verified, summary.verified_by) == ("system", False, None)
    assert MemoryAudit.objects.get(memory_id=summary_id).actor == f"user:{owner.user.pk}"


def test_a_reader_cannot_compact(old, reader):
    response = reader.client.post(f"/memory/compact?mind={old[0].mind.pk}", {}, format="json")
    assert response.status_code == 403


def test_compaction_never_touches_another_mind(old, other_mind):
    agent = agent_caller(other_mind.mind)
    for index in range(3):
        remember(other_mind.mind, agent, at=days_ago(40), category="fact", content=f"theirs {index}", tags=["docker"])
    mind, _ = old
    body = compact_call(mind.agent).json()
    assert body["memories_compacted"] == 6
    assert Memory.objects.filter(mind=other_mind.mind, expires_at__isnull=True).count() == 3


def test_a_failure_midway_leaves_nothing_written(old, monkeypatch):
    mind, _ = old
    real_store = compact.memory_store
    calls = []

    def store_then_fail(**kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return real_store(**kwargs)

    monkeypatch.setattr(compact, "memory_store", store_then_fail)
    before = list(Memory.objects.order_by("pk").values_list("pk", "expires_at"))
    with pytest.raises(RuntimeError):
        memories_compact(mind=mind.mind, caller=agent_caller(mind.mind), older_than=timedelta(days=30))
    assert list(Memory.objects.order_by("pk").values_list("pk", "expires_at")) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"max_clusters": 0}, "max_clusters"),
        ({"max_clusters": 51}, "max_clusters"),
        ({"max_clusters": "10"}, "max_clusters"),
        ({"max_clusters": True}, "max_clusters"),
        ({"min_cluster_size": 1}, "min_cluster_size"),
        ({"min_cluster_size": 21}, "min_cluster_size"),
        ({"older_than": "soon"}, "older_than"),
        ({"older_than": 0}, "older_than"),
        ({"dry_run": "yes"}, "dry_run"),
        ({"category": "gossip"}, "category"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_bad_parameters_answer_400_and_write_nothing(old, body, field):
    mind, _ = old
    count = Memory.objects.count()
    response = compact_call(mind.agent, **body)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
    assert Memory.objects.count() == count
    assert not Memory.objects.filter(expires_at__gt=timezone.now() - timedelta(minutes=1)).exists()


def test_the_summary_lists_each_member_and_indents_its_further_lines():
    assert summary_content(["One", "Two lines\nsecond line", "Three"]) == ("- One\n- Two lines\n  second line\n- Three")


# Bounds no test example reaches.
UNBOUNDED = {"max_members": 100, "max_chars": 50_000}


def unsaved(pk: str, tags: list[str], content: str = "c") -> Memory:
    return Memory(id=pk, tags=tags, content=content, category="fact")


def test_the_tag_most_memories_carry_seeds_the_first_group():
    memories = [unsaved("a", ["x", "y"]), unsaved("b", ["x"]), unsaved("c", ["x"]), unsaved("d", ["y"]),
                unsaved("e", ["y"]), unsaved("f", ["y", "z"])]  # fmt: skip
    groups = clusters_by_tag(memories, max_clusters=10, min_cluster_size=3, **UNBOUNDED)
    # y (4) beats x (3); then only b and c carry x: too few.
    assert [([m.pk for m in members], shared) for members, shared in groups] == [(["a", "d", "e", "f"], ["y"])]
    groups = clusters_by_tag(memories, max_clusters=10, min_cluster_size=2, **UNBOUNDED)
    assert [([m.pk for m in members], shared) for members, shared in groups] == [
        (["a", "d", "e", "f"], ["y"]),
        (["b", "c"], ["x"]),
    ]


def test_equally_common_tags_are_taken_alphabetically():
    memories = [unsaved("p", ["n"]), unsaved("q", ["n"]), unsaved("r", ["m"]), unsaved("s", ["m"])]
    groups = clusters_by_tag(memories, max_clusters=10, min_cluster_size=2, **UNBOUNDED)
    assert [shared for _, shared in groups] == [["m"], ["n"]]


def test_a_theme_whose_contents_do_not_fit_one_summary_is_skipped():
    memories = [unsaved("a", ["x"], "a" * 10), unsaved("b", ["x"], "b" * 10)]
    # "- aaaaaaaaaa\n- bbbbbbbbbb" is 25 characters: only one member fits, fewer than 2.
    assert clusters_by_tag(memories, max_clusters=10, min_cluster_size=2, max_members=100, max_chars=20) == []


@pytest.mark.parametrize("spare", [0, -1])
def test_a_group_takes_members_while_their_summary_fits(spare):
    contents = ["a" * 10, "two lines\n\nand a gap", "", "last"]
    memories = [unsaved(str(index), ["x"], content) for index, content in enumerate(contents)]
    fit = len(summary_content(contents)) + spare
    (members, _), *_ = clusters_by_tag(memories, max_clusters=1, min_cluster_size=2, max_members=100, max_chars=fit)
    # With one character less the last member no longer fits.
    assert [member.content for member in members] == contents[: len(contents) + spare]
