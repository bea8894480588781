"""Register, login, token refresh, and the throttles on /register and on Mind Keys (the login
policy has its own tests: test_login_policy.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.views import APIView
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken

from tests.conftest import PASSWORD, client_with_token, jwt_for

pytestmark = pytest.mark.django_db

User = get_user_model()


def _register(api: APIClient, email: str = "New.Person@Example.com", password: str = PASSWORD):
    return api.post("/register", {"email": email, "password": password}, format="json")


def _login(api: APIClient, email: str, password: str = PASSWORD, address: str = "10.0.0.1", **extra):
    return api.post("/login", {"email": email, "password": password}, format="json", REMOTE_ADDR=address, **extra)


# --- Register -------------------------------------------------------------------------------


def test_register_answers_201_with_the_user_and_a_working_jwt_pair(api):
    response = _register(api)

    assert response.status_code == 201
    body = response.json()
    user = User.objects.get(username="new.person@example.com")
    assert body["user"] == {"id": user.pk, "email": "new.person@example.com"}
    assert set(body) == {"user", "access", "refresh"}
    assert AccessToken(body["access"])["user_id"] == str(user.pk)
    assert client_with_token(body["access"]).get("/minds").status_code == 200


def test_register_stores_the_email_lower_cased_as_username_and_email(api):
    _register(api, email="  MiXeD@Example.COM ")

    user = User.objects.get()
    assert (user.username, user.email) == ("mixed@example.com", "mixed@example.com")


def test_register_refuses_a_taken_email_in_any_case_naming_email(api, owner):
    response = _register(api, email="OWNER@example.com")

    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == "validation_error"
    assert body["error"]["fields"] == {"email": ["An account with this email already exists; log in instead."]}
    assert User.objects.filter(username__iexact="owner@example.com").count() == 1


def test_register_refuses_an_invalid_email(api):
    response = _register(api, email="not-an-email")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["email"]
    assert User.objects.count() == 0


def test_register_applies_django_password_validators_naming_password(api):
    response = _register(api, password="password")

    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == ["password"]
    assert "This password is too common." in fields["password"]
    assert User.objects.count() == 0


def test_register_refuses_a_password_too_similar_to_the_email(api):
    response = _register(api, email="quentinblake@example.com", password="quentinblake")

    assert response.status_code == 400
    assert "The password is too similar to the username." in response.json()["error"]["fields"]["password"]


def test_register_names_every_missing_field(api):
    response = api.post("/register", {}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "email": ["This field is required."],
        "password": ["This field is required."],
    }


def test_register_keeps_spaces_around_the_password(api):
    _register(api, email="spaces@example.com", password=f"  {PASSWORD}  ")

    assert _login(api, "spaces@example.com", password=f"  {PASSWORD}  ").status_code == 200
    assert _login(api, "spaces@example.com", password=PASSWORD).status_code == 401


# --- Login ----------------------------------------------------------------------------------


def test_login_answers_a_jwt_pair_for_the_right_password(api, owner):
    response = _login(api, "owner@example.com")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access", "refresh"}
    assert AccessToken(body["access"])["user_id"] == str(owner.user.pk)
    assert RefreshToken(body["refresh"])["user_id"] == str(owner.user.pk)


def test_login_compares_the_email_case_insensitively(api, owner):
    assert _login(api, "  Owner@EXAMPLE.com").status_code == 200


def test_login_records_the_last_login(api, owner):
    assert owner.user.last_login is None

    _login(api, "owner@example.com")

    owner.user.refresh_from_db()
    assert owner.user.last_login is not None


def test_login_refuses_a_wrong_password_with_401(api, owner):
    response = _login(api, "owner@example.com", password="wrong password")

    assert response.status_code == 401
    assert response.json() == {
        "error": {"code": "authentication_failed", "message": "Wrong email or password.", "fields": {}}
    }
    assert response["WWW-Authenticate"] == 'Bearer realm="synapse"'


def test_login_refuses_an_unknown_email_with_the_same_401(api):
    response = _login(api, "nobody@example.com")

    assert response.status_code == 401
    assert response.json()["error"]["message"] == "Wrong email or password."


def test_login_refuses_an_inactive_account_with_401(api, owner):
    owner.user.is_active = False
    owner.user.save()

    assert _login(api, "owner@example.com").status_code == 401


def test_login_names_every_missing_field(api):
    response = api.post("/login", {}, format="json")

    assert response.status_code == 400
    assert sorted(response.json()["error"]["fields"]) == ["email", "password"]


# --- Token refresh --------------------------------------------------------------------------


def test_token_refresh_answers_a_new_working_access_token(api, owner):
    refresh = str(RefreshToken.for_user(owner.user))

    response = api.post("/token/refresh", {"refresh": refresh}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert sorted(body) == ["access", "refresh"]
    assert client_with_token(body["access"]).get("/minds").status_code == 200


def test_token_refresh_refuses_an_access_token_with_401(api, owner):
    response = api.post("/token/refresh", {"refresh": jwt_for(owner.user)}, format="json")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "token_wrong_type"
    assert response.json()["error"]["message"].startswith("This is not a refresh token")


def test_token_refresh_refuses_garbage_with_401(api):
    response = api.post("/token/refresh", {"refresh": "not.a.token"}, format="json")

    assert response.status_code == 401


def test_token_refresh_refuses_a_token_of_a_deleted_account_with_401(api, outsider):
    refresh = str(RefreshToken.for_user(outsider.user))
    outsider.user.delete()

    response = api.post("/token/refresh", {"refresh": refresh}, format="json")

    assert response.status_code == 401
    assert response.json()["error"]["message"] == "The account of this token no longer exists or is disabled."


def test_token_refresh_refuses_a_token_of_a_disabled_account_with_401(api, outsider):
    refresh = str(RefreshToken.for_user(outsider.user))
    outsider.user.is_active = False
    outsider.user.save()

    assert api.post("/token/refresh", {"refresh": refresh}, format="json").status_code == 401


def test_token_refresh_names_a_missing_refresh_field(api):
    response = api.post("/token/refresh", {}, format="json")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["refresh"]


# --- Throttling -----------------------------------------------------------------------------


@pytest.fixture
def rates(settings):
    """Set throttle rates for this test: rates(mind_key="3/min")."""

    def set_rates(**overrides: str) -> None:
        current = settings.REST_FRAMEWORK
        settings.REST_FRAMEWORK = {
            **current,
            "DEFAULT_THROTTLE_RATES": {**current["DEFAULT_THROTTLE_RATES"], **overrides},
        }

    return set_rates


class _AgentOrHumanView(APIView):
    """Any authenticated caller; the default throttles apply."""

    permission_classes = [IsAuthenticated]

    def get(self, request):
        return Response({"ok": True})


def _call(token: str):
    request = APIRequestFactory().get("/probe", HTTP_AUTHORIZATION=f"Bearer {token}")
    return _AgentOrHumanView.as_view()(request)


@pytest.mark.parametrize("cache_alias", ["local", "default"])
def test_mind_key_calls_are_throttled_per_key(mind, other_mind, rates, settings, cache_alias):
    settings.MIND_KEY_THROTTLE_CACHE = cache_alias
    rates(mind_key="2/min")
    assert [_call(mind.key).status_code for _ in range(2)] == [200, 200]

    response = _call(mind.key)

    assert response.status_code == 429
    assert response.data["error"]["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60
    assert _call(other_mind.key).status_code == 200


def test_human_calls_are_not_counted_by_the_mind_key_throttle(owner, rates):
    rates(mind_key="1/min")

    assert [_call(jwt_for(owner.user)).status_code for _ in range(3)] == [200, 200, 200]


def test_registration_is_throttled_per_client_address(api, rates):
    def register(n: int, address: str):
        body = {"email": f"new{n}@example.com", "password": PASSWORD}
        return api.post("/register", body, format="json", REMOTE_ADDR=address)

    rates(register_ip="2/hour")
    assert [register(n, "10.0.4.1").status_code for n in range(2)] == [201, 201]

    refused = register(9, "10.0.4.1")
    other_address = register(8, "10.0.4.2")

    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "throttled"
    assert other_address.status_code == 201


def test_an_email_with_an_apostrophe_can_register(api):
    response = api.post("/register", {"email": "O'Brien@example.com", "password": PASSWORD}, format="json")

    assert response.status_code == 201
    assert response.json()["user"]["email"] == "o'brien@example.com"
