"""The Django admin curates memories through the same services and rules as the API."""

import pytest
from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import reverse

from memories.embedders import get_embedder
from memories.models import Memory, MemoryAudit

pytestmark = pytest.mark.django_db


def _change_url(memory) -> str:
    # The admin quotes primary keys in its URLs (a memory id may hold "_2F", which unquoted means "/").
    return reverse("admin:memories_memory_change", args=[quote(memory.pk)])


def _delete_url(memory) -> str:
    return reverse("admin:memories_memory_delete", args=[quote(memory.pk)])


@pytest.fixture
def staff(django_user_model):
    user = django_user_model.objects.create_superuser(
        username="root@example.com", email="root@example.com", password="x"
    )
    client = Client()
    client.force_login(user)
    return user, client


@pytest.fixture
def memory(mind):
    body = mind.agent.post(
        "/memory", {"category": "fact", "key": "city", "content": "Berlin", "tags": ["home"]}, format="json"
    )
    return Memory.objects.get(pk=body.json()["id"])


def _form(memory, **changes) -> dict:
    data = {
        "category": memory.category, "key": memory.key, "content": memory.content, "tags": ",".join(memory.tags),
        "priority": memory.priority, "confidence": memory.confidence, "salience": memory.salience,
        "expires_at_0": "", "expires_at_1": "",
    }  # fmt: skip
    return {**data, **changes}


def test_the_changelist_and_change_page_load(staff, memory):
    _, client = staff
    assert client.get("/admin/memories/memory/").status_code == 200
    page = client.get(_change_url(memory))
    assert page.status_code == 200
    assert b"Berlin" in page.content


def test_an_edit_in_the_admin_goes_through_the_update_service(staff, memory):
    user, client = staff
    response = client.post(_change_url(memory), _form(memory, content="Hamburg"))
    assert response.status_code == 302
    memory.refresh_from_db()
    assert (memory.content, memory.source, memory.verified) == ("Hamburg", "user", True)
    assert list(memory.embedding) == pytest.approx(list(get_embedder().embed(["Hamburg"])[0]), abs=1e-6)
    row = MemoryAudit.objects.get(memory_id=memory.pk, action="updated")
    assert (row.actor, "content" in row.changed_fields) == (f"user:{user.pk}", True)


def test_the_admin_refuses_what_the_api_refuses(staff, memory):
    _, client = staff
    response = client.post(_change_url(memory), _form(memory, key="has space"))
    assert response.status_code == 200  # the form again, with the error
    assert b"Invalid key" in response.content
    memory.refresh_from_db()
    assert memory.key == "city"


def test_too_many_tags_are_refused_at_the_tags_box_by_the_memory_rules_and_nothing_changes(staff, memory):
    _, client = staff
    tags = ",".join(f"t{n}" for n in range(21))  # the model has no limit on the count; the rules do
    response = client.post(_change_url(memory), _form(memory, tags=tags))
    assert response.status_code == 200  # the form again, with the error
    assert response.context["adminform"].form.errors == {"tags": ["Ensure this field has no more than 20 elements."]}
    memory.refresh_from_db()
    assert memory.tags == ["home"]


def test_deleting_in_the_admin_leaves_only_a_content_free_audit_row(staff, memory):
    _, client = staff
    client.post(_delete_url(memory), {"post": "yes"})
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert MemoryAudit.objects.filter(memory_id=memory.pk, action="deleted").count() == 1


def test_the_verify_action_verifies_the_selected_memories(staff, memory):
    user, client = staff
    client.post("/admin/memories/memory/", {"action": "verify_selected", "_selected_action": [memory.pk]})
    memory.refresh_from_db()
    assert (memory.verified, memory.verified_by_id) == (True, user.pk)


def test_memories_cannot_be_added_in_the_admin(staff):
    _, client = staff
    assert client.get("/admin/memories/memory/add/").status_code == 403
