"""POST /memory/{id}/verify and /unverify: humans with write access confirm or withdraw a memory."""

from datetime import datetime

import pytest

from memories.models import Memory, MemoryAudit

pytestmark = pytest.mark.django_db


def agent_memory(mind, **body):
    body = {"category": "fact", "key": "city", "content": "Berlin", **body}
    response = mind.agent.post("/memory", body, format="json")
    assert response.status_code == 201
    return response.json()


def test_the_owner_verifies_an_agent_memory(owner, mind):
    memory = agent_memory(mind)
    response = owner.client.post(f"/memory/{memory['id']}/verify")
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["verified"], body["verified_by"]) == (memory["id"], True, "owner@example.com")
    stored = Memory.objects.get(pk=memory["id"])
    assert (stored.verified, stored.verified_by_id) == (True, owner.user.pk)
    assert datetime.fromisoformat(body["verified_at"]) == stored.verified_at


def test_verifying_writes_an_audit_row_naming_the_human(owner, mind):
    memory = agent_memory(mind)
    owner.client.post(f"/memory/{memory['id']}/verify")
    row = MemoryAudit.objects.get(memory_id=memory["id"], action="verified")
    assert (row.actor, row.changed_fields) == (f"user:{owner.user.pk}", ["verified"])


def test_verifying_moves_the_updated_time_so_diff_reports_it(owner, mind):
    memory = agent_memory(mind)
    body = owner.client.post(f"/memory/{memory['id']}/verify").json()
    assert body["updated_at"] > memory["updated_at"]


def test_unverify_clears_the_confirmation(owner, mind):
    memory = owner.client.post(
        f"/memory?mind={mind.mind.pk}", {"category": "fact", "content": "Berlin"}, format="json"
    ).json()
    assert memory["verified"] is True
    response = owner.client.post(f"/memory/{memory['id']}/unverify/")
    assert response.status_code == 200
    body = response.json()
    assert (body["verified"], body["verified_at"], body["verified_by"]) == (False, None, None)
    row = MemoryAudit.objects.get(memory_id=memory["id"], action="unverified")
    assert row.actor == f"user:{owner.user.pk}"


def test_verifying_a_verified_memory_changes_nothing(owner, mind):
    memory = agent_memory(mind)
    first = owner.client.post(f"/memory/{memory['id']}/verify").json()
    second = owner.client.post(f"/memory/{memory['id']}/verify").json()
    assert second["verified_at"] == first["verified_at"]
    assert MemoryAudit.objects.filter(memory_id=memory["id"], action="verified").count() == 1


def test_unverifying_an_unverified_memory_changes_nothing(owner, mind):
    memory = agent_memory(mind)
    response = owner.client.post(f"/memory/{memory['id']}/unverify")
    assert response.status_code == 200
    assert response.json()["updated_at"] == memory["updated_at"]
    assert not MemoryAudit.objects.filter(memory_id=memory["id"], action="unverified").exists()


@pytest.mark.parametrize("person", ["writer", "mind_admin"])
def test_write_and_admin_shares_may_verify(request, mind, person):
    human = request.getfixturevalue(person)
    memory = agent_memory(mind)
    response = human.client.post(f"/memory/{memory['id']}/verify")
    assert response.status_code == 200
    assert response.json()["verified_by"] == human.user.email


def test_a_read_share_may_not_verify(reader, mind):
    memory = agent_memory(mind)
    response = reader.client.post(f"/memory/{memory['id']}/verify")
    assert response.status_code == 403
    assert Memory.objects.get(pk=memory["id"]).verified is False


def test_a_mind_key_may_not_verify_even_on_its_own_mind(mind):
    memory = agent_memory(mind)
    for action in ("verify", "unverify"):
        response = mind.agent.post(f"/memory/{memory['id']}/{action}")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "permission_denied"
    assert Memory.objects.get(pk=memory["id"]).verified is False


def test_an_outsider_gets_404_for_a_memory_they_cannot_see(outsider, mind):
    memory = agent_memory(mind)
    assert outsider.client.post(f"/memory/{memory['id']}/verify").status_code == 404
    assert Memory.objects.get(pk=memory["id"]).verified is False


def test_an_unknown_memory_is_404(owner, mind):
    assert owner.client.post("/memory/mem_doesnotexist0/verify").status_code == 404


def test_verify_needs_credentials(api, mind):
    memory = agent_memory(mind)
    assert api.post(f"/memory/{memory['id']}/verify").status_code == 401
