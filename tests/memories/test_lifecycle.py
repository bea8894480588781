"""Every write path reports to memories.lifecycle with its event and the memories it touched, and
the long-term net's work is enqueued once per transaction, on commit (captured there, never run
by a worker)."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

import pytest
from django.utils import timezone

from memories.embedders.reembed import memories_reembed
from memories.lifecycle import PROMOTE_TASK, memories_changed_signal
from memories.models import Memory
from minds.services import mind_delete

pytestmark = pytest.mark.django_db


@pytest.fixture
def events():
    """(event, mind id, memory ids) of every lifecycle report, in order."""
    heard: list[tuple[str, str, list[str]]] = []

    def listen(sender, *, event, mind_id, memory_ids, **kwargs):
        heard.append((str(event), mind_id, list(memory_ids)))

    memories_changed_signal.connect(listen, dispatch_uid="test_lifecycle")
    yield heard
    memories_changed_signal.disconnect(dispatch_uid="test_lifecycle")


def promotions(callbacks) -> list[list[str]]:
    """The memory ids of each promotion task the transaction enqueued on commit."""
    return [list(cb.args[1]) for cb in callbacks if isinstance(cb, partial) and cb.args[:1] == (PROMOTE_TASK,)]


def store(client, **fields):
    return client.post("/memory", {"category": "fact", **fields}, format="json")


def test_a_new_memory_is_reported_created_and_enqueued_once(mind, events, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        memory_id = store(mind.agent, key="city", content="Berlin").json()["id"]
    assert events == [("created", mind.mind.pk, [memory_id])]
    assert promotions(callbacks) == [[memory_id]]


def test_an_upsert_and_a_patch_are_reported_updated(mind, events, django_capture_on_commit_callbacks):
    memory_id = store(mind.agent, key="city", content="Berlin").json()["id"]
    with django_capture_on_commit_callbacks() as upsert:
        store(mind.agent, key="city", content="Hamburg")
    with django_capture_on_commit_callbacks() as patch:
        mind.agent.patch(f"/memory/{memory_id}", {"priority": "high"}, format="json")
    assert events[1:] == [("updated", mind.mind.pk, [memory_id]), ("updated", mind.mind.pk, [memory_id])]
    assert (promotions(upsert), promotions(patch)) == ([[memory_id]], [[memory_id]])


def test_an_upsert_that_changes_nothing_reports_nothing(mind, events, django_capture_on_commit_callbacks):
    store(mind.agent, key="city", content="Berlin")
    with django_capture_on_commit_callbacks() as callbacks:
        store(mind.agent, key="city", content="Berlin")
    assert [event for event, _, _ in events] == ["created"]
    assert promotions(callbacks) == []


def test_a_sync_is_one_report_and_one_task_for_the_whole_batch(mind, events, django_capture_on_commit_callbacks):
    items = [{"category": "fact", "key": f"k{n}", "content": f"fact {n}"} for n in range(4)]
    with django_capture_on_commit_callbacks() as callbacks:
        body = mind.agent.post("/memory/sync", {"memories": items}, format="json").json()
    ids = [item["id"] for item in body["results"]]
    assert events == [("synced", mind.mind.pk, ids)]
    assert promotions(callbacks) == [ids]


def test_an_import_is_reported_imported(mind, events, django_capture_on_commit_callbacks):
    document = {"format_version": 1, "memories": [{"category": "fact", "key": "a", "content": "A"}]}
    with django_capture_on_commit_callbacks() as callbacks:
        body = mind.agent.post("/mind/import", document, format="json").json()
    memory_id = body["results"][0]["id"]
    assert events == [("imported", mind.mind.pk, [memory_id])]
    assert promotions(callbacks) == [[memory_id]]


def test_verify_and_unverify_are_reported_and_enqueued(owner, mind, events, django_capture_on_commit_callbacks):
    memory_id = store(mind.agent, key="city", content="Berlin").json()["id"]
    with django_capture_on_commit_callbacks() as verify:
        assert owner.client.post(f"/memory/{memory_id}/verify").status_code == 200
    with django_capture_on_commit_callbacks() as unverify:
        assert owner.client.post(f"/memory/{memory_id}/unverify").status_code == 200
    assert events[1:] == [("verified", mind.mind.pk, [memory_id]), ("unverified", mind.mind.pk, [memory_id])]
    assert (promotions(verify), promotions(unverify)) == ([[memory_id]], [[memory_id]])


def test_a_delete_is_reported_and_enqueues_nothing(mind, events, django_capture_on_commit_callbacks):
    memory_id = store(mind.agent, key="city", content="Berlin").json()["id"]
    with django_capture_on_commit_callbacks() as callbacks:
        assert mind.agent.delete(f"/memory/{memory_id}").status_code == 200
    assert events[-1] == ("deleted", mind.mind.pk, [memory_id])
    assert promotions(callbacks) == []  # the net's rows go by their cascading foreign key


def test_a_compaction_reports_its_summaries_and_expiries_and_enqueues_once(
    mind, events, django_capture_on_commit_callbacks
):
    items = [{"category": "fact", "key": f"d{n}", "content": f"docker fact {n}", "tags": ["docker"]} for n in range(3)]
    items += [{"category": "note", "key": f"p{n}", "content": f"python note {n}", "tags": ["python"]} for n in range(3)]
    mind.agent.post("/memory/sync", {"memories": items}, format="json")
    Memory.objects.filter(mind=mind.mind).update(updated_at=timezone.now() - timedelta(days=40))
    events.clear()
    with django_capture_on_commit_callbacks() as callbacks:
        body = mind.agent.post("/memory/compact", {"older_than": "30d"}, format="json").json()
    summaries = [cluster["summary_id"] for cluster in body["results"]]
    members = [cluster["member_ids"] for cluster in body["results"]]
    assert len(summaries) == 2
    assert events == [
        ("created", mind.mind.pk, [summaries[0]]),
        ("expired", mind.mind.pk, members[0]),
        ("created", mind.mind.pk, [summaries[1]]),
        ("expired", mind.mind.pk, members[1]),
    ]
    assert promotions(callbacks) == [summaries]  # one task for the whole transaction


def test_a_reembed_reports_each_batch_it_wrote(mind, events, django_capture_on_commit_callbacks):
    ids = [store(mind.agent, key=f"k{n}", content=f"fact {n}").json()["id"] for n in range(3)]
    events.clear()
    with django_capture_on_commit_callbacks() as callbacks:
        memories_reembed(mind_id=mind.mind.pk, force=True, batch_size=2)
    assert [(event, mind_id, len(batch)) for event, mind_id, batch in events] == [
        ("reembedded", mind.mind.pk, 2),
        ("reembedded", mind.mind.pk, 1),
    ]
    assert sorted(events[0][2] + events[1][2]) == sorted(ids)
    # Each batch is its own transaction, so each enqueues its own task.
    assert [sorted(batch) for batch in promotions(callbacks)] == [sorted(batch) for _, _, batch in events]


def test_a_mind_delete_is_reported_without_naming_every_memory(mind, events, django_capture_on_commit_callbacks):
    store(mind.agent, key="city", content="Berlin")
    mind_id = mind.mind.pk
    with django_capture_on_commit_callbacks() as callbacks:
        mind_delete(mind=mind.mind)
    assert events[-1] == ("mind_deleted", mind_id, [])
    assert not Memory.objects.filter(mind_id=mind_id).exists()
    assert promotions(callbacks) == []
