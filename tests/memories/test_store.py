"""POST /memory: store and upsert, defaults, and the rules of the memory object."""

import hashlib
from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.embedders import get_embedder
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


def test_an_entity_name_over_100_characters_is_refused(mind):
    response = store(mind.agent, category="fact", content="x", entities=["Anna", "e" * 101])
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["entities.1"]


def test_entities_are_kept_once_each_ignoring_case(mind):
    response = store(mind.agent, category="fact", content="x", entities=["Anna", "anna", "Berlin"])
    assert response.json()["entities"] == ["Anna", "Berlin"]


def test_an_agent_may_record_the_users_own_words_with_speaker(mind):
    body = store(mind.agent, category="preference", content="I like tea", speaker="user").json()
    assert (body["source"], body["speaker"], body["verified"]) == ("agent", "user", False)


def test_tool_and_system_sources_are_allowed_for_mind_keys(mind):
    body = store(mind.agent, category="fact", content="from a tool", source="tool").json()
    assert (body["source"], body["speaker"], body["confidence"]) == ("tool", "agent", 0.7)


def test_explicit_confidence_and_salience_win_over_the_defaults(mind):
    body = store(mind.agent, category="fact", content="x", priority="low", confidence=0.25, salience=0.9).json()
    assert (body["confidence"], body["salience"]) == (0.25, 0.9)


def test_a_datetime_event_time_gets_minute_precision(mind):
    body = store(mind.agent, category="fact", content="x", event_time="2026-10-17T15:42:10+02:00").json()
    assert (body["event_time"], body["event_precision"]) == ("2026-10-17T13:42:00Z", "minute")


def test_an_explicit_precision_anchors_the_time_at_the_start_of_its_period(mind):
    body = store(mind.agent, category="fact", content="x", event_time="2026-10-17", event_precision="month").json()
    assert (body["event_time"], body["event_precision"]) == ("2026-10-01T00:00:00Z", "month")


def test_a_german_day_month_is_read_as_a_date_in_the_year_of_creation(mind):
    body = store(mind.agent, category="fact", content="x", event_time="17.10.").json()
    created_year = body["created_at"][:4]
    assert (body["event_time"], body["event_precision"]) == (f"{created_year}-10-17T00:00:00Z", "day")


def test_yesterday_is_the_day_before_the_memory_was_created(mind):
    body = store(mind.agent, category="fact", content="x", event_time="yesterday").json()
    created = date.fromisoformat(body["created_at"][:10])
    assert (body["event_time"], body["event_precision"]) == (f"{created - timedelta(days=1)}T00:00:00Z", "day")


def test_an_emotion_label_is_stored_in_canonical_form(mind):
    body = store(mind.agent, category="fact", content="x", emotion="  Freude ").json()
    assert body["emotion"] == "freude"


def test_an_unknown_emotion_lists_the_known_labels(mind):
    message = store(mind.agent, category="fact", content="x", emotion="hangry").json()["error"]["fields"]["emotion"][0]
    assert "joy" in message and "trauer" in message and "neutral" in message


def test_attributes_are_stored_as_given(mind):
    body = store(mind.agent, category="fact", content="x", attributes={"origin": "chat", "turn": 3}).json()
    assert body["attributes"] == {"origin": "chat", "turn": 3}


def test_output_only_fields_sent_back_are_ignored(mind):
    response = store(mind.agent, category="fact", content="x", id="mem_forged", verified=True, created_at="2000-01-01")
    assert response.status_code == 201
    body = response.json()
    assert body["id"] != "mem_forged" and body["verified"] is False and not body["created_at"].startswith("2000")


def test_an_upsert_keeps_the_vector_when_the_content_stays_and_replaces_it_when_it_changes(mind):
    memory_id = store(mind.agent, category="fact", key="city", content="Berlin").json()["id"]
    store(mind.agent, category="fact", key="city", content="Berlin", tags=["home"])
    kept = Memory.objects.get(pk=memory_id)
    assert (kept.tags, list(kept.embedding)) == (
        ["home"],
        pytest.approx(list(get_embedder().embed(["Berlin"])[0]), abs=1e-6),
    )

    store(mind.agent, category="fact", key="city", content="Hamburg")
    assert list(Memory.objects.get(pk=memory_id).embedding) == pytest.approx(
        list(get_embedder().embed(["Hamburg"])[0]), abs=1e-6
    )


def test_an_upsert_that_keeps_the_content_neither_reads_nor_writes_the_vector(mind, settings):
    settings.PIPELINE_LOG_ENABLED = False  # only the store's own statements
    store(mind.agent, category="fact", key="city", content="Berlin")

    with CaptureQueriesContext(connection) as queries:
        store(mind.agent, category="fact", key="city", content="Berlin", tags=["home"])

    touching = [q["sql"] for q in queries if "memories_memory" in q["sql"] and '"embedding"' in q["sql"]]
    assert touching == []
    assert any(q["sql"].startswith('UPDATE "memories_memory"') for q in queries)  # the tags did change
