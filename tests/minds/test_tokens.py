"""Revocable tokens, through HTTP: refresh tokens rotated and usable once, POST /logout, a
password change or a deactivation revoking every token of the account, errors naming the case,
Mind Keys untouched, and the daily flush of expired rows."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework_simplejwt.token_blacklist.models import OutstandingToken
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken

from memoryproject.schedules import SCHEDULES
from minds.models import RevokedSession
from minds.tasks import tokens_flush_expired
from tests.conftest import PASSWORD, client_with_token

NEW_PASSWORD = "a brand new password 77"


def _login(email: str = "owner@example.com", password: str = PASSWORD) -> dict:
    response = APIClient().post("/login", {"email": email, "password": password}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _refresh(refresh: str):
    return APIClient().post("/token/refresh", {"refresh": refresh}, format="json")


def _logout(refresh: str):
    return APIClient().post("/logout", {"refresh": refresh}, format="json")


def _as(access: str):
    return client_with_token(access).get("/minds")


def _refused(response, code: str, words: str) -> bool:
    error = response.json()["error"]
    return response.status_code == 401 and error["code"] == code and words in error["message"]


def test_a_refresh_answers_a_working_pair_and_the_used_refresh_token_cannot_be_used_twice(owner):
    first = _login()

    rotated = _refresh(first["refresh"])
    again = _refresh(first["refresh"])

    assert rotated.status_code == 200
    pair = rotated.json()
    assert pair["refresh"] != first["refresh"]
    assert _as(pair["access"]).status_code == 200
    assert _refused(again, "token_revoked", "already used")
    assert _refresh(pair["refresh"]).status_code == 200  # the new one works, once


def test_after_logout_the_old_refresh_and_access_tokens_answer_401_naming_why(owner, mind):
    pair = _login()
    other_login = _login()
    rotated = _refresh(pair["refresh"]).json()  # the login's tokens through a rotation

    assert _logout(rotated["refresh"]).status_code == 204

    assert _refused(_refresh(rotated["refresh"]), "token_revoked", "revoked")
    assert _refused(_as(rotated["access"]), "token_revoked", "POST /logout")
    assert _refused(_as(pair["access"]), "token_revoked", "POST /logout")
    # Another login of the account, and the agents' Mind Keys, are untouched.
    assert _as(other_login["access"]).status_code == 200
    assert _refresh(other_login["refresh"]).status_code == 200
    assert mind.agent.get("/memory").status_code == 200


def test_after_a_password_change_every_old_token_answers_401_and_a_new_login_works(owner, mind):
    pair = _login()
    page = Client()
    page.force_login(owner.user)

    changed = page.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert changed.status_code == 302
    assert _refused(_refresh(pair["refresh"]), "token_revoked", "password changed")
    assert _refused(_as(pair["access"]), "token_revoked", "password changed")
    fresh = _login(password=NEW_PASSWORD)
    assert _as(fresh["access"]).status_code == 200
    assert _as(_refresh(fresh["refresh"]).json()["access"]).status_code == 200
    assert mind.agent.get("/memory").status_code == 200  # Mind Keys stay valid
    assert page.get("/app/").status_code == 200  # the page that changed it stays logged in


def test_a_password_set_elsewhere_revokes_the_tokens_too(owner):
    pair = _login()

    owner.user.set_password(NEW_PASSWORD)
    owner.user.save()

    assert _refused(_as(pair["access"]), "token_revoked", "password changed")


def test_a_deactivated_account_s_tokens_answer_401(owner):
    pair = _login()

    owner.user.is_active = False
    owner.user.save()

    assert _refused(_as(pair["access"]), "token_revoked", "deactivated")
    assert _refused(_refresh(pair["refresh"]), "token_revoked", "deactivated")


def test_a_login_that_only_records_the_last_login_revokes_nothing(owner):
    pair = _login()
    _login()  # update_last_login saves the user

    assert _as(pair["access"]).status_code == 200


def test_an_expired_access_token_says_to_use_the_refresh_endpoint(owner):
    token = AccessToken.for_user(owner.user)
    token.set_exp(from_time=timezone.now() - timedelta(hours=2))

    response = _as(str(token))

    assert _refused(response, "token_expired", "expired — use POST /token/refresh")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_refresh_token_sent_as_bearer_is_not_an_access_token(owner):
    assert _refused(_as(_login()["refresh"]), "token_wrong_type", "not an access token")


def test_an_access_token_sent_to_refresh_or_logout_is_not_a_refresh_token(owner):
    access = _login()["access"]

    assert _refused(_refresh(access), "token_wrong_type", "not a refresh token")
    assert _refused(_logout(access), "token_wrong_type", "not a refresh token")


def test_a_forged_token_is_not_valid(owner):
    assert _refused(_as("eyJhbGciOiJIUzI1NiJ9.eyJ4IjoxfQ.c2lnbmF0dXJl"), "authentication_failed", "not valid")


def test_logout_names_a_missing_refresh_field():
    response = APIClient().post("/logout", {}, format="json")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["refresh"]


def test_the_ui_logout_ends_the_session_on_the_server(owner):
    page = Client()
    page.force_login(owner.user)
    cookie = page.cookies["sessionid"].value

    page.post("/accounts/logout/")
    replay = Client()
    replay.cookies["sessionid"] = cookie

    assert replay.get("/app/").status_code == 302  # the copied cookie logs no one in


def test_the_daily_flush_removes_expired_tokens_and_logouts_only(owner):
    pair = _login()
    _logout(_login()["refresh"])
    past = timezone.now() - timedelta(days=1)
    kept = RefreshToken(pair["refresh"])["jti"]
    expired = OutstandingToken.objects.filter(user=owner.user).exclude(jti=kept).order_by("pk").first()
    OutstandingToken.objects.filter(pk=expired.pk).update(expires_at=past)
    RevokedSession.objects.update(expires_at=past)
    outstanding = OutstandingToken.objects.count()

    assert tokens_flush_expired() == 1

    assert OutstandingToken.objects.count() == outstanding - 1
    assert not RevokedSession.objects.exists()
    assert _refresh(pair["refresh"]).status_code == 200
    assert "minds.tasks.tokens_flush_expired" in {spec.func for spec in SCHEDULES}
