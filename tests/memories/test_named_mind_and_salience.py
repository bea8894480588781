"""A mind the client names must be the memory's own; a priority change moves a salience nobody gave."""

from __future__ import annotations

import pytest

from memories.models import Memory
from minds.services import mind_share_grant

pytestmark = pytest.mark.django_db


def store(client, mind_id: str | None = None, **fields):
    query = f"?mind={mind_id}" if mind_id else ""
    return client.post(f"/memory{query}", {"category": "fact", **fields}, format="json")


def test_a_named_mind_that_is_not_the_memorys_answers_400_naming_both(owner, mind, other_mind, outsider):
    mind_share_grant(mind=other_mind.mind, user=owner.user, acl="write")  # the owner sees both minds
    memory_id = store(mind.agent, key="city", content="Berlin").json()["id"]
    response = owner.client.get(f"/memory/{memory_id}", HTTP_X_MIND=other_mind.mind.pk)
    assert response.status_code == 400
    error = response.json()["error"]
    assert list(error["fields"]) == ["mind"]
    assert mind.mind.pk in error["fields"]["mind"][0] and other_mind.mind.pk in error["fields"]["mind"][0]
    assert (
        owner.client.patch(
            f"/memory/{memory_id}?mind={other_mind.mind.pk}", {"priority": "high"}, format="json"
        ).status_code
        == 400
    )
    assert Memory.objects.get(pk=memory_id).priority == "normal"


def test_naming_the_memorys_own_mind_or_none_is_fine(owner, mind):
    memory_id = store(mind.agent, key="city", content="Berlin").json()["id"]
    assert owner.client.get(f"/memory/{memory_id}", HTTP_X_MIND=mind.mind.pk).status_code == 200
    assert owner.client.get(f"/memory/{memory_id}").status_code == 200


def test_a_memory_the_caller_cannot_see_stays_404_whatever_mind_is_named(mind, other_mind, outsider):
    memory_id = store(mind.agent, key="city", content="Berlin").json()["id"]
    response = outsider.client.get(f"/memory/{memory_id}", HTTP_X_MIND=other_mind.mind.pk)
    assert response.status_code == 404
    assert mind.mind.pk not in response.content.decode()


def test_a_priority_change_moves_a_salience_nobody_gave(mind):
    created = store(mind.agent, key="city", content="Berlin").json()
    assert (created["priority"], created["salience"]) == ("normal", 0.7)
    reposted = store(mind.agent, key="city", content="Berlin", priority="high").json()
    assert (reposted["priority"], reposted["salience"]) == ("high", 0.85)
    patched = mind.agent.patch(f"/memory/{created['id']}", {"priority": "low"}, format="json").json()
    assert patched["salience"] == 0.5


def test_a_priority_change_keeps_a_salience_the_client_gave(mind):
    created = store(mind.agent, key="city", content="Berlin", salience=0.7).json()
    reposted = store(mind.agent, key="city", content="Berlin", priority="critical").json()
    assert (reposted["priority"], reposted["salience"]) == ("critical", 0.7)
    other = store(mind.agent, key="tool", content="ruff", salience=0.3).json()
    patched = mind.agent.patch(f"/memory/{other['id']}", {"priority": "high"}, format="json").json()
    assert patched["salience"] == 0.3
    assert created["id"] != other["id"]


def test_a_sync_moves_a_default_salience_with_the_priority(mind):
    item = {"category": "fact", "key": "city", "content": "Berlin"}
    mind.agent.post("/memory/sync", {"memories": [item]}, format="json")
    mind.agent.post("/memory/sync", {"memories": [{**item, "priority": "high"}]}, format="json")
    assert Memory.objects.get(mind=mind.mind, key="city").salience == 0.85
