"""Minds, their keys and shares through the API, paging, and the admin."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from memories.models import Memory, MemoryAudit
from minds.mindkeys import mind_key_digest
from minds.models import Mind, MindKey, MindShare
from minds.services import mind_create, mind_key_issue
from tests.conftest import client_with_token

pytestmark = pytest.mark.django_db

User = get_user_model()


def _key_works(plaintext: str) -> bool:
    """A valid Mind Key on a human endpoint is known (403); an invalid one is not (401)."""
    status = client_with_token(plaintext).get("/minds").status_code
    assert status in (401, 403)
    return status == 403


# --- Minds ----------------------------------------------------------------------------------


def test_creating_a_mind_answers_201_with_its_first_key_in_plain_text(owner):
    response = owner.client.post("/minds", {"name": "  Work  ", "description": "For the office"}, format="json")

    assert response.status_code == 201
    body = response.json()
    mind = Mind.objects.get()
    assert mind.owner == owner.user
    assert (body["id"], body["name"], body["description"]) == (mind.id, "Work", "For the office")
    assert body["access"] == "owner"
    assert body["owner_email"] == "owner@example.com"
    assert set(body) == {"id", "name", "description", "owner_email", "access", "created_at", "updated_at", "mind_key"}
    assert body["mind_key"].startswith(MindKey.objects.get(mind=mind).prefix + "_")
    assert _key_works(body["mind_key"])


def test_creating_a_mind_needs_a_name(owner):
    response = owner.client.post("/minds", {"name": "   ", "description": 5}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "name": ["This field may not be blank."],
        "description": ["Must be a string."],  # not stored as "5"
    }
    assert Mind.objects.count() == 0


def test_creating_a_mind_names_every_bad_field(owner):
    response = owner.client.post("/minds", {"name": "x" * 201, "description": ["not", "text"]}, format="json")

    assert response.status_code == 400
    assert sorted(response.json()["error"]["fields"]) == ["description", "name"]


def test_the_mind_list_holds_my_minds_and_shared_ones_with_my_access(owner, mind, outsider, other_mind):
    MindShare.objects.create(mind=other_mind.mind, user=owner.user, acl="write")

    response = owner.client.get("/minds")

    assert response.status_code == 200
    body = response.json()
    assert (body["count"], body["limit"], body["offset"]) == (2, 100, 0)
    assert [(m["id"], m["access"]) for m in body["results"]] == [
        (mind.mind.id, "owner"),
        (other_mind.mind.id, "write"),
    ]


def test_the_mind_list_leaves_out_minds_of_others(outsider, mind):
    body = outsider.client.get("/minds").json()

    assert (body["count"], body["results"]) == (0, [])


def test_the_shared_list_holds_only_minds_shared_with_me(owner, mind, reader, other_mind):
    assert owner.client.get("/minds/shared").json()["results"] == []

    body = reader.client.get("/minds/shared").json()

    assert body["count"] == 1
    assert [(m["id"], m["access"], m["owner_email"]) for m in body["results"]] == [
        (mind.mind.id, "read", "owner@example.com")
    ]


def test_a_mind_reads_with_my_access_level(owner, mind):
    response = owner.client.get(f"/minds/{mind.mind.id}/")

    assert response.status_code == 200
    assert response.json()["name"] == "Michael's Mind"
    assert response.json()["access"] == "owner"


def test_patching_a_mind_renames_it_and_keeps_the_rest(owner, mind):
    response = owner.client.patch(f"/minds/{mind.mind.id}", {"name": "Renamed"}, format="json")

    assert response.status_code == 200
    assert response.json()["name"] == "Renamed"
    mind.mind.refresh_from_db()
    assert (mind.mind.name, mind.mind.description) == ("Renamed", "")


def test_patching_a_mind_refuses_a_blank_name(owner, mind):
    response = owner.client.patch(f"/minds/{mind.mind.id}", {"name": ""}, format="json")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["name"]


def test_deleting_a_mind_removes_its_keys_shares_memories_and_audit_rows(owner, mind, reader):
    Memory.objects.create(
        mind=mind.mind,
        category="fact",
        key="office_city",
        content="Office is in Berlin",
        content_hash=hashlib.sha256(b"Office is in Berlin").hexdigest(),
        source="agent",
        speaker="agent",
        confidence=0.7,
        salience=0.7,
    )
    MemoryAudit.objects.create(mind=mind.mind, memory_id="mem_x", action="created", actor="agent:mk_x")
    mind_id = mind.mind.id

    response = owner.client.delete(f"/minds/{mind_id}")

    assert response.status_code == 204
    assert response.content == b""
    assert Mind.objects.filter(pk=mind_id).exists() is False
    assert MindKey.objects.filter(mind_id=mind_id).count() == 0
    assert MindShare.objects.filter(mind_id=mind_id).count() == 0
    assert Memory.objects.filter(mind_id=mind_id).count() == 0
    assert MemoryAudit.objects.filter(mind_id=mind_id).count() == 0
    assert owner.client.get(f"/minds/{mind_id}").status_code == 404
    assert _key_works(mind.key) is False


# --- Paging ---------------------------------------------------------------------------------


@pytest.fixture
def three_minds(owner) -> list[str]:
    return [mind_create(owner=owner.user, name=f"Mind {n}")[0].id for n in range(3)]


def test_a_list_pages_with_limit_and_offset(owner, three_minds):
    body = owner.client.get("/minds?limit=1&offset=1").json()

    assert body == {**body, "count": 3, "limit": 1, "offset": 1}
    assert [m["id"] for m in body["results"]] == [three_minds[1]]


def test_an_offset_past_the_end_answers_an_empty_page(owner, three_minds):
    body = owner.client.get("/minds?offset=999999999999999999").json()

    assert (body["count"], body["offset"], body["results"]) == (3, 999999999999999999, [])


@pytest.mark.parametrize("limit", ["0", "1001", "-1", "abc", "1.5", "", " 5"])
def test_a_bad_limit_answers_400_naming_limit(owner, limit):
    response = owner.client.get("/minds", {"limit": limit})

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"limit": ["Use a whole number from 1 to 1000."]}


def test_the_largest_limit_is_accepted(owner, three_minds):
    assert owner.client.get("/minds?limit=1000").json()["limit"] == 1000


def test_bad_limit_and_offset_are_both_named(owner):
    response = owner.client.get("/minds?limit=x&offset=-3")

    assert response.status_code == 400
    assert sorted(response.json()["error"]["fields"]) == ["limit", "offset"]


# --- Keys -----------------------------------------------------------------------------------


def test_the_key_list_shows_every_key_without_secret_or_digest(owner, mind):
    second = mind_key_issue(mind=mind.mind, label="laptop")

    response = owner.client.get(f"/minds/{mind.mind.id}/keys")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert [k["label"] for k in body["results"]] == ["first key", "laptop"]
    listed = body["results"][1]
    assert set(listed) == {"id", "label", "prefix", "created_at", "last_used_at", "revoked_at"}
    assert (listed["id"], listed["prefix"], listed["revoked_at"]) == (second.key.pk, second.key.prefix, None)
    assert second.plaintext not in response.content.decode()
    assert second.key.digest not in response.content.decode()


def test_issuing_a_key_answers_201_with_the_plain_text_once(owner, mind):
    response = owner.client.post(f"/minds/{mind.mind.id}/keys", {"label": " ci runner "}, format="json")

    assert response.status_code == 201
    body = response.json()
    key = MindKey.objects.get(pk=body["id"])
    assert set(body) == {"id", "label", "prefix", "created_at", "mind_key"}
    assert (body["label"], body["prefix"], key.mind_id) == ("ci runner", key.prefix, mind.mind.id)
    assert _key_works(body["mind_key"])
    listing = owner.client.get(f"/minds/{mind.mind.id}/keys")
    assert listing.status_code == 200
    assert body["mind_key"] not in listing.content.decode()  # the secret is shown once, never listed


def test_issuing_a_key_without_a_body_gives_an_empty_label(owner, mind):
    response = owner.client.post(f"/minds/{mind.mind.id}/keys")

    assert response.status_code == 201
    assert response.json()["label"] == ""


def test_issuing_a_key_refuses_a_label_over_100_characters(owner, mind):
    response = owner.client.post(f"/minds/{mind.mind.id}/keys", {"label": "x" * 101}, format="json")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["label"]


def test_a_used_key_shows_when_it_was_last_used(owner, mind):
    client_with_token(mind.key).get("/minds")

    listed = owner.client.get(f"/minds/{mind.mind.id}/keys").json()["results"][0]

    assert listed["last_used_at"] is not None


def test_revoking_a_key_answers_204_and_the_key_answers_401_afterwards(owner, mind):
    key = MindKey.objects.get(mind=mind.mind)
    assert _key_works(mind.key)

    response = owner.client.delete(f"/minds/{mind.mind.id}/keys/{key.pk}")

    assert response.status_code == 204
    key.refresh_from_db()
    assert key.revoked_at is not None
    after = client_with_token(mind.key).get("/minds")
    assert after.status_code == 401
    assert after.json()["error"]["message"] == "The Mind Key was revoked; ask the mind's owner for a new one."


def test_revoking_a_key_twice_keeps_the_first_revocation_time(owner, mind):
    key = MindKey.objects.get(mind=mind.mind)
    owner.client.delete(f"/minds/{mind.mind.id}/keys/{key.pk}")
    key.refresh_from_db()
    first = key.revoked_at

    assert owner.client.delete(f"/minds/{mind.mind.id}/keys/{key.pk}").status_code == 204
    key.refresh_from_db()
    assert key.revoked_at == first


def test_a_key_of_another_mind_cannot_be_revoked_through_this_mind(owner, mind, other_mind):
    foreign = MindKey.objects.get(mind=other_mind.mind)

    response = owner.client.delete(f"/minds/{mind.mind.id}/keys/{foreign.pk}")

    assert response.status_code == 404
    foreign.refresh_from_db()
    assert foreign.revoked_at is None


def test_an_unknown_key_id_answers_404(owner, mind):
    assert owner.client.delete(f"/minds/{mind.mind.id}/keys/999999999").status_code == 404
    assert owner.client.delete(f"/minds/{mind.mind.id}/keys/99999999999999999999999").status_code == 404


def test_no_plaintext_key_is_stored_in_the_database(owner, mind):
    issued = mind_key_issue(mind=mind.mind, label="probe")
    secret = issued.plaintext[len(issued.key.prefix) + 1 :]
    assert len(secret) >= 40

    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM minds_mindkey WHERE id = %s", [issued.key.pk])
        columns = [column.name for column in cursor.description]
        row = dict(zip(columns, cursor.fetchone(), strict=True))

    stored = " ".join(str(value) for value in row.values())
    assert issued.plaintext not in stored
    assert secret not in stored
    assert row["prefix"] == issued.plaintext[:11]
    expected = hmac.new(settings.MIND_KEY_PEPPER.encode(), issued.plaintext.encode(), hashlib.sha256).hexdigest()
    assert row["digest"] == expected == mind_key_digest(issued.plaintext)


# --- Shares ---------------------------------------------------------------------------------


def test_sharing_a_mind_answers_201_and_gives_the_user_access(owner, mind, outsider):
    response = owner.client.post(
        f"/minds/{mind.mind.id}/share", {"user_email": "Outsider@Example.com", "acl": "read"}, format="json"
    )

    assert response.status_code == 201
    share = MindShare.objects.get(mind=mind.mind)
    assert response.json() == {
        **response.json(),
        "id": share.pk,
        "mind_id": mind.mind.id,
        "user_id": outsider.user.pk,
        "user_email": "outsider@example.com",
        "acl": "read",
    }
    assert outsider.client.get(f"/minds/{mind.mind.id}").json()["access"] == "read"


def test_sharing_with_an_unknown_email_answers_400_naming_user_email(owner, mind):
    response = owner.client.post(
        f"/minds/{mind.mind.id}/share", {"user_email": "ghost@example.com", "acl": "read"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "user_email": ["No account has this email; ask them to register first."]
    }


def test_sharing_with_the_owner_answers_400_naming_user_email(owner, mind, mind_admin):
    response = mind_admin.client.post(
        f"/minds/{mind.mind.id}/share", {"user_email": "owner@example.com", "acl": "read"}, format="json"
    )

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["user_email"]
    assert MindShare.objects.filter(user=owner.user).exists() is False


def test_sharing_again_with_the_same_user_answers_409_and_keeps_the_share(owner, mind, reader):
    response = owner.client.post(
        f"/minds/{mind.mind.id}/share", {"user_email": "reader@example.com", "acl": "admin"}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    share = MindShare.objects.get(user=reader.user)
    assert f"PUT /minds/{mind.mind.id}/shares/{share.pk}" in response.json()["error"]["message"]
    assert share.acl == "read"


def test_sharing_names_every_bad_field(owner, mind):
    response = owner.client.post(f"/minds/{mind.mind.id}/share", {"user_email": "nope", "acl": "god"}, format="json")

    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert sorted(fields) == ["acl", "user_email"]
    assert fields["acl"] == ['"god" is not allowed. Use one of: read, write, admin.']


def test_the_share_list_shows_who_has_access(owner, mind, reader, writer):
    body = owner.client.get(f"/minds/{mind.mind.id}/shares").json()

    assert body["count"] == 2
    assert [(s["user_email"], s["acl"]) for s in body["results"]] == [
        ("reader@example.com", "read"),
        ("writer@example.com", "write"),
    ]


def test_putting_a_share_changes_its_level(owner, mind, reader):
    share = MindShare.objects.get(user=reader.user)

    response = owner.client.put(f"/minds/{mind.mind.id}/shares/{share.pk}", {"acl": "admin"}, format="json")

    assert response.status_code == 200
    assert response.json()["acl"] == "admin"
    assert reader.client.get(f"/minds/{mind.mind.id}/keys").status_code == 200


def test_putting_a_share_refuses_an_unknown_level(owner, mind, reader):
    share = MindShare.objects.get(user=reader.user)

    response = owner.client.put(f"/minds/{mind.mind.id}/shares/{share.pk}", {"acl": "owner"}, format="json")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["acl"]
    share.refresh_from_db()
    assert share.acl == "read"


def test_deleting_a_share_ends_access_with_404(owner, mind, reader):
    share = MindShare.objects.get(user=reader.user)

    assert owner.client.delete(f"/minds/{mind.mind.id}/shares/{share.pk}").status_code == 204

    assert MindShare.objects.filter(pk=share.pk).exists() is False
    assert reader.client.get(f"/minds/{mind.mind.id}").status_code == 404


def test_a_share_of_another_mind_answers_404_through_this_mind(owner, mind, outsider, other_mind):
    foreign = MindShare.objects.create(mind=other_mind.mind, user=owner.user, acl="read")

    assert (
        owner.client.put(f"/minds/{mind.mind.id}/shares/{foreign.pk}", {"acl": "admin"}, format="json").status_code
        == 404
    )
    assert owner.client.delete(f"/minds/{mind.mind.id}/shares/{foreign.pk}").status_code == 404
    foreign.refresh_from_db()
    assert foreign.acl == "read"


# --- Admin ----------------------------------------------------------------------------------


def test_the_admin_key_page_never_shows_the_digest(staff, mind):
    key = MindKey.objects.get(mind=mind.mind)

    response = staff.get(f"/admin/minds/mindkey/{key.pk}/change/")

    assert response.status_code == 200
    page = response.content.decode()
    assert key.prefix in page
    assert key.digest not in page
    assert 'name="digest"' not in page


def test_the_admin_revoke_action_revokes_the_selected_keys(staff, mind, other_mind):
    key = MindKey.objects.get(mind=mind.mind)
    untouched = MindKey.objects.get(mind=other_mind.mind)

    response = staff.post(
        "/admin/minds/mindkey/", {"action": "revoke_selected", "_selected_action": [key.pk]}, follow=True
    )

    assert response.status_code == 200
    key.refresh_from_db()
    untouched.refresh_from_db()
    assert key.revoked_at is not None
    assert untouched.revoked_at is None
    assert _key_works(mind.key) is False


def test_adding_a_mind_in_the_admin_issues_its_first_key_and_shows_it_once(staff, owner):
    response = staff.post(
        "/admin/minds/mind/add/", {"owner": owner.user.pk, "name": "From admin", "description": ""}, follow=True
    )

    assert response.status_code == 200
    mind = Mind.objects.get(name="From admin")
    key = MindKey.objects.get(mind=mind)
    shown = [str(message) for message in response.context["messages"] if "Mind Key" in str(message)]
    assert len(shown) == 1
    plaintext = shown[0].split("The new Mind Key is ")[1].split(" ")[0]
    assert plaintext.startswith(key.prefix + "_")
    assert _key_works(plaintext)


def test_the_admin_refuses_to_share_a_mind_with_its_owner(staff, owner, mind):
    response = staff.post("/admin/minds/mindshare/add/", {"mind": mind.mind.pk, "user": owner.user.pk, "acl": "read"})

    assert response.status_code == 200  # the form again, with the error
    assert "already has full access" in response.content.decode()
    assert MindShare.objects.count() == 0


def test_a_new_key_draws_again_when_its_prefix_is_taken(mind, monkeypatch):
    taken = MindKey.objects.filter(mind=mind.mind).get().prefix
    draws = iter(
        [(f"{taken}_first-draw-collides-{'x' * 30}", taken), ("mk_0badc0de_second-draw-is-free", "mk_0badc0de")]
    )
    monkeypatch.setattr("minds.services.mind_key_generate", lambda: next(draws))

    issued = mind_key_issue(mind=mind.mind, label="retry")

    assert issued.key.prefix == "mk_0badc0de"
    assert MindKey.objects.filter(mind=mind.mind).count() == 2
