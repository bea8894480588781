"""GET /memory/audit (who changed what) and GET /memory/diff (what changed since a time)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connections
from django.utils import timezone

from memories.models import Memory, MemoryAudit
from memories.selectors.memory import DIFF_CLOCK_SLACK

pytestmark = pytest.mark.django_db


def store(client, mind_id=None, **body):
    path = "/memory" + (f"?mind={mind_id}" if mind_id else "")
    response = client.post(path, {"category": "fact", **body}, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


# --- /memory/audit ---------------------------------------------------------------------------------


def test_the_audit_lists_every_action_newest_first_with_actor_and_fields(owner, mind):
    memory = store(mind.agent, key="city", content="Berlin")
    mind.agent.patch(f"/memory/{memory['id']}", {"content": "Hamburg"}, format="json")
    owner.client.post(f"/memory/{memory['id']}/verify")
    owner.client.post(f"/memory/{memory['id']}/unverify")
    mind.agent.delete(f"/memory/{memory['id']}")
    body = mind.agent.get("/memory/audit").json()
    agent, human = "agent:" + mind.key[:11], f"user:{owner.user.pk}"
    assert (body["count"], body["limit"], body["offset"]) == (5, 100, 0)
    assert [(row["action"], row["actor"], row["changed_fields"]) for row in body["results"]] == [
        ("deleted", agent, []),
        ("unverified", human, ["verified"]),
        ("verified", human, ["verified"]),
        ("updated", agent, ["content"]),
        ("created", agent, []),
    ]
    assert {row["memory_id"] for row in body["results"]} == {memory["id"]}


def test_an_audit_row_has_exactly_these_fields_and_never_content(mind):
    memory = mind.agent.post(
        "/memory", {"category": "fact", "key": "city", "content": "Secret Berlin address"}, format="json",
        HTTP_X_TURN_ID="turn-42",
    ).json()  # fmt: skip
    response = mind.agent.get("/memory/audit")
    row = response.json()["results"][0]
    stored = MemoryAudit.objects.get(memory_id=memory["id"])
    assert row == {
        "id": stored.pk,
        "memory_id": memory["id"],
        "action": "created",
        "actor": "agent:" + mind.key[:11],
        "changed_fields": [],
        "turn_id": "turn-42",
        "created_at": iso(stored.created_at),
    }
    assert "Secret Berlin" not in response.content.decode()


def test_the_audit_filters_by_action(owner, mind):
    first = store(mind.agent, key="a", content="x")
    store(mind.agent, key="b", content="y")
    owner.client.post(f"/memory/{first['id']}/verify")
    body = mind.agent.get("/memory/audit?action=verified").json()
    assert [(row["action"], row["memory_id"]) for row in body["results"]] == [("verified", first["id"])]


def test_a_bad_action_is_a_400_listing_the_allowed_ones(mind):
    response = mind.agent.get("/memory/audit?action=renamed")
    assert response.status_code == 400
    message = response.json()["error"]["fields"]["action"][0]
    assert "created, updated, deleted, verified, unverified, imported" in message


def test_the_audit_pages_at_100_by_default(mind):
    now = timezone.now()
    MemoryAudit.objects.bulk_create(
        MemoryAudit(mind=mind.mind, memory_id=f"mem_{n:04d}", action="created", actor="agent:x",
                    created_at=now - timedelta(seconds=n))
        for n in range(101)
    )  # fmt: skip
    body = mind.agent.get("/memory/audit").json()
    assert (body["count"], len(body["results"])) == (101, 100)
    assert body["results"][0]["memory_id"] == "mem_0000"
    assert mind.agent.get("/memory/audit?offset=100").json()["results"][0]["memory_id"] == "mem_0100"


def test_a_read_share_may_read_the_audit(reader, mind):
    store(mind.agent, content="x")
    assert reader.client.get(f"/memory/audit?mind={mind.mind.pk}").json()["count"] == 1


# --- /memory/diff ----------------------------------------------------------------------------------


def test_diff_needs_since(mind):
    response = mind.agent.get("/memory/diff")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["since"]


@pytest.mark.parametrize("since", ["yesterday", "2026-13-45", "-5", "1e40"])
def test_a_bad_since_is_a_400_naming_it(mind, since):
    response = mind.agent.get(f"/memory/diff?since={since}")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["since"]


@pytest.mark.parametrize("query", ["limit=0", "limit=1001", "limit=many", "until=5"])
def test_bad_diff_parameters_are_named(mind, query):
    response = mind.agent.get(f"/memory/diff?since=0&{query}")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [query.split("=")[0]]


def test_diff_returns_memories_changed_since_as_full_objects(mind):
    now = timezone.now()
    old = store(mind.agent, key="old", content="old")
    new = store(mind.agent, key="new", content="new")
    Memory.objects.filter(pk=old["id"]).update(changed_at=now - timedelta(hours=2))
    Memory.objects.filter(pk=new["id"]).update(changed_at=now - timedelta(minutes=5))
    body = mind.agent.get(f"/memory/diff?since={iso(now - timedelta(hours=1))}").json()
    assert [memory["id"] for memory in body["changed"]] == [new["id"]]
    assert body["changed"][0]["content"] == "new"
    assert (body["deleted"], body["more"]) == ([], False)
    assert body["since"] == iso(now - timedelta(hours=1))


def test_diff_takes_epoch_seconds(mind):
    memory = store(mind.agent, content="x")
    body = mind.agent.get("/memory/diff?since=0").json()
    assert (body["since"], [m["id"] for m in body["changed"]]) == ("1970-01-01T00:00:00Z", [memory["id"]])


def test_a_memory_changed_exactly_at_since_is_included(mind):
    since = timezone.now() - timedelta(minutes=10)
    memory = store(mind.agent, content="x")
    Memory.objects.filter(pk=memory["id"]).update(changed_at=since)
    assert [m["id"] for m in mind.agent.get(f"/memory/diff?since={iso(since)}").json()["changed"]] == [memory["id"]]
    just_after = iso(since + timedelta(microseconds=1))
    assert mind.agent.get(f"/memory/diff?since={just_after}").json()["changed"] == []


def test_consecutive_polls_see_each_change_once(mind):
    memory = store(mind.agent, key="city", content="Berlin")
    first = mind.agent.get("/memory/diff?since=0").json()
    assert [m["id"] for m in first["changed"]] == [memory["id"]]
    second = mind.agent.get(f"/memory/diff?since={first['now']}").json()
    assert second["changed"] == []
    mind.agent.patch(f"/memory/{memory['id']}", {"content": "Hamburg"}, format="json")
    third = mind.agent.get(f"/memory/diff?since={second['now']}").json()
    assert [m["content"] for m in third["changed"]] == ["Hamburg"]


def test_now_is_the_exclusive_end_of_the_window(mind):
    memory = store(mind.agent, content="x")
    body = mind.agent.get("/memory/diff?since=0").json()
    # A change stamped exactly at `now` is not in this answer; it is in the next one.
    Memory.objects.filter(pk=memory["id"]).update(changed_at=datetime.fromisoformat(body["now"]))
    assert mind.agent.get(f"/memory/diff?since={body['now']}").json()["changed"][0]["id"] == memory["id"]
    assert datetime.fromisoformat(body["now"]) > datetime.fromisoformat(memory["updated_at"])


def test_diff_reports_ids_deleted_since(mind):
    before = timezone.now()
    kept = store(mind.agent, key="kept", content="x")
    gone = store(mind.agent, key="gone", content="y")
    mind.agent.delete(f"/memory/{gone['id']}")
    body = mind.agent.get(f"/memory/diff?since={iso(before)}").json()
    assert body["deleted"] == [gone["id"]]
    assert [m["id"] for m in body["changed"]] == [kept["id"]]
    later = mind.agent.get(f"/memory/diff?since={body['now']}").json()
    assert later["deleted"] == []


def test_diff_includes_expired_memories(mind):
    memory = store(mind.agent, content="x", expires_at=iso(timezone.now() - timedelta(seconds=1)))
    assert [m["id"] for m in mind.agent.get("/memory/diff?since=0").json()["changed"]] == [memory["id"]]


def test_with_more_changes_than_the_limit_the_window_is_cut_and_more_is_true(mind):
    base = timezone.now() - timedelta(hours=1)
    memories = [store(mind.agent, key=f"k{n}", content=f"c{n}") for n in range(3)]
    for n, memory in enumerate(memories):
        Memory.objects.filter(pk=memory["id"]).update(changed_at=base + timedelta(minutes=n))
    first = mind.agent.get("/memory/diff?since=0&limit=2").json()
    assert [m["id"] for m in first["changed"]] == [memories[0]["id"], memories[1]["id"]]
    assert (first["more"], first["now"]) == (True, iso(base + timedelta(minutes=2)))
    second = mind.agent.get(f"/memory/diff?since={first['now']}&limit=2").json()
    assert ([m["id"] for m in second["changed"]], second["more"]) == ([memories[2]["id"]], False)


def test_memories_sharing_a_timestamp_are_never_split_across_answers(mind):
    at = timezone.now() - timedelta(hours=1)
    memories = [store(mind.agent, key=f"k{n}", content=f"c{n}") for n in range(3)]
    Memory.objects.filter(mind=mind.mind).update(changed_at=at)
    first = mind.agent.get("/memory/diff?since=0&limit=2").json()
    assert sorted(m["id"] for m in first["changed"]) == sorted(m["id"] for m in memories)
    assert (first["more"], first["now"]) == (True, iso(at + timedelta(microseconds=1)))
    assert mind.agent.get(f"/memory/diff?since={first['now']}").json()["changed"] == []


def test_an_open_transaction_holds_now_back_to_its_start(mind):
    """A write still in flight may commit a changed_at from before this poll: `now` must not pass it."""
    other = connections.create_connection("default")
    try:
        other.set_autocommit(False)
        with other.cursor() as cursor:
            cursor.execute("SELECT now()")  # the transaction starts here
            (started,) = cursor.fetchone()
        body = mind.agent.get("/memory/diff?since=0").json()
        assert datetime.fromisoformat(body["now"]) == started - DIFF_CLOCK_SLACK
    finally:
        other.rollback()
        other.close()


def test_diff_shows_only_the_callers_mind(mind, other_mind):
    store(other_mind.agent, content="theirs")
    mine = store(mind.agent, content="mine")
    body = mind.agent.get("/memory/diff?since=0").json()
    assert [m["id"] for m in body["changed"]] == [mine["id"]]


def test_diff_reports_imported_memories_although_they_keep_the_files_older_times(mind):
    poll = mind.agent.get("/memory/diff?since=0").json()
    document = {
        "format_version": 1,
        "memories": [
            {"category": "fact", "key": "city", "content": "Berlin", "created_at": "2020-01-01T00:00:00Z",
             "updated_at": "2020-01-02T00:00:00Z"},
        ],
    }  # fmt: skip
    assert mind.agent.post("/mind/import", document, format="json").status_code == 200

    changed = mind.agent.get(f"/memory/diff?since={poll['now']}").json()["changed"]

    assert [(m["key"], m["updated_at"]) for m in changed] == [("city", "2020-01-02T00:00:00Z")]
