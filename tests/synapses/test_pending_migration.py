"""A database of the time when `promoted_at` was a stored column (kept by a trigger and by the
promotion's UPDATE) keeps its answers through the move to the pending-promotion table.

The database is migrated back to the state before the move and filled through the historical
models: a promoted memory, a memory never promoted, a parked one, one edited after its promotion;
and a promotion task of each stored name waits in django-q2's queue. Migrated forward, the pending
set is the memories without a link for their current content, `promoted_at` answers from the
links, and the queued tasks, run as the worker runs them, promote what is mature.
"""

from __future__ import annotations

import pydoc
from datetime import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from django_q.models import OrmQ
from django_q.signing import SignedPackage
from django_q.tasks import async_task

from memories.keys import content_hash_of
from memories.models import PendingPromotion
from synapses.models import MemoryKnot

BEFORE_THE_PENDING_TABLE = [
    ("memories", "0010_pending_promotion_index"),
    ("synapses", "0005_edge_redundant_fks"),
]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor.migrate(targets)


def _migrate_to_latest() -> None:
    executor = MigrationExecutor(connection)
    _migrate(executor.loader.graph.leaf_nodes())


def _fill_the_old_schema(apps, mind_id: str) -> dict[str, str]:
    """Four memories as the old schema held them; their ids by role."""
    memory_model = apps.get_model("memories", "Memory")
    now = timezone.now()

    def memory(key: str, content: str, **fields):
        return memory_model.objects.create(
            mind_id=mind_id, category="fact", key=key, content=content, content_hash=content_hash_of(content),
            source="user", speaker="user", confidence=0.9, salience=0.9, created_at=now, updated_at=now, **fields,
        )  # fmt: skip

    promoted = memory("promoted", "Anna moved to Berlin in May.")
    waiting = memory("waiting", "The ferry leaves at dawn.")
    parked = memory("parked", "A memory whose promotion failed three times.")
    edited = memory("edited", "The old version of the edited memory.")
    knot_model = apps.get_model("synapses", "Knot")
    link_model = apps.get_model("synapses", "MemoryKnot")
    for holder in (promoted, edited):
        knot = knot_model.objects.create(
            mind_id=mind_id, memory=holder, content=holder.content, content_hash=holder.content_hash,
            category="fact", observer="user", embedding=[1.0] + [0.0] * 383, embedding_model="hashing-v1",
            weight_raw=0.9, weight_anchor=2.0, source_created_at=now,
        )  # fmt: skip
        link_model.objects.create(
            mind_id=mind_id, memory=holder, content_hash=holder.content_hash, knot=knot, kind="origin", created_at=now
        )
        memory_model.objects.filter(pk=holder.pk).update(promoted_at=now)  # as the old promotion's UPDATE
    apps.get_model("synapses", "PromotionAttempt").objects.create(
        mind_id=mind_id, memory=parked, content_hash=parked.content_hash, attempts=3, last_error="x", parked_at=now
    )
    new_content = "The new version of the edited memory."
    edited.content, edited.content_hash = new_content, content_hash_of(new_content)
    edited.save()  # the old trigger unset its promoted_at
    assert memory_model.objects.get(pk=edited.pk).promoted_at is None
    return {"promoted": promoted.pk, "waiting": waiting.pk, "parked": parked.pk, "edited": edited.pk}


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _queued_tasks_run() -> list[dict]:
    """Every task waiting in the ORM queue, called as the worker calls it (its stored dotted path)."""
    results = []
    for row in OrmQ.objects.order_by("id"):
        task = SignedPackage.loads(row.payload)
        results.append(pydoc.locate(task["func"])(*task["args"], **task["kwargs"]))
        row.delete()
    return results


@pytest.mark.django_db(transaction=True)
def test_an_old_database_with_queued_promotions_keeps_its_pending_set_and_promoted_at(mind):
    try:
        old_state = _migrate(BEFORE_THE_PENDING_TABLE)
        ids = _fill_the_old_schema(old_state.apps, mind.mind.pk)
        OrmQ.objects.all().delete()
        async_task("synapses.tasks.memories_promote", [ids["waiting"], ids["parked"]])
        async_task("synapses.tasks.memory_promote", ids["edited"])

        _migrate_to_latest()

        pending = set(PendingPromotion.objects.values_list("memory_id", flat=True))
        assert pending == {ids["waiting"], ids["parked"], ids["edited"]}
        link = MemoryKnot.objects.get(memory_id=ids["promoted"])
        body = mind.agent.get(f"/memory/{ids['promoted']}").json()
        assert (body["knot_id"], _time(body["promoted_at"])) == (link.knot_id, link.created_at)
        body = mind.agent.get(f"/memory/{ids['edited']}").json()
        assert (body["knot_id"], body["promoted_at"]) == (None, None)  # its link holds the old content

        first, second = _queued_tasks_run()
        assert (first["selected"], first["created"], first["not_pending"]) == (1, 1, 1)  # the parked one waits
        assert (second["selected"], second["created"]) == (1, 1)

        assert set(PendingPromotion.objects.values_list("memory_id", flat=True)) == {ids["parked"]}
        for role in ("waiting", "edited"):
            body = mind.agent.get(f"/memory/{ids[role]}").json()
            link = MemoryKnot.objects.filter(memory_id=ids[role]).latest("created_at")  # the new content's
            assert (body["knot_id"], _time(body["promoted_at"])) == (link.knot_id, link.created_at)
        health = mind.agent.get("/memory/health").json()
        assert (health["pending_promotion"], health["parked"]) == (1, 1)
    finally:
        _migrate_to_latest()
