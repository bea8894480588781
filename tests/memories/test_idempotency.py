"""`Idempotency-Key` on POST /memory and POST /memory/sync: replay within 24 h, 409 on another body."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone
from django.utils.module_loading import import_string

from memories.models import IdempotencyRecord, Memory
from memories.services.idempotency import idempotency_records_purge, idempotency_run
from memories.tasks import idempotency_records_purge as purge_task
from memoryproject.schedules import SCHEDULES
from tests.processes import wait_for

pytestmark = pytest.mark.django_db

CITY = {"category": "fact", "key": "city", "content": "Berlin"}


def post(client, body, key, path="/memory"):
    return client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_repeat_with_the_same_key_and_body_replays_the_first_response(mind):
    first = post(mind.agent, CITY, "key-1")
    second = post(mind.agent, CITY, "key-1")
    assert (first.status_code, second.status_code) == (201, 201)  # a fresh store would answer 200
    assert second.json() == first.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert Memory.objects.count() == 1


def test_a_replay_does_not_run_the_write_again(mind):
    first = post(mind.agent, CITY, "key-1")
    mind.agent.patch(f"/memory/{first.json()['id']}", {"content": "Hamburg"}, format="json")
    replay = post(mind.agent, CITY, "key-1")
    assert replay.json()["content"] == "Berlin"  # the recorded response, not a new store
    assert Memory.objects.get().content == "Hamburg"


def test_the_same_key_with_another_body_is_a_conflict(mind):
    post(mind.agent, CITY, "key-1")
    response = post(mind.agent, {**CITY, "content": "Hamburg"}, "key-1")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert Memory.objects.get().content == "Berlin"


def test_the_same_key_on_another_path_is_a_conflict(mind):
    post(mind.agent, {"memories": [CITY]}, "key-1", path="/memory/sync")
    assert post(mind.agent, {"memories": [CITY]}, "key-1").status_code == 409


def test_spacing_and_key_order_do_not_make_a_body_different(mind):
    first = mind.agent.post(
        "/memory",
        '{"category": "fact", "key": "city", "content": "Berlin"}',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="key-1",
    )
    second = mind.agent.post(
        "/memory/",
        '{"content":"Berlin","key":"city","category":"fact"}',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="key-1",
    )
    assert second.status_code == 201
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.json() == first.json()


def test_keys_are_scoped_by_mind(mind, other_mind):
    mine = post(mind.agent, CITY, "shared-key")
    theirs = post(other_mind.agent, CITY, "shared-key")
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in theirs.headers
    assert theirs.json()["mind_id"] == other_mind.mind.pk
    assert Memory.objects.count() == 2


def test_a_human_and_the_agent_of_one_mind_share_its_keys(owner, mind):
    post(mind.agent, CITY, "key-1")
    response = owner.client.post(f"/memory?mind={mind.mind.pk}", CITY, format="json", HTTP_IDEMPOTENCY_KEY="key-1")
    assert response.headers["Idempotent-Replayed"] == "true"


def test_a_failed_request_is_not_recorded_so_a_corrected_retry_runs(mind):
    bad = post(mind.agent, {"category": "gossip", "content": "x"}, "key-1")
    assert bad.status_code == 400
    assert not IdempotencyRecord.objects.exists()
    assert post(mind.agent, CITY, "key-1").status_code == 201


def test_a_key_of_255_characters_is_fine_and_256_is_a_400(mind):
    assert post(mind.agent, CITY, "k" * 255).status_code == 201
    response = post(mind.agent, CITY, "k" * 256)
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == ["Idempotency-Key"]
    assert "1–255 characters" in fields["Idempotency-Key"][0]


@pytest.mark.parametrize("key", ["   ", "a\x00b", "tab\tinside"])
def test_a_blank_key_or_one_with_control_characters_is_a_400(mind, key):
    response = post(mind.agent, CITY, key)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["Idempotency-Key"]
    assert not Memory.objects.exists()


def test_a_key_older_than_24_hours_is_forgotten_and_the_request_runs_again(mind):
    first = post(mind.agent, CITY, "key-1")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
    again = post(mind.agent, {**CITY, "content": "Hamburg"}, "key-1")
    assert again.status_code == 200  # ran as a new upsert of the same memory, no 409
    assert "Idempotent-Replayed" not in again.headers
    assert again.json()["id"] == first.json()["id"]
    record = IdempotencyRecord.objects.get()
    assert (record.response_status, record.response_body["content"]) == (200, "Hamburg")


def test_sync_replays_too(mind):
    body = {"memories": [CITY, {"category": "note", "content": "Buy milk"}]}
    first = post(mind.agent, body, "sync-1", path="/memory/sync")
    second = post(mind.agent, body, "sync-1", path="/memory/sync")
    assert first.json()["created"] == 2
    assert second.json() == first.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert Memory.objects.count() == 2


def test_purging_deletes_only_records_older_than_24_hours(mind):
    post(mind.agent, CITY, "old")
    post(mind.agent, {**CITY, "key": "town"}, "fresh")
    now = timezone.now()
    IdempotencyRecord.objects.filter(key="old").update(created_at=now - timedelta(hours=25))
    IdempotencyRecord.objects.filter(key="fresh").update(created_at=now - timedelta(hours=23))
    assert idempotency_records_purge(now=now) == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]


def test_the_daily_schedule_runs_the_purge_task(mind):
    spec = next(spec for spec in SCHEDULES if spec.func == "memories.tasks.idempotency_records_purge")
    assert (spec.full_name, spec.schedule_type) == ("synapse:idempotency-purge", "D")
    assert import_string(spec.func) is purge_task
    post(mind.agent, CITY, "old")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(days=2))
    assert purge_task() == 1
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_identical_requests_racing_run_once_and_the_second_replays_the_first(mind):
    """The second request blocks on the key's unique index until the first commits, then replays it."""
    first_running, release_first = threading.Event(), threading.Event()
    outcomes = {}

    def execute_first():
        first_running.set()
        assert release_first.wait(timeout=30)
        Memory.objects.create(mind=mind.mind, category="fact", key="city", content="Berlin", source="agent",
                              speaker="agent", confidence=0.7, salience=0.7, content_hash="x")  # fmt: skip
        return 201, {"written_by": "first"}

    def execute_second():
        return 201, {"written_by": "second"}

    def request(name, execute):
        try:
            outcomes[name] = idempotency_run(mind=mind.mind, key="race", request_hash="same", execute=execute)
        finally:
            connections.close_all()

    first = threading.Thread(target=request, args=("first", execute_first))
    first.start()
    assert first_running.wait(timeout=30)
    second = threading.Thread(target=request, args=("second", execute_second))
    second.start()
    _wait_until_a_backend_waits_for_a_lock()
    release_first.set()
    first.join(timeout=30)
    second.join(timeout=30)
    assert outcomes["first"].replayed is False
    assert (outcomes["second"].replayed, outcomes["second"].body) == (True, {"written_by": "first"})
    assert Memory.objects.count() == 1


def _wait_until_a_backend_waits_for_a_lock():
    """Poll PostgreSQL (no sleeping on a guess) until another session of this database is blocked on a lock."""
    with connection.cursor() as cursor:

        def blocked() -> int:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return cursor.fetchone()[0]

        if not wait_for(blocked, seconds=30):
            raise AssertionError("The second request never blocked on the first one's claim of the key.")


@pytest.mark.parametrize("path", ["/memory", "/memory/sync"])
def test_a_replay_after_the_memory_was_deleted_answers_404_not_the_dead_id(mind, path):
    memory = {"category": "fact", "content": "Anna's birthday is in May"}
    body = memory if path == "/memory" else {"memories": [memory]}
    first = post(mind.agent, body, "k-deleted", path)
    memory_id = first.json()["id"] if path == "/memory" else first.json()["results"][0]["id"]
    assert mind.agent.delete(f"/memory/{memory_id}").status_code == 200

    replay = post(mind.agent, body, "k-deleted", path)

    assert first.status_code in (200, 201)
    assert replay.status_code == 404
    assert replay.json()["error"]["code"] == "not_found"
    assert memory_id in replay.json()["error"]["message"]
    assert not Memory.objects.filter(mind=mind.mind).exists()  # the write did not run again
