"""POST /memory: store and upsert, defaults, and the rules of the memory object."""

import hashlib

import pytest

from memories.models import Memory, MemoryAudit

pytestmark = pytest.mark.django_db


def store(client, mind_id=None, **body):
    path = "/memory" + (f"?mind={mind_id}" if mind_id else "")
    return client.post(path, body, format="json")


def test_an_agent_stores_a_new_memory_with_agent_defaults(mind):
    response = store(mind.agent, category="fact", key="office_city", content="  Office is in Berlin  ")
    assert response.status_code == 201
    body = response.json()
    assert body["created"] is True
    assert body["id"].startswith("mem_")
    assert body["mind_id"] == mind.mind.pk
    assert body["content"] == "Office is in Berlin"
    assert (body["source"], body["speaker"], body["verified"], body["confidence"]) == ("agent", "agent", False, 0.7)
    assert (body["priority"], body["salience"]) == ("normal", 0.7)


def test_storing_the_same_category_and_key_again_updates_it(mind):
    first = store(mind.agent, category="project", key="status", content="v1.4.0 deployed", priority="high")
    second = store(mind.agent, category="project", key="status", content="v1.5.0 deployed")
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["created"] is False
    assert second.json()["id"] == first.json()["id"]
    assert second.json()["content"] == "v1.5.0 deployed"
    assert second.json()["priority"] == "high"  # fields left out keep their value
    assert Memory.objects.filter(mind=mind.mind).count() == 1


def test_a_keyless_memory_gets_a_key_from_its_content_and_does_not_duplicate(mind):
    first = store(mind.agent, category="note", content="Test Redis for caching")
    second = store(mind.agent, category="note", content="Test Redis for caching")
    expected_key = "note_" + hashlib.sha256(b"Test Redis for caching").hexdigest()[:12]
    assert first.json()["key"] == expected_key
    assert second.status_code == 200
    assert Memory.objects.filter(mind=mind.mind).count() == 1


def test_a_human_write_is_source_user_and_verified(owner, mind):
    response = store(owner.client, mind.mind.pk, category="identity", key="user_name", content="Michael")
    body = response.json()
    assert response.status_code == 201
    assert (body["source"], body["speaker"], body["verified"], body["confidence"]) == ("user", "user", True, 1.0)
    assert body["verified_by"] == "owner@example.com"


def test_an_agent_changing_verified_content_resets_verified(owner, mind):
    store(owner.client, mind.mind.pk, category="fact", key="city", content="Berlin")
    response = store(mind.agent, category="fact", key="city", content="Hamburg")
    assert response.json()["verified"] is False
    assert response.json()["verified_by"] is None


def test_an_agent_cannot_claim_source_user(mind):
    response = store(mind.agent, category="fact", content="x", source="user")
    assert response.status_code == 400
    assert "speaker" in response.json()["error"]["fields"]["source"][0]


def test_tags_are_trimmed_lower_cased_and_deduplicated(mind):
    response = store(mind.agent, category="fact", content="x", tags=[" Docker", "docker", "Swarm "])
    assert response.json()["tags"] == ["docker", "swarm"]


def test_salience_defaults_from_priority(mind):
    response = store(mind.agent, category="fact", content="x", priority="critical")
    assert response.json()["salience"] == 1.0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": "x"}, "category"),
        ({"category": "fact"}, "content"),
        ({"category": "gossip", "content": "x"}, "category"),
        ({"category": "fact", "content": "   "}, "content"),
        ({"category": "fact", "content": "a\x00b"}, "content"),
        ({"category": "fact", "content": "x" * 50_001}, "content"),
        ({"category": "fact", "content": 42}, "content"),
        ({"category": "fact", "content": "x", "key": "_starts_wrong"}, "key"),
        ({"category": "fact", "content": "x", "key": "has space"}, "key"),
        ({"category": "fact", "content": "x", "key": "k" * 129}, "key"),
        ({"category": "fact", "content": "x", "tags": ["t"] * 21}, "tags"),
        ({"category": "fact", "content": "x", "tags": ["ok", "t" * 65]}, "tags.1"),
        ({"category": "fact", "content": "x", "tags": "docker"}, "tags"),
        ({"category": "fact", "content": "x", "priority": "urgent"}, "priority"),
        ({"category": "fact", "content": "x", "confidence": 1.5}, "confidence"),
        ({"category": "fact", "content": "x", "confidence": "0.5"}, "confidence"),
        ({"category": "fact", "content": "x", "salience": -0.1}, "salience"),
        ({"category": "fact", "content": "x", "expires_at": "next tuesday-ish"}, "expires_at"),
        ({"category": "fact", "content": "x", "entities": ["e"] * 21}, "entities"),
        ({"category": "fact", "content": "x", "event_time": "the day the moon fell"}, "event_time"),
        ({"category": "fact", "content": "x", "event_precision": "decade"}, "event_precision"),
        ({"category": "fact", "content": "x", "emotion": "hangry"}, "emotion"),
        ({"category": "fact", "content": "x", "attributes": {"blob": "x" * 17_000}}, "attributes"),
        ({"category": "fact", "content": "x", "colour": "blue"}, "colour"),
    ],
)
def test_invalid_fields_are_named_and_nothing_is_written(mind, body, field):
    response = mind.agent.post("/memory", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert list(error["fields"]) == [field]
    assert not Memory.objects.exists()


def test_an_unknown_category_error_lists_the_allowed_ones(mind):
    response = store(mind.agent, category="gossip", content="x")
    message = response.json()["error"]["fields"]["category"][0]
    assert "identity, preference, fact, project, skill, mistake, context, note" in message


def test_event_time_phrases_are_parsed_and_precision_inferred(mind):
    response = store(mind.agent, category="fact", content="x", event_time="2026-10-17")
    assert (response.json()["event_time"], response.json()["event_precision"]) == ("2026-10-17T00:00:00Z", "day")


def test_expires_at_takes_epoch_seconds(mind):
    response = store(mind.agent, category="context", content="x", expires_at=1782554400)
    assert response.json()["expires_at"] == "2026-06-27T10:00:00Z"


def test_storing_writes_an_audit_row_naming_the_key_prefix(mind):
    body = store(mind.agent, category="fact", content="x").json()
    row = MemoryAudit.objects.get(memory_id=body["id"])
    assert row.action == "created"
    assert row.actor == "agent:" + mind.key[:11]


def test_a_human_must_name_the_mind(owner, mind):
    response = store(owner.client, category="fact", content="x")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["mind"]


def test_a_read_share_cannot_store(reader, mind):
    response = store(reader.client, mind.mind.pk, category="fact", content="x")
    assert response.status_code == 403


def test_another_minds_key_cannot_read_a_memory(mind, other_mind):
    memory_id = store(mind.agent, category="fact", content="x").json()["id"]
    assert other_mind.agent.get(f"/memory/{memory_id}").status_code == 404
    assert mind.agent.get(f"/memory/{memory_id}").status_code == 200
