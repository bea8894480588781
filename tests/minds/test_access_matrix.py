"""The access matrix: who may do what with a mind.

Human endpoints are exercised through the API. Two tiny DRF views below stand in for the
memory endpoints (a read and a write through `mind_from_request`) and for an object lookup
(`mind_get_for`), so the matrix is pinned here independently of the memory API.
"""

from __future__ import annotations

import pytest
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from minds.access import Access, mind_get_for
from minds.api.request_mind import mind_from_request
from minds.models import Mind, MindKey
from tests.conftest import client_with_token, jwt_for

pytestmark = pytest.mark.django_db


class _MindRead(APIView):
    def get(self, request):
        mind, level = mind_from_request(request, need=Access.READ)
        return Response({"mind": mind.pk, "access": level.label})


class _MindWrite(APIView):
    def post(self, request):
        mind, level = mind_from_request(request, need=Access.WRITE)
        return Response({"mind": mind.pk, "access": level.label})


class _MindObject(APIView):
    """An object addressed by the mind's id in the path, like /memory/{id} addresses its mind."""

    def get(self, request, mind_id: str):
        mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
        return Response({"mind": mind.pk, "access": level.label})


def _as(token: str | None, method: str, view: type[APIView], *, mind: str | None = None, **kwargs):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    query = f"?mind={mind}" if mind else ""
    request = getattr(APIRequestFactory(), method)(f"/probe{query}", format="json", **headers)
    return view.as_view()(request, **kwargs)


# --- Owner ----------------------------------------------------------------------------------


def test_the_owner_may_read_write_manage_and_delete(owner, mind):
    mind_id = mind.mind.id
    token = jwt_for(owner.user)

    assert _as(token, "get", _MindRead, mind=mind_id).data == {"mind": mind_id, "access": "owner"}
    assert _as(token, "post", _MindWrite, mind=mind_id).status_code == 200
    assert owner.client.patch(f"/minds/{mind_id}", {"name": "n"}, format="json").status_code == 200
    assert owner.client.get(f"/minds/{mind_id}/keys").status_code == 200
    assert owner.client.get(f"/minds/{mind_id}/shares").status_code == 200
    assert owner.client.delete(f"/minds/{mind_id}").status_code == 204


# --- Shares ---------------------------------------------------------------------------------


def test_a_read_share_may_read_but_not_write(reader, mind):
    mind_id = mind.mind.id
    token = jwt_for(reader.user)

    assert reader.client.get(f"/minds/{mind_id}").json()["access"] == "read"
    assert _as(token, "get", _MindRead, mind=mind_id).status_code == 200
    refused = _as(token, "post", _MindWrite, mind=mind_id)
    assert refused.status_code == 403
    assert refused.data["error"]["message"] == "This needs write access to the mind; you have read access."


def test_a_read_share_may_not_manage_keys_shares_or_the_mind(reader, mind):
    mind_id = mind.mind.id

    assert reader.client.get(f"/minds/{mind_id}/keys").status_code == 403
    assert reader.client.post(f"/minds/{mind_id}/keys", {}, format="json").status_code == 403
    assert reader.client.get(f"/minds/{mind_id}/shares").status_code == 403
    share = {"user_email": "reader@example.com", "acl": "admin"}
    assert reader.client.post(f"/minds/{mind_id}/share", share, format="json").status_code == 403
    assert reader.client.patch(f"/minds/{mind_id}", {"name": "n"}, format="json").status_code == 403
    assert reader.client.delete(f"/minds/{mind_id}").status_code == 403
    assert Mind.objects.get(pk=mind_id).name == "Michael's Mind"


def test_a_write_share_may_write_but_not_manage(writer, mind):
    mind_id = mind.mind.id
    token = jwt_for(writer.user)

    assert _as(token, "post", _MindWrite, mind=mind_id).data == {"mind": mind_id, "access": "write"}
    assert writer.client.get(f"/minds/{mind_id}/keys").status_code == 403
    assert writer.client.get(f"/minds/{mind_id}/shares").status_code == 403
    assert writer.client.patch(f"/minds/{mind_id}", {"name": "n"}, format="json").status_code == 403


def test_an_admin_share_may_manage_keys_and_shares_but_not_delete(mind_admin, mind, outsider):
    mind_id = mind.mind.id

    assert _as(jwt_for(mind_admin.user), "post", _MindWrite, mind=mind_id).status_code == 200
    assert mind_admin.client.get(f"/minds/{mind_id}/keys").status_code == 200
    issued = mind_admin.client.post(f"/minds/{mind_id}/keys", {"label": "by admin"}, format="json")
    assert issued.status_code == 201
    assert mind_admin.client.delete(f"/minds/{mind_id}/keys/{issued.json()['id']}").status_code == 204
    share = {"user_email": "outsider@example.com", "acl": "read"}
    assert mind_admin.client.post(f"/minds/{mind_id}/share", share, format="json").status_code == 201
    assert mind_admin.client.get(f"/minds/{mind_id}/shares").json()["count"] == 2
    assert mind_admin.client.patch(f"/minds/{mind_id}", {"description": "d"}, format="json").status_code == 200
    refused = mind_admin.client.delete(f"/minds/{mind_id}")
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "This needs owner access to the mind; you have admin access."
    assert Mind.objects.filter(pk=mind_id).exists()


# --- Outsiders and other minds --------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/minds/{id}"),
        ("patch", "/minds/{id}"),
        ("delete", "/minds/{id}"),
        ("get", "/minds/{id}/keys"),
        ("post", "/minds/{id}/keys"),
        ("delete", "/minds/{id}/keys/{key}"),
        ("post", "/minds/{id}/share"),
        ("get", "/minds/{id}/shares"),
    ],
)
def test_an_outsider_gets_404_for_every_mind_endpoint(outsider, mind, method, path):
    key = MindKey.objects.get(mind=mind.mind)

    response = getattr(outsider.client, method)(path.format(id=mind.mind.id, key=key.pk), {}, format="json")

    assert response.status_code == 404
    assert response.json()["error"] == {
        "code": "not_found",
        "message": "No mind with this id is visible to you.",
        "fields": {},
    }


def test_an_outsider_gets_the_same_404_as_for_a_mind_that_does_not_exist(outsider, mind):
    hidden = outsider.client.get(f"/minds/{mind.mind.id}")
    missing = outsider.client.get("/minds/m_doesnotexist0000")

    assert (hidden.status_code, hidden.json()) == (missing.status_code, missing.json())


def test_an_outsider_gets_404_naming_the_mind_on_a_memory_endpoint(outsider, mind):
    response = _as(jwt_for(outsider.user), "get", _MindRead, mind=mind.mind.id)

    assert response.status_code == 404


def test_another_minds_key_gets_404_for_a_mind_object(mind, other_mind):
    response = _as(other_mind.key, "get", _MindObject, mind_id=mind.mind.id)

    assert response.status_code == 404
    assert _as(mind.key, "get", _MindObject, mind_id=mind.mind.id).data == {"mind": mind.mind.id, "access": "write"}


def test_a_mind_key_acts_on_its_own_mind_whatever_mind_it_names(mind, other_mind):
    response = _as(other_mind.key, "post", _MindWrite, mind=mind.mind.id)

    assert response.data == {"mind": other_mind.mind.id, "access": "write"}


# --- Credentials ----------------------------------------------------------------------------


def test_a_revoked_key_answers_401(owner, mind):
    key = MindKey.objects.get(mind=mind.mind)
    assert _as(mind.key, "get", _MindRead).status_code == 200

    owner.client.delete(f"/minds/{mind.mind.id}/keys/{key.pk}")

    response = _as(mind.key, "get", _MindRead)
    assert response.status_code == 401
    assert response.data["error"]["code"] == "authentication_failed"


def test_a_key_with_a_wrong_secret_answers_401(mind):
    forged = mind.key[:-4] + ("AAAA" if not mind.key.endswith("AAAA") else "BBBB")

    assert _as(forged, "get", _MindRead).status_code == 401


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/minds"),
        ("post", "/minds"),
        ("get", "/minds/shared"),
        ("get", "/minds/{id}"),
        ("patch", "/minds/{id}"),
        ("delete", "/minds/{id}"),
        ("get", "/minds/{id}/keys"),
        ("post", "/minds/{id}/keys"),
        ("post", "/minds/{id}/share"),
        ("get", "/minds/{id}/shares"),
    ],
)
def test_a_mind_key_on_a_human_endpoint_answers_403(mind, method, path):
    response = getattr(mind.agent, method)(path.format(id=mind.mind.id), {"name": "x"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"] == {
        "code": "permission_denied",
        "message": "This endpoint is for humans (log in for a JWT); a Mind Key cannot use it.",
        "fields": {},
    }
    assert Mind.objects.count() == 1


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/minds"),
        ("post", "/minds"),
        ("get", "/minds/shared"),
        ("get", "/minds/{id}"),
        ("get", "/minds/{id}/keys"),
    ],
)
def test_no_credentials_answer_401(api, mind, method, path):
    response = getattr(api, method)(path.format(id=mind.mind.id), {}, format="json")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == 'Bearer realm="synapse"'


def test_an_invalid_jwt_answers_401(mind):
    response = client_with_token("eyJhbGciOiJIUzI1NiJ9.e30.bad").get("/minds")

    assert response.status_code == 401
