"""A mind's keys, shares and settings in the UI: admin access or the owner, as over the API."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages

from minds.mindkeys import mind_key_digest
from minds.models import Mind, MindKey, MindShare
from tests.pages import assert_page_keeps_to_its_policy
from tests.ui.conftest import logged_in

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_an_issued_key_is_shown_once_stored_as_a_digest_and_works(mind_admin, mind):
    client = logged_in(mind_admin)

    response = client.post(f"/app/minds/{mind.mind.pk}/keys/new/", {"label": "laptop agent"})

    plaintext = response.context["issued"].plaintext
    key = MindKey.objects.get(mind=mind.mind, label="laptop agent")
    assert response.status_code == 201 and plaintext in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    assert key.digest == mind_key_digest(plaintext) and plaintext not in key.digest
    listing = client.get(f"/app/minds/{mind.mind.pk}/keys/").content.decode()
    assert plaintext not in listing and f"{key.prefix}…" in listing
    assert client.get("/memory/recall", HTTP_AUTHORIZATION=f"Bearer {plaintext}").status_code == 200
    assert _messages(response) == [f"Key {key.prefix}… issued. Copy it now: it is shown only once."]


def test_a_revoked_key_answers_401_from_then_on(owner, mind):
    key = MindKey.objects.get(mind=mind.mind)

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/keys/{key.pk}/revoke/")

    key.refresh_from_db()
    assert response.status_code == 302 and key.revoked_at is not None
    assert mind.agent.get("/memory/recall").status_code == 401
    assert _messages(response) == [f"Key {key.prefix}… revoked: it answers 401 from now on."]


def test_a_key_of_another_mind_cannot_be_revoked_through_this_one(owner, mind, other_mind):
    theirs = MindKey.objects.get(mind=other_mind.mind)

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/keys/{theirs.pk}/revoke/")

    theirs.refresh_from_db()
    assert response.status_code == 404 and theirs.revoked_at is None


@pytest.mark.parametrize(("person", "status"), [("writer", 403), ("reader", 403), ("outsider", 404)])
def test_keys_and_sharing_need_admin_access(request, mind, person, status):
    client = logged_in(request.getfixturevalue(person))

    assert client.get(f"/app/minds/{mind.mind.pk}/keys/").status_code == status
    assert client.post(f"/app/minds/{mind.mind.pk}/keys/new/", {"label": "x"}).status_code == status
    assert client.post(
        f"/app/minds/{mind.mind.pk}/shares/new/", {"user_email": "a@b.c", "acl": "read"}
    ).status_code == (status)
    assert MindKey.objects.filter(mind=mind.mind).count() == 1


def test_sharing_grants_changes_and_ends_access(owner, mind, outsider):
    client = logged_in(owner)

    created = client.post(
        f"/app/minds/{mind.mind.pk}/shares/new/", {"user_email": "Outsider@example.com", "acl": "read"}
    )
    share = MindShare.objects.get(mind=mind.mind, user=outsider.user)
    changed = client.post(f"/app/minds/{mind.mind.pk}/shares/{share.pk}/", {"acl": "write"})
    share.refresh_from_db()
    acl_after_change = share.acl
    ended = client.post(f"/app/minds/{mind.mind.pk}/shares/{share.pk}/delete/")

    assert created.status_code == changed.status_code == ended.status_code == 302
    assert acl_after_change == "write"
    assert not MindShare.objects.filter(pk=share.pk).exists()
    assert _messages(ended) == [
        "Shared with outsider@example.com (read).",
        "outsider@example.com now has write access.",
        "No longer shared with outsider@example.com.",
    ]


def test_sharing_with_an_unknown_account_or_twice_is_a_form_error(owner, mind, reader):
    client = logged_in(owner)

    unknown = client.post(f"/app/minds/{mind.mind.pk}/shares/new/", {"user_email": "nobody@example.com", "acl": "read"})
    twice = client.post(f"/app/minds/{mind.mind.pk}/shares/new/", {"user_email": "reader@example.com", "acl": "write"})
    owner_itself = client.post(
        f"/app/minds/{mind.mind.pk}/shares/new/", {"user_email": "owner@example.com", "acl": "read"}
    )

    assert unknown.status_code == 400
    assert unknown.context["share_form"].errors["user_email"] == [
        "No account has this email; ask them to register first."
    ]
    assert twice.status_code == 400
    assert "The mind is already shared with reader@example.com" in twice.context["share_form"].non_field_errors()[0]
    assert "already has full access" in owner_itself.context["share_form"].errors["user_email"][0]
    assert MindShare.objects.get(mind=mind.mind, user=reader.user).acl == "read"


def test_an_access_level_that_does_not_exist_changes_nothing(owner, mind, reader):
    share = MindShare.objects.get(mind=mind.mind, user=reader.user)

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/shares/{share.pk}/", {"acl": "god"})

    share.refresh_from_db()
    assert share.acl == "read"
    assert _messages(response) == ["Choose one of: read, write, admin."]


def test_an_admin_share_renames_the_mind_but_only_the_owner_deletes_it(owner, mind, mind_admin):
    admin = logged_in(mind_admin)

    renamed = admin.post(f"/app/minds/{mind.mind.pk}/rename/", {"name": "Renamed", "description": "new"})
    refused = admin.post(f"/app/minds/{mind.mind.pk}/delete/", {"confirm_name": "Renamed"})

    mind.mind.refresh_from_db()
    assert renamed.status_code == 302 and (mind.mind.name, mind.mind.description) == ("Renamed", "new")
    assert refused.status_code == 403
    owner_client = logged_in(owner)
    not_confirmed = owner_client.post(f"/app/minds/{mind.mind.pk}/delete/", {"confirm_name": "wrong"})
    assert Mind.objects.filter(pk=mind.mind.pk).exists()
    assert _messages(not_confirmed)[-1] == "Type the mind's name, “Renamed”, to delete it; nothing was deleted."
    deleted = owner_client.post(f"/app/minds/{mind.mind.pk}/delete/", {"confirm_name": "Renamed"})
    assert deleted.status_code == 302 and deleted["Location"] == "/app/"
    assert not Mind.objects.filter(pk=mind.mind.pk).exists()


def test_the_keys_page_keeps_to_the_content_security_policy(owner, mind, reader):
    assert_page_keeps_to_its_policy(logged_in(owner).get(f"/app/minds/{mind.mind.pk}/keys/"))
