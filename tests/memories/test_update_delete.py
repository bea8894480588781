"""PUT / PATCH / DELETE /memory/{id}: partial updates, provenance rules, 409 on a taken key, real deletes."""

import pytest

from memories.models import Memory, MemoryAudit

pytestmark = pytest.mark.django_db


def store(client, mind_id=None, **body):
    path = "/memory" + (f"?mind={mind_id}" if mind_id else "")
    response = client.post(path, body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def patch(client, memory_id, **body):
    return client.patch(f"/memory/{memory_id}", body, format="json")


def test_patch_changes_only_the_given_fields(mind):
    memory = store(
        mind.agent, category="project", key="status", content="v1.4.0 deployed", priority="high", tags=["ops"]
    )
    response = patch(mind.agent, memory["id"], content="v1.5.0 deployed")
    assert response.status_code == 200
    body = response.json()
    assert (body["content"], body["priority"], body["tags"], body["key"]) == (
        "v1.5.0 deployed",
        "high",
        ["ops"],
        "status",
    )
    assert Memory.objects.get(pk=memory["id"]).content == "v1.5.0 deployed"


def test_put_accepts_a_subset_of_the_fields_too(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    response = mind.agent.put(f"/memory/{memory['id']}", {"priority": "critical"}, format="json")
    assert response.status_code == 200
    assert (response.json()["priority"], response.json()["content"]) == ("critical", "Berlin")


def test_an_update_writes_an_audit_row_naming_the_changed_fields(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin", priority="low")
    patch(mind.agent, memory["id"], content="Hamburg", priority="low", tags=["home"])
    row = MemoryAudit.objects.get(memory_id=memory["id"], action="updated")
    assert sorted(row.changed_fields) == ["content", "tags"]
    assert row.actor == "agent:" + mind.key[:11]


def test_an_update_that_changes_nothing_writes_no_audit_row(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    response = patch(mind.agent, memory["id"], content="Berlin")
    assert response.status_code == 200
    assert response.json()["updated_at"] == memory["updated_at"]
    assert not MemoryAudit.objects.filter(memory_id=memory["id"], action="updated").exists()


def test_an_update_moves_the_updated_time_forward(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    body = patch(mind.agent, memory["id"], content="Hamburg").json()
    assert body["updated_at"] > memory["updated_at"]
    assert body["created_at"] == memory["created_at"]


def test_moving_a_memory_onto_a_taken_category_and_key_is_a_conflict(mind):
    store(mind.agent, category="fact", key="city", content="Berlin")
    other = store(mind.agent, category="note", key="city", content="Hamburg")
    response = patch(mind.agent, other["id"], category="fact")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "conflict"
    assert error["message"].startswith("category, key: Another memory of this mind")
    assert "'fact'" in error["message"] and "'city'" in error["message"]
    assert sorted(error["fields"]) == ["category", "key"]
    assert Memory.objects.get(pk=other["id"]).category == "note"
    assert not MemoryAudit.objects.filter(memory_id=other["id"], action="updated").exists()


def test_renaming_the_key_to_a_taken_one_is_a_conflict(mind):
    store(mind.agent, category="fact", key="city", content="Berlin")
    other = store(mind.agent, category="fact", key="town", content="Hamburg")
    response = patch(mind.agent, other["id"], key="city")
    assert response.status_code == 409
    assert Memory.objects.get(pk=other["id"]).key == "town"


def test_renaming_the_key_to_a_free_one_works(mind):
    memory = store(mind.agent, category="fact", key="town", content="Hamburg")
    response = patch(mind.agent, memory["id"], key="home_city", category="identity")
    assert response.status_code == 200
    assert (response.json()["key"], response.json()["category"]) == ("home_city", "identity")


def test_the_same_key_in_another_category_is_not_a_conflict(mind):
    store(mind.agent, category="fact", key="city", content="Berlin")
    other = store(mind.agent, category="note", key="town", content="Hamburg")
    assert patch(mind.agent, other["id"], key="city").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"category": "gossip"}, "category"),
        ({"content": "   "}, "content"),
        ({"key": "has space"}, "key"),
        ({"priority": "urgent"}, "priority"),
        ({"confidence": 2}, "confidence"),
        ({"tags": "docker"}, "tags"),
        ({"expires_at": "soonish"}, "expires_at"),
        ({"event_time": "the day the moon fell"}, "event_time"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_invalid_update_fields_are_named_and_nothing_changes(mind, body, field):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    response = patch(mind.agent, memory["id"], **body)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
    assert Memory.objects.get(pk=memory["id"]).updated_at.isoformat().replace("+00:00", "Z") == memory["updated_at"]


def test_an_update_that_is_not_a_json_object_is_refused(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    response = mind.agent.patch(f"/memory/{memory['id']}", ["content"], format="json")
    assert response.status_code == 400


def test_expires_at_null_clears_the_expiry(mind):
    memory = store(mind.agent, category="context", content="x", expires_at="2030-01-01T00:00:00Z")
    response = patch(mind.agent, memory["id"], expires_at=None)
    assert response.json()["expires_at"] is None


def test_an_agent_rewriting_verified_content_resets_verified(owner, mind):
    memory = store(owner.client, mind.mind.pk, category="fact", key="city", content="Berlin")
    body = patch(mind.agent, memory["id"], content="Hamburg").json()
    assert (body["verified"], body["verified_at"], body["verified_by"]) == (False, None, None)
    assert body["source"] == "agent"


def test_an_agent_changing_only_tags_of_a_verified_memory_keeps_it_verified(owner, mind):
    memory = store(owner.client, mind.mind.pk, category="fact", key="city", content="Berlin")
    body = patch(mind.agent, memory["id"], tags=["home"]).json()
    assert (body["verified"], body["source"], body["tags"]) == (True, "user", ["home"])


def test_a_human_retagging_an_agent_memory_does_not_make_it_theirs(owner, mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    body = patch(owner.client, memory["id"], tags=["home"]).json()
    assert (body["source"], body["verified"], body["tags"]) == ("agent", False, ["home"])


def test_a_human_rewriting_the_content_makes_it_their_verified_word(owner, mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    body = patch(owner.client, memory["id"], content="Hamburg").json()
    assert (body["source"], body["verified"], body["verified_by"]) == ("user", True, "owner@example.com")
    row = MemoryAudit.objects.get(memory_id=memory["id"], action="updated")
    assert sorted(row.changed_fields) == ["content", "source", "verified"]


def test_an_agent_may_change_the_source_to_tool(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    assert patch(mind.agent, memory["id"], source="tool").json()["source"] == "tool"


def test_an_agent_cannot_change_the_source_to_user(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    response = patch(mind.agent, memory["id"], source="user")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["source"]


def test_an_update_enqueues_promotion_after_commit(mind, django_capture_on_commit_callbacks):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    with django_capture_on_commit_callbacks() as callbacks:
        patch(mind.agent, memory["id"], content="Hamburg")
    assert len(callbacks) == 1


def test_a_writer_share_may_update(writer, mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    assert patch(writer.client, memory["id"], priority="high").status_code == 200


def test_a_read_share_may_not_update_or_delete(reader, mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    assert patch(reader.client, memory["id"], priority="high").status_code == 403
    assert reader.client.delete(f"/memory/{memory['id']}").status_code == 403
    assert Memory.objects.get(pk=memory["id"]).priority == "normal"


def test_another_mind_cannot_see_the_memory_to_update_or_delete_it(mind, other_mind, outsider):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    assert patch(other_mind.agent, memory["id"], content="Hamburg").status_code == 404
    assert other_mind.agent.delete(f"/memory/{memory['id']}").status_code == 404
    assert patch(outsider.client, memory["id"], content="Hamburg").status_code == 404
    assert Memory.objects.get(pk=memory["id"]).content == "Berlin"


def test_delete_removes_the_memory_and_answers_its_id(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    response = mind.agent.delete(f"/memory/{memory['id']}")
    assert response.status_code == 200
    assert response.json() == {"deleted": True, "id": memory["id"]}
    assert not Memory.objects.filter(pk=memory["id"]).exists()
    assert mind.agent.get(f"/memory/{memory['id']}").status_code == 404


def test_delete_leaves_an_audit_row_without_content(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    mind.agent.delete(f"/memory/{memory['id']}")
    row = MemoryAudit.objects.get(memory_id=memory["id"], action="deleted")
    assert (row.actor, row.changed_fields, row.mind_id) == ("agent:" + mind.key[:11], [], mind.mind.pk)


def test_deleting_twice_answers_404_the_second_time(mind):
    memory = store(mind.agent, category="fact", key="city", content="Berlin")
    assert mind.agent.delete(f"/memory/{memory['id']}/").status_code == 200
    assert mind.agent.delete(f"/memory/{memory['id']}/").status_code == 404
    assert MemoryAudit.objects.filter(memory_id=memory["id"], action="deleted").count() == 1


def test_delete_leaves_the_other_memories_alone(mind):
    keep = store(mind.agent, category="fact", key="town", content="Hamburg")
    gone = store(mind.agent, category="fact", key="city", content="Berlin")
    mind.agent.delete(f"/memory/{gone['id']}")
    assert list(Memory.objects.values_list("pk", flat=True)) == [keep["id"]]


def test_an_unknown_memory_id_is_404(mind):
    assert patch(mind.agent, "mem_doesnotexist0", content="x").status_code == 404
    assert mind.agent.delete("/memory/mem_doesnotexist0").status_code == 404
