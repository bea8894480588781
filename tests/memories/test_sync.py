"""POST /memory/sync: up to 1000 upserts, validated first, written all together or not at all."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_q.models import OrmQ

from memories.embedders import get_embedder
from memories.models import Memory, MemoryAudit

pytestmark = pytest.mark.django_db


def sync(client, memories, mind_id=None):
    path = "/memory/sync" + (f"?mind={mind_id}" if mind_id else "")
    return client.post(path, {"memories": memories}, format="json")


def test_sync_creates_and_updates_and_reports_each_index(mind):
    existing = mind.agent.post("/memory", {"category": "fact", "key": "city", "content": "Berlin"}, format="json")
    response = sync(
        mind.agent,
        [
            {"category": "fact", "key": "city", "content": "Hamburg"},
            {"category": "note", "content": "Buy milk"},
            {"category": "skill", "key": "python", "content": "Writes Python", "tags": ["Code"]},
        ],
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["created"], body["updated"]) == (2, 1)
    assert [(item["index"], item["created"]) for item in body["results"]] == [(0, False), (1, True), (2, True)]
    assert body["results"][0]["id"] == existing.json()["id"]
    stored = {memory.key: memory for memory in Memory.objects.filter(mind=mind.mind)}
    assert stored["city"].content == "Hamburg"
    assert stored["python"].tags == ["code"]
    assert body["results"][2]["id"] == stored["python"].pk
    assert len(stored) == 3


def test_sync_writes_an_audit_row_per_memory(mind):
    body = sync(mind.agent, [{"category": "note", "content": "a"}, {"category": "note", "content": "b"}]).json()
    ids = [item["id"] for item in body["results"]]
    assert len(ids) == 2
    audits = MemoryAudit.objects.filter(memory_id__in=ids)
    assert sorted((row.memory_id, row.action) for row in audits) == sorted((pk, "created") for pk in ids)


def test_invalid_items_are_reported_by_index_and_nothing_is_written(mind):
    mind.agent.post("/memory", {"category": "fact", "key": "city", "content": "Berlin"}, format="json")
    response = sync(
        mind.agent,
        [
            {"category": "fact", "key": "city", "content": "Hamburg"},
            {"category": "fact", "content": "   "},
            {"category": "note", "content": "fine"},
            {"category": "gossip", "content": "x", "priority": "urgent"},
        ],
    )
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert sorted(fields) == ["memories.1.content", "memories.3.category", "memories.3.priority"]
    assert list(Memory.objects.filter(mind=mind.mind).values_list("content", flat=True)) == ["Berlin"]


def test_rules_checked_while_storing_are_reported_by_index_and_roll_everything_back(mind):
    response = sync(
        mind.agent,
        [
            {"category": "note", "content": "written first, then rolled back"},
            {"category": "fact", "content": "x", "source": "user"},
            {"category": "fact", "content": "y", "event_time": "the day the moon fell"},
        ],
    )
    assert response.status_code == 400
    assert sorted(response.json()["error"]["fields"]) == ["memories.1.source", "memories.2.event_time"]
    assert not Memory.objects.exists()
    assert not MemoryAudit.objects.exists()


def test_a_duplicate_category_and_key_in_one_batch_is_applied_in_order_so_the_last_wins(mind):
    response = sync(
        mind.agent,
        [
            {"category": "fact", "key": "city", "content": "Berlin", "priority": "high"},
            {"category": "fact", "key": "city", "content": "Hamburg"},
        ],
    )
    body = response.json()
    assert (body["created"], body["updated"]) == (1, 1)
    assert body["results"][0]["id"] == body["results"][1]["id"]
    memory = Memory.objects.get(mind=mind.mind)
    assert (memory.content, memory.priority) == ("Hamburg", "high")


def test_updated_counts_items_that_matched_an_existing_memory_even_unchanged(mind):
    sync(mind.agent, [{"category": "note", "content": "same"}])
    body = sync(mind.agent, [{"category": "note", "content": "same"}]).json()
    assert (body["created"], body["updated"]) == (0, 1)


def test_an_empty_batch_writes_nothing(mind):
    response = sync(mind.agent, [])
    assert response.json() == {"created": 0, "updated": 0, "results": []}


def test_more_than_1000_memories_are_refused_before_validating_them(mind):
    items = [{"category": "note", "content": "x"}] * 1001
    response = sync(mind.agent, items)
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == ["memories"]
    assert "at most 1000" in fields["memories"][0]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "memories"),
        ({"memories": {"category": "note"}}, "memories"),
        ({"memories": ["not an object"]}, "memories.0.non_field_errors"),
        ({"memories": [], "force": True}, "force"),
    ],
)
def test_a_malformed_body_is_a_400_naming_the_field(mind, body, field):
    response = mind.agent.post("/memory/sync", body, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_a_human_sync_stores_verified_user_memories(owner, mind):
    sync(owner.client, [{"category": "identity", "key": "user_name", "content": "Michael"}], mind.mind.pk)
    memory = Memory.objects.get(mind=mind.mind)
    assert (memory.source, memory.verified, memory.verified_by_id) == ("user", True, owner.user.pk)


def test_a_read_share_cannot_sync(reader, mind):
    response = sync(reader.client, [{"category": "note", "content": "x"}], mind.mind.pk)
    assert response.status_code == 403
    assert not Memory.objects.exists()


def test_sync_writes_into_the_callers_mind_only(mind, other_mind):
    sync(mind.agent, [{"category": "fact", "key": "city", "content": "Berlin"}])
    sync(other_mind.agent, [{"category": "fact", "key": "city", "content": "Paris"}])
    assert Memory.objects.get(mind=mind.mind).content == "Berlin"
    assert Memory.objects.get(mind=other_mind.mind).content == "Paris"


def _batch(size: int, prefix: str) -> dict:
    return {
        "memories": [{"category": "fact", "key": f"{prefix}{n}", "content": f"{prefix} fact {n}"} for n in range(size)]
    }


def test_the_number_of_queries_does_not_grow_with_the_batch(mind, settings):
    settings.PIPELINE_LOG_ENABLED = False  # the log's own writes are not what this counts
    mind.agent.get("/memory/recall")  # the key's first use of the minute writes last_used_at
    # The mind's first vectors record its embedder (one UPDATE, once): done before counting.
    assert mind.agent.post("/memory", {"category": "fact", "content": "first"}, format="json").status_code == 201
    counts = []
    for size, prefix in ((3, "small"), (60, "large")):
        with CaptureQueriesContext(connection) as queries:
            assert mind.agent.post("/memory/sync", _batch(size, prefix), format="json").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
    assert Memory.objects.filter(mind=mind.mind).count() == 64

    # Rewriting the same batches: updates are set-based too.
    rewritten = []
    for size, prefix in ((3, "small"), (60, "large")):
        batch = _batch(size, prefix)
        for item in batch["memories"]:
            item["content"] += " (rewritten)"
        with CaptureQueriesContext(connection) as queries:
            assert mind.agent.post("/memory/sync", batch, format="json").status_code == 200
        rewritten.append(len(queries))
    assert rewritten[0] == rewritten[1]
    assert Memory.objects.get(mind=mind.mind, key="large59").content == "large fact 59 (rewritten)"


def test_a_sync_enqueues_one_promotion_task_for_the_whole_batch(mind, django_capture_on_commit_callbacks):
    before = OrmQ.objects.count()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        mind.agent.post("/memory/sync", _batch(5, "k"), format="json")
    assert len(callbacks) == 1
    assert OrmQ.objects.count() == before + 1


def test_a_sync_embeds_new_and_rewritten_contents(mind):
    mind.agent.post("/memory/sync", _batch(2, "k"), format="json")
    mind.agent.post(
        "/memory/sync", {"memories": [{"category": "fact", "key": "k0", "content": "rewritten"}]}, format="json"
    )
    rows = {m.key: m for m in Memory.objects.filter(mind=mind.mind)}
    assert all(row.embedding is not None and row.embedding_model for row in rows.values())
    assert list(rows["k0"].embedding) == pytest.approx(list(get_embedder().embed(["rewritten"])[0]), abs=1e-6)


def test_a_sync_rewrite_writes_the_verification_columns_it_changes(owner, mind):
    sync(mind.agent, [{"category": "fact", "key": "city", "content": "Berlin"}])
    sync(owner.client, [{"category": "fact", "key": "city", "content": "Hamburg"}], mind_id=mind.mind.pk)
    confirmed = Memory.objects.get(mind=mind.mind, key="city")
    assert (confirmed.verified, confirmed.verified_by_id, confirmed.source) == (True, owner.user.pk, "user")
    assert confirmed.verified_at is not None

    sync(mind.agent, [{"category": "fact", "key": "city", "content": "Munich", "tags": ["moved"]}])
    doubted = Memory.objects.get(mind=mind.mind, key="city")
    assert (doubted.verified, doubted.verified_by_id, doubted.verified_at) == (False, None, None)
    assert (doubted.content, doubted.tags, doubted.source) == ("Munich", ["moved"], "agent")
