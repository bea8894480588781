"""GET /mind/export (json, csv) and POST /mind/import (the json format; idempotent)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from datetime import datetime, timedelta
from functools import partial

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.embedders import get_embedder
from memories.models import Memory, MemoryAudit
from minds.models import Mind
from minds.services import mind_create
from tests.conftest import client_with_token
from tests.memories.insights_support import T0, agent_caller, human_caller, minutes, remember

pytestmark = pytest.mark.django_db


def read_json(response) -> dict:
    return json.loads(b"".join(response.streaming_content))


def read_text(response) -> str:
    return b"".join(response.streaming_content).decode("utf-8")


@pytest.fixture
def rich(owner, mind):
    """Memories with every kind of field, created at known times."""
    agent, human = agent_caller(mind.mind), human_caller(owner.user)
    remember(mind.mind, human, at=T0 + minutes(1), category="identity", key="user_name", content="Michael Schäfer",
             priority="critical", tags=["person", "identity"], entities=["Michael"])  # fmt: skip
    remember(mind.mind, agent, at=T0 + minutes(2), category="project", key="deploy_notes",
             content='Deploy steps:\n1. build, then "push"\n2. restart', tags=["deploy", "docker"],
             attributes={"repo": "synapse", "steps": 2}, event_time="2026-10-17", emotion="joy",
             confidence=0.4, salience=0.9, speaker="user")  # fmt: skip
    remember(mind.mind, agent, at=T0 + minutes(3), category="note", content="Keyless, with a comma", source="tool")
    remember(mind.mind, agent, at=T0 + minutes(4), category="context", key="old_context", content="Expired already",
             expires_at=timezone.now() - timedelta(days=1))  # fmt: skip
    Memory.objects.filter(mind=mind.mind, key="old_context").update(created_at=T0 + minutes(4))
    return mind


def export(client, mind_id=None, **params):
    if mind_id:
        params["mind"] = mind_id
    return client.get("/mind/export", params)


# --- export -----------------------------------------------------------------------------------


def test_the_json_export_holds_the_mind_and_every_memory_oldest_first(rich):
    response = export(rich.agent)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = read_json(response)
    assert body["format_version"] == 1
    created_at = body["mind"]["created_at"]
    assert created_at.endswith("Z")
    assert datetime.fromisoformat(created_at) == Mind.objects.get(pk=rich.mind.pk).created_at
    assert body["mind"] == {
        "id": rich.mind.pk,
        "name": "Michael's Mind",
        "description": "",
        "created_at": created_at,
    }
    assert (body["knots"], body["edges"], body["entities"], body["goals"]) == ([], [], [], [])
    assert [memory["key"] for memory in body["memories"]] == [
        "user_name",
        "deploy_notes",
        "note_" + hashlib.sha256(b"Keyless, with a comma").hexdigest()[:12],
        "old_context",
    ]
    deploy = body["memories"][1]
    assert deploy["content"] == 'Deploy steps:\n1. build, then "push"\n2. restart'
    assert (deploy["created_at"], deploy["updated_at"]) == ("2026-06-01T12:02:00Z", "2026-06-01T12:02:00Z")
    assert (deploy["event_time"], deploy["event_precision"], deploy["emotion"]) == (
        "2026-10-17T00:00:00Z",
        "day",
        "joy",
    )
    assert deploy["attributes"] == {"repo": "synapse", "steps": 2}
    assert body["memories"][3]["expired"] is True


def test_the_csv_export_has_one_quoted_row_per_memory(rich):
    response = export(rich.agent, format="csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="synapse-{rich.mind.pk}-{timezone.now():%Y%m%d}.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(read_text(response), newline="")))
    assert len(rows) == 4
    name, deploy, keyless, _ = rows
    assert (name["key"], name["tags"], name["verified"], name["verified_by"]) == (
        "user_name",
        "person;identity",
        "true",
        "owner@example.com",
    )
    assert deploy["content"] == 'Deploy steps:\n1. build, then "push"\n2. restart'
    assert deploy["attributes"] == '{"repo": "synapse", "steps": 2}'
    assert (deploy["expires_at"], deploy["tags"], deploy["created_at"]) == ("", "deploy;docker", "2026-06-01T12:02:00Z")
    assert keyless["content"] == "Keyless, with a comma"
    assert list(rows[0]) == [
        "id", "category", "key", "content", "tags", "priority", "source", "speaker", "verified", "verified_at",
        "verified_by", "confidence", "salience", "expires_at", "expired", "entities", "event_time", "event_precision",
        "emotion", "attributes", "turn_id", "created_at", "updated_at", "promoted_at",
    ]  # fmt: skip


def test_the_csv_quotes_commas_quotes_and_line_breaks(rich):
    text = read_text(export(rich.agent, format="csv"))
    assert ',"Deploy steps:\n1. build, then ""push""\n2. restart",' in text
    assert ',"Keyless, with a comma",' in text


def test_an_export_holds_only_the_callers_mind(rich, other_mind):
    remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", content="theirs")
    assert [m["content"] for m in read_json(export(other_mind.agent))["memories"]] == ["theirs"]


def test_a_reader_may_export_and_an_outsider_may_not(rich, reader, outsider):
    assert len(read_json(export(reader.client, rich.mind.pk))["memories"]) == 4
    assert export(outsider.client, rich.mind.pk).status_code == 404


def test_a_bad_export_format_answers_400_listing_the_formats(rich):
    response = export(rich.agent, format="xml")
    assert response.status_code == 400
    assert "json, csv" in response.json()["error"]["fields"]["format"][0]


def test_an_unknown_export_parameter_answers_400_naming_it(rich):
    response = export(rich.agent, formt="csv")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"formt": ["Unknown parameter. This endpoint takes: format, mind."]}


def test_a_human_names_the_mind_and_the_format(rich, owner):
    response = export(owner.client, rich.mind.pk, format="csv")
    assert response.status_code == 200
    assert len(list(csv.DictReader(io.StringIO(read_text(response), newline="")))) == 4


# --- import: the acceptance round trip --------------------------------------------------------

COMPARED = ("content", "key", "category", "tags", "priority", "created_at", "updated_at", "expires_at", "source",
            "speaker", "verified", "confidence", "salience", "entities", "event_time", "event_precision", "emotion",
            "attributes")  # fmt: skip


def test_an_export_imported_into_a_new_mind_reproduces_every_memory(rich, owner):
    document = read_json(export(rich.agent))
    new_mind, _ = mind_create(owner=owner.user, name="Copy")
    response = owner.client.post(f"/mind/import?mind={new_mind.pk}", document, format="json")
    assert response.status_code == 200
    assert (response.json()["created"], response.json()["updated"], response.json()["skipped"]) == (4, 0, 0)

    def snapshot(mind):
        return {
            (m.category, m.key): {name: getattr(m, name) for name in COMPARED} for m in Memory.objects.filter(mind=mind)
        }

    original, copy = snapshot(rich.mind), snapshot(new_mind)
    assert copy == original
    assert len(copy) == 4
    # And the copy exports to the same memories.
    again = read_json(export(owner.client, new_mind.pk))["memories"]
    assert [{k: m[k] for k in COMPARED} for m in again] == [{k: m[k] for k in COMPARED} for m in document["memories"]]


def test_importing_the_same_file_twice_changes_nothing(rich, owner):
    document = read_json(export(rich.agent))
    new_mind, _ = mind_create(owner=owner.user, name="Copy")
    owner.client.post(f"/mind/import?mind={new_mind.pk}", document, format="json")
    before = list(Memory.objects.filter(mind=new_mind).order_by("pk").values())
    audits = MemoryAudit.objects.filter(mind=new_mind).count()
    body = owner.client.post(f"/mind/import?mind={new_mind.pk}", document, format="json").json()
    assert (body["created"], body["updated"], body["skipped"]) == (0, 0, 4)
    assert [row["status"] for row in body["results"]] == ["skipped"] * 4
    assert list(Memory.objects.filter(mind=new_mind).order_by("pk").values()) == before
    assert MemoryAudit.objects.filter(mind=new_mind).count() == audits


def test_importing_a_minds_own_export_skips_everything(rich):
    document = read_json(export(rich.agent))
    body = rich.agent.post("/mind/import", document, format="json").json()
    assert (body["created"], body["updated"], body["skipped"]) == (0, 0, 4)
    assert [row["id"] for row in body["results"]] == [m["id"] for m in document["memories"]]


def promotions_of(callbacks) -> list[tuple]:
    """The promotion tasks enqueued on commit: (task, memory ids)."""
    return [callback.args for callback in callbacks if isinstance(callback, partial)]


def test_an_import_enqueues_one_promotion_task_for_what_it_wrote_oldest_first(mind, django_capture_on_commit_callbacks):
    document = {
        "format_version": 1,
        "memories": [
            {"category": "fact", "key": "later", "content": "B", "created_at": (T0 + minutes(2)).isoformat()},
            {"category": "fact", "key": "earlier", "content": "A", "created_at": T0.isoformat()},
        ],
    }
    with django_capture_on_commit_callbacks() as callbacks:
        body = mind.agent.post("/mind/import", document, format="json").json()
    later, earlier = (row["id"] for row in body["results"])
    assert promotions_of(callbacks) == [("synapses.tasks.memories_promote", [earlier, later])]
    with django_capture_on_commit_callbacks() as callbacks:
        assert mind.agent.post("/mind/import", document, format="json").json()["skipped"] == 2
    assert promotions_of(callbacks) == []


def test_imports_are_audited_as_imported(owner, mind):
    document = {"format_version": 1, "memories": [{"category": "fact", "key": "a", "content": "A"}]}
    body = owner.client.post(f"/mind/import?mind={mind.mind.pk}", document, format="json").json()
    row = MemoryAudit.objects.get(memory_id=body["results"][0]["id"])
    assert (row.action, row.actor, row.changed_fields) == ("imported", f"user:{owner.user.pk}", [])


# --- import: rules ----------------------------------------------------------------------------


def one(**memory) -> dict:
    return {"format_version": 1, "memories": [{"category": "fact", "key": "city", **memory}]}


def test_a_newer_version_in_the_file_replaces_the_stored_one(owner, mind):
    remember(mind.mind, agent_caller(mind.mind), at=T0, category="fact", key="city", content="Berlin")
    later = (T0 + timedelta(days=1)).isoformat()
    body = mind.agent.post("/mind/import", one(content="Hamburg", updated_at=later, created_at=later), format="json")
    assert body.json()["updated"] == 1
    memory = Memory.objects.get(mind=mind.mind, key="city")
    assert (memory.content, memory.updated_at) == ("Hamburg", T0 + timedelta(days=1))
    row = MemoryAudit.objects.filter(memory_id=memory.pk, action="imported").get()
    assert row.changed_fields == ["content", "created_at", "updated_at"]


def test_an_import_locks_the_stored_rows_without_loading_their_vectors_and_embeds_a_replaced_content(mind):
    remember(mind.mind, agent_caller(mind.mind), at=T0, category="fact", key="city", content="Berlin")
    later = (T0 + timedelta(days=1)).isoformat()
    with CaptureQueriesContext(connection) as queries:
        response = mind.agent.post("/mind/import", one(content="Hamburg", updated_at=later), format="json")
    assert response.json()["updated"] == 1
    locks = [query["sql"] for query in queries.captured_queries if " FOR UPDATE" in query["sql"]]
    assert len(locks) == 1
    assert '"memories_memory"."embedding"' not in locks[0]
    memory = Memory.objects.get(mind=mind.mind, key="city")
    assert list(memory.embedding) == pytest.approx(list(get_embedder().embed(["Hamburg"])[0]), abs=1e-6)


def test_an_older_version_in_the_file_does_not_overwrite_a_newer_memory(mind):
    remember(mind.mind, agent_caller(mind.mind), at=T0, category="fact", key="city", content="Berlin")
    earlier = (T0 - timedelta(days=1)).isoformat()
    body = mind.agent.post("/mind/import", one(content="Bonn", updated_at=earlier, created_at=earlier), format="json")
    assert (body.json()["updated"], body.json()["skipped"]) == (0, 1)
    assert Memory.objects.get(mind=mind.mind, key="city").content == "Berlin"


def test_a_mind_key_import_cannot_bring_in_verified_or_user_memories(mind):
    body = mind.agent.post(
        "/mind/import", one(content="Berlin", source="user", verified=True, verified_at=T0.isoformat()), format="json"
    ).json()
    assert (body["created"], body["downgraded"]) == (1, 1)
    memory = Memory.objects.get(mind=mind.mind, key="city")
    assert (memory.source, memory.speaker, memory.verified, memory.verified_at) == ("agent", "user", False, None)


def test_a_human_import_keeps_verification_from_the_file(owner, mind):
    document = one(content="Berlin", source="agent", verified=True, verified_at=T0.isoformat())
    owner.client.post(f"/mind/import?mind={mind.mind.pk}", document, format="json")
    memory = Memory.objects.get(mind=mind.mind, key="city")
    assert (memory.source, memory.verified, memory.verified_at, memory.verified_by) == (
        "agent",
        True,
        T0,
        owner.user,
    )


def test_a_human_import_keeps_an_unverified_memory_unverified(owner, mind):
    owner.client.post(
        f"/mind/import?mind={mind.mind.pk}", one(content="x", source="agent", verified=False), format="json"
    )
    assert Memory.objects.get(mind=mind.mind, key="city").verified is False


def test_one_invalid_memory_rejects_the_whole_import_naming_it_by_index(mind):
    document = {
        "format_version": 1,
        "memories": [
            {"category": "fact", "content": "fine"},
            {"category": "fact", "content": "also fine", "tags": ["a"]},
            {"category": "gossip", "content": ""},
            "not an object",
        ],
    }
    response = mind.agent.post("/mind/import", document, format="json")
    assert response.status_code == 400
    assert sorted(response.json()["error"]["fields"]) == [
        "memories.2.category",
        "memories.2.content",
        "memories.3.body",
    ]
    assert not Memory.objects.filter(mind=mind.mind).exists()


def test_an_items_memory_and_time_errors_are_named_together_and_valid_items_between_pass(mind):
    document = {
        "format_version": 1,
        "memories": [
            {"category": "gossip", "content": "x", "updated_at": "last week"},
            {"category": "fact", "content": "fine", "created_at": "2026-06-01"},
            {"category": "fact", "content": "also fine", "created_at": "2999-01-01T00:00:00Z"},
        ],
    }
    response = mind.agent.post("/mind/import", document, format="json")
    assert response.status_code == 400
    assert sorted(response.json()["error"]["fields"]) == [
        "memories.0.category",
        "memories.0.updated_at",
        "memories.2.created_at",
    ]


def test_the_same_category_and_key_twice_in_one_file_is_refused(mind):
    document = {
        "format_version": 1,
        "memories": [{"category": "fact", "content": "x"}, {"category": "fact", "content": "x"}],
    }
    response = mind.agent.post("/mind/import", document, format="json")
    assert list(response.json()["error"]["fields"]) == ["memories.1.key"]
    assert "memories.0" in response.json()["error"]["fields"]["memories.1.key"][0]


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"format_version": 2, "memories": []}, "format_version"),
        ({"memories": []}, "format_version"),
        ({"format_version": 1}, "memories"),
        ({"format_version": 1, "memories": {}}, "memories"),
        ({"format_version": 1, "memories": [], "memorys": []}, "memorys"),
        ({"format_version": 1, "memories": [{"category": "fact", "content": "x"}] * 1001}, "memories"),
        (one(content="x", created_at="2999-01-01T00:00:00Z"), "memories.0.created_at"),
        (one(content="x", created_at="2026-06-02", updated_at="2026-06-01"), "memories.0.updated_at"),
        (one(content="x", verified="yes"), "memories.0.verified"),
        (one(content="x", updated_at="last week"), "memories.0.updated_at"),
    ],
)
def test_bad_import_documents_answer_400_naming_the_field(mind, document, field):
    response = mind.agent.post("/mind/import", document, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
    assert not Memory.objects.filter(mind=mind.mind).exists()


def test_an_import_body_over_1_mib_is_read_and_one_over_32_mib_answers_413(mind):
    """The import's own bound (an export carries its knots' vectors); every other path keeps 1 MiB."""
    over_one = {"format_version": 1, "memories": [{"category": "note", "content": f"{n} " + "x" * 40_000}
                                                  for n in range(27)]}  # fmt: skip
    response = mind.agent.post("/mind/import", over_one, format="json")
    assert response.status_code == 200, response.content[:200]
    assert Memory.objects.filter(mind=mind.mind).count() == 27

    over_32 = {"format_version": 1, "memories": [{"category": "note", "content": "x" * 40_000}] * 850}
    response = mind.agent.post("/mind/import", over_32, format="json")
    assert response.status_code == 413
    assert Memory.objects.filter(mind=mind.mind).count() == 27


def test_a_reader_cannot_import(reader, mind):
    response = reader.client.post(f"/mind/import?mind={mind.mind.pk}", one(content="x"), format="json")
    assert response.status_code == 403


def test_an_import_writes_only_into_the_callers_mind(mind, other_mind):
    other_mind.agent.post("/mind/import", one(content="theirs"), format="json")
    assert not Memory.objects.filter(mind=mind.mind).exists()
    assert Memory.objects.get(mind=other_mind.mind).content == "theirs"


def test_an_imported_memory_gets_an_embedding_and_a_new_id(mind):
    body = mind.agent.post("/mind/import", one(content="Berlin", id="mem_fromelsewhere1"), format="json").json()
    memory = Memory.objects.get(pk=body["results"][0]["id"])
    assert memory.pk != "mem_fromelsewhere1"
    assert memory.embedding is not None and len(memory.embedding) == 384


def test_a_mind_key_of_a_new_mind_can_import_with_its_key(owner):
    created, issued = mind_create(owner=owner.user, name="Fresh")
    client = client_with_token(issued.plaintext)
    assert client.post("/mind/import", one(content="x"), format="json").json()["created"] == 1
