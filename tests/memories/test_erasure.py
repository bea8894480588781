"""Deleting is erasing: a secret stored, copied everywhere a memory's content goes (the log's request
bodies and the rows that quote it, a knot, a compaction summary and its knot, an idempotency
record, a worker's task row), then deleted — after the log's task ran, no column of any table
holds it. And a PATCH that took a pasted secret out can purge the earlier versions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import Schedule, Task

from memories.models import AuditAction, Memory, MemoryAudit
from pipelinelog.erasure import ERASED, ERASURE_SOON_SCHEDULE
from pipelinelog.models import Erasure, ErasureReason, LogEntry
from pipelinelog.spans import span
from pipelinelog.tasks import erasure_apply
from synapses.models import Entity, Knot
from synapses.promotion.service import memories_promote
from tests.ui.conftest import logged_in

pytestmark = pytest.mark.django_db

# Unusual enough that no other text of the test holds it; searched case-insensitively, so the
# full-text columns (lower-cased lexemes) are searched too.
SECRET = "zebra4711pin"
SECRET_CONTENT = f"The bank PIN of Anna is {SECRET}, keep it safe"
TEXT_TYPES = ("text", "character varying", "jsonb", "json", "tsvector", "ARRAY")


def tables_holding(needle: str) -> list[str]:
    """Every `table.column` of the database whose text (any text, JSON, array or tsvector column,
    cast to text) holds `needle`, and django-q2's pickled task rows read as Python."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND data_type = ANY(%s) ORDER BY 1, 2",
            [list(TEXT_TYPES)],
        )
        columns = cursor.fetchall()
        found = []
        quote = connection.ops.quote_name
        for table, column in columns:
            cursor.execute(
                f"SELECT count(*) FROM {quote(table)} WHERE {quote(column)}::text ILIKE %s",  # noqa: S608 — names from the catalog
                [f"%{needle}%"],
            )
            if cursor.fetchone()[0]:
                found.append(f"{table}.{column}")
    found += [
        f"django_q_task {task.pk}"
        for task in Task.objects.all()
        if needle in repr((task.args, task.kwargs, task.result)).lower()
    ]
    return found


def _age(*memory_ids: str, days: int) -> None:
    then = timezone.now() - timedelta(days=days)
    Memory.objects.filter(pk__in=memory_ids).update(created_at=then, updated_at=then)


@pytest.fixture
def secret_everywhere(mind):
    """The secret in a memory and every copy the product makes of it."""
    agent = mind.agent
    stored = agent.post(
        "/memory",
        {"category": "fact", "content": SECRET_CONTENT, "tags": ["bank"], "entities": ["Zebrabank"], "salience": 0.9},
        format="json",
        HTTP_IDEMPOTENCY_KEY="store-the-pin",
    )
    assert stored.status_code == 201, stored.content
    secret_id = stored.json()["id"]
    others = [
        agent.post("/memory", {"category": "fact", "content": text, "tags": ["bank"]}, format="json").json()["id"]
        for text in ("Anna banks with the savings bank", "The bank opens at nine")
    ]
    assert memories_promote(memory_ids=[secret_id, *others], now_all=True).created == 3
    # Searches whose answers quote it (a query is the asker's words, not the memory's: it stays).
    assert SECRET in agent.get("/memory/search", {"q": "Anna PIN"}).content.decode()
    assert agent.get("/memory/recall", {"q": "bank PIN"}).status_code == 200
    _age(secret_id, *others, days=40)
    compacted = agent.post("/memory/compact", {}, format="json").json()
    (cluster,) = compacted["results"]
    summary_id = cluster["summary_id"]
    assert memories_promote(memory_ids=[summary_id], now_all=True).created == 1
    # A row that quotes the content inside a longer text (a span's note).
    with span("tests.quote", mind=mind.mind) as sp:
        sp.note({"heard": [f"someone said: {SECRET_CONTENT} and more"], "kept": "other words"})
    # A worker's failure that quoted the content (an embedding server's error echoing its input).
    Task.objects.create(
        id="f" * 32, name="failed-embedding", func="synapses.tasks.memories_promote", args=([secret_id],),
        result=f"embedder refused {SECRET_CONTENT!r}", started=timezone.now(), stopped=timezone.now(),
        success=False,
    )  # fmt: skip
    return mind, secret_id, summary_id


def test_a_deleted_secret_is_in_no_table_once_the_logs_task_ran(secret_everywhere):
    mind, secret_id, summary_id = secret_everywhere
    before = tables_holding(SECRET)
    # The copies are really there: the scan can see each kind of them.
    for place in (
        "memories_memory.content",
        "synapses_knot.content",
        "pipelinelog_logentry.content",
        "memories_idempotencyrecord.response_body",
        f"django_q_task {'f' * 32}",
    ):
        assert place in before
    assert Knot.objects.filter(memory_id=summary_id).count() == 1

    answer = mind.agent.delete(f"/memory/{secret_id}")
    assert answer.status_code == 200
    # What the request could do cheaply is done at once; the log waits for its task.
    after_request = tables_holding(SECRET)
    assert [place for place in after_request if not place.startswith(("pipelinelog", "django_q"))] == []
    assert "pipelinelog_erasure.texts" in after_request  # what the task will look for, until it ran

    totals = erasure_apply()

    assert tables_holding(SECRET) == []
    assert (totals["erasures"], totals["tasks"]) == (1, 1)
    assert totals["bodies"] >= 2 and totals["rows"] >= 1  # the store's body, the summary's; the quoting note
    # The entity found only in the secret went; the summary lost the line and its old knot.
    assert not Entity.objects.filter(mind=mind.mind, name="Zebrabank").exists()
    summary = Memory.objects.get(pk=summary_id)
    # (The members share one time, so their order is their ids'.)
    assert sorted(summary.content.splitlines()) == ["- Anna banks with the savings bank", "- The bank opens at nine"]
    assert secret_id not in summary.attributes["compacted_from"]
    assert not Knot.objects.filter(memory_id=summary_id).exists()  # the new version waits for promotion
    # That the deletion happened stays: the audit row, the request's rows, the erasure record.
    assert MemoryAudit.objects.filter(memory_id=secret_id, action=AuditAction.DELETED).exists()
    assert LogEntry.objects.filter(mind=mind.mind, content__path=f"/memory/{secret_id}").exists()
    record = Erasure.objects.get(memory_id=secret_id)
    assert (record.reason, record.texts, record.applied_at is not None) == (ErasureReason.MEMORY_DELETED, [], True)
    assert LogEntry.objects.filter(mind=mind.mind, content__body=ERASED).exists()
    assert LogEntry.objects.filter(mind=mind.mind, content={"heard": [ERASED], "kept": "other words"}).exists()
    # A replay of the first store no longer brings the content back.
    replay = mind.agent.post(
        "/memory",
        {"category": "fact", "content": SECRET_CONTENT, "tags": ["bank"], "entities": ["Zebrabank"], "salience": 0.9},
        format="json",
        HTTP_IDEMPOTENCY_KEY="store-the-pin",
    )
    assert SECRET not in replay.content.decode()


def test_a_second_run_finds_nothing_to_do(secret_everywhere):
    mind, secret_id, _ = secret_everywhere
    mind.agent.delete(f"/memory/{secret_id}")
    erasure_apply()
    assert erasure_apply()["erasures"] == 0


def test_purging_earlier_versions_erases_a_pasted_secret_and_keeps_the_memory(mind):
    agent = mind.agent
    stored = agent.post("/memory", {"category": "fact", "key": "bank", "content": SECRET_CONTENT, "salience": 0.9},
                        format="json")  # fmt: skip
    memory_id = stored.json()["id"]
    memories_promote(memory_ids=[memory_id], now_all=True)
    fixed = agent.patch(f"/memory/{memory_id}", {"content": "The bank PIN of Anna is in the safe"}, format="json")
    assert fixed.status_code == 200
    memories_promote(memory_ids=[memory_id], now_all=True)
    assert Knot.objects.filter(memory_id=memory_id).count() == 2
    assert "synapses_knot.content" in tables_holding(SECRET)

    answer = agent.delete(f"/memory/{memory_id}/versions")

    assert answer.status_code == 200, answer.content
    assert answer.json() == {"id": memory_id, "versions_purged": 1}
    erasure_apply()
    assert tables_holding(SECRET) == []
    assert Memory.objects.get(pk=memory_id).content == "The bank PIN of Anna is in the safe"
    assert Knot.objects.get(memory_id=memory_id).content == "The bank PIN of Anna is in the safe"
    assert MemoryAudit.objects.filter(memory_id=memory_id, action=AuditAction.PURGED).exists()


def test_purging_a_memory_of_another_mind_answers_404(mind, other_mind):
    memory_id = other_mind.agent.post("/memory", {"category": "fact", "content": "mine"}, format="json").json()["id"]
    assert mind.agent.delete(f"/memory/{memory_id}/versions").status_code == 404


def test_the_memory_page_has_a_button_that_erases_earlier_versions(owner, reader, mind):
    memory_id = mind.agent.post("/memory", {"category": "fact", "content": SECRET_CONTENT, "salience": 0.9},
                                format="json").json()["id"]  # fmt: skip
    memories_promote(memory_ids=[memory_id], now_all=True)
    mind.agent.patch(f"/memory/{memory_id}", {"content": "The PIN is in the safe"}, format="json")
    client = logged_in(owner)
    action = f"/app/memories/{memory_id}/versions/purge/"
    assert f'action="{action}"' in client.get(f"/app/memories/{memory_id}/").content.decode()
    assert logged_in(reader).post(action).status_code == 403

    response = client.post(action)

    assert response.status_code == 302 and response["Location"] == f"/app/memories/{memory_id}/"
    assert not Knot.objects.filter(memory_id=memory_id).exists()
    assert Erasure.objects.filter(memory_id=memory_id, reason=ErasureReason.VERSIONS_PURGED).exists()


def test_deleting_a_mind_erases_it_and_records_that_it_happened(owner, mind):
    memory_id = mind.agent.post("/memory", {"category": "fact", "content": SECRET_CONTENT}, format="json").json()["id"]
    memories_promote(memory_ids=[memory_id], now_all=True)
    assert "pipelinelog_logentry.content" in tables_holding(SECRET)

    assert owner.client.delete(f"/minds/{mind.mind.pk}").status_code in (200, 204)
    erasure_apply()

    assert tables_holding(SECRET) == []
    record = Erasure.objects.get(mind_id=mind.mind.pk)
    assert (record.reason, record.memory_id, record.applied_at is not None) == (ErasureReason.MIND_DELETED, "", True)


def test_a_deletion_schedules_one_run_thirty_seconds_after_its_commit(mind, django_capture_on_commit_callbacks):
    ids = [mind.agent.post("/memory", {"category": "fact", "content": f"note {n}"}, format="json").json()["id"]
           for n in range(2)]  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        mind.agent.delete(f"/memory/{ids[0]}")
    with django_capture_on_commit_callbacks(execute=True):
        mind.agent.delete(f"/memory/{ids[1]}")

    (soon,) = Schedule.objects.filter(name=ERASURE_SOON_SCHEDULE)
    assert (soon.func, soon.schedule_type, soon.repeats) == ("pipelinelog.tasks.erasure_apply", Schedule.ONCE, -1)
    assert timedelta(seconds=25) < soon.next_run - timezone.now() <= timedelta(seconds=30)
    assert Erasure.objects.filter(applied_at__isnull=True).count() == 2
