"""Login, logout, registration and password change in the UI."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_an_anonymous_visitor_of_the_app_is_sent_to_the_login_page_and_back():
    response = Client().get("/app/minds/m_whatever/")

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/app/minds/m_whatever/"


def test_login_takes_the_email_in_any_case_and_lands_on_the_dashboard_with_a_message(owner):
    client = Client()

    response = client.post("/accounts/login/", {"username": "OWNER@Example.com", "password": PASSWORD})

    assert response.status_code == 302 and response["Location"] == "/app/"
    assert _messages(response) == ["Logged in as owner@example.com."]
    assert client.get("/app/").status_code == 200


def test_a_wrong_password_stays_on_the_login_page_with_an_error(owner):
    response = Client().post("/accounts/login/", {"username": "owner@example.com", "password": "wrong"})

    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == ["Wrong email or password."]
    assert "_auth_user_id" not in response.wsgi_request.session


def test_logout_is_a_post_and_says_so():
    client = Client()
    client.force_login(get_user_model().objects.create_user("a@example.com", "a@example.com", PASSWORD))

    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")

    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    assert _messages(response) == ["Logged out."]
    assert client.get("/app/").status_code == 302


def test_registration_creates_the_account_and_logs_it_in():
    client = Client()

    response = client.post(
        "/accounts/register/",
        {"email": "Ada@Example.com", "password": "Lovelace-engine-1843", "password_again": "Lovelace-engine-1843"},
    )

    assert response.status_code == 302 and response["Location"] == "/app/"
    user = get_user_model().objects.get(username="ada@example.com")
    assert user.check_password("Lovelace-engine-1843")
    assert client.get("/app/").context["user"] == user
    assert _messages(response)[0].startswith("Welcome, ada@example.com.")


def test_registration_shows_the_password_rules_it_breaks_under_the_password():
    response = Client().post(
        "/accounts/register/", {"email": "bob@example.com", "password": "12345678", "password_again": "12345678"}
    )

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "This password is too common." in errors["password"]
    assert "This password is entirely numeric." in errors["password"]
    assert not get_user_model().objects.filter(username="bob@example.com").exists()


def test_registration_refuses_a_taken_email_and_differing_passwords(owner):
    taken = Client().post(
        "/accounts/register/",
        {"email": "owner@example.com", "password": "Lovelace-engine-1843", "password_again": "Lovelace-engine-1843"},
    )
    differ = Client().post(
        "/accounts/register/",
        {"email": "new@example.com", "password": "Lovelace-engine-1843", "password_again": "Lovelace-engine-1844"},
    )

    assert taken.context["form"].errors["email"] == ["An account with this email already exists; log in instead."]
    assert differ.context["form"].errors["password_again"] == [
        "The two passwords differ; type the same password twice."
    ]


def test_password_change_needs_the_old_password_and_keeps_the_session(owner):
    client = Client()
    client.force_login(owner.user)

    wrong = client.post(
        "/accounts/password/",
        {"old_password": "nope", "new_password1": "Babbage-engine-1822", "new_password2": "Babbage-engine-1822"},
    )
    right = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "Babbage-engine-1822", "new_password2": "Babbage-engine-1822"},
    )

    assert wrong.status_code == 200 and "old_password" in wrong.context["form"].errors
    assert right.status_code == 302 and right["Location"] == "/app/"
    owner.user.refresh_from_db()
    assert owner.user.check_password("Babbage-engine-1822")
    assert client.get("/app/").status_code == 200
    assert _messages(right) == ["Password changed. Other sessions of this account are logged out."]


def test_ui_forms_refuse_a_post_without_the_csrf_token_with_a_page_saying_what_to_do(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner.user)

    response = client.post("/app/minds/new/", {"name": "No token"})

    body = response.content.decode()
    assert response.status_code == 403 and response["Content-Type"].startswith("text/html")
    assert "The form expired" in body and "reload the page" in body
    assert "CSRF cookie not set." in body
    assert not owner.user.minds.filter(name="No token").exists()


def test_a_login_form_sent_without_its_token_answers_the_html_page_too():
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "a@b.c", "password": "x"})

    assert response.status_code == 403 and response["Content-Type"].startswith("text/html")
    assert "reload the page" in response.content.decode()
    assert 'href="/accounts/login/"' in response.content.decode()


def test_a_failed_csrf_check_outside_the_ui_still_answers_the_apis_json(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner.user)

    response = client.post("/admin/logout/")

    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "csrf_failed"


def test_the_login_page_carries_a_csrf_token_in_its_form():
    body = Client().get("/accounts/login/").content.decode()

    assert 'name="csrfmiddlewaretoken"' in body


@pytest.fixture
def rates(settings):
    """Set the API's throttle rates for this test: rates(register_ip="3/min"). (The login policy
    of the page and the API: tests/minds/test_login_policy.py.)"""

    def set_rates(**overrides: str) -> None:
        current = settings.REST_FRAMEWORK
        settings.REST_FRAMEWORK = {
            **current,
            "DEFAULT_THROTTLE_RATES": {**current["DEFAULT_THROTTLE_RATES"], **overrides},
        }

    return set_rates


def test_registration_on_the_page_is_throttled_per_client_address(rates):
    rates(register_ip="1/min")
    client = Client(REMOTE_ADDR="10.0.3.1")
    form = {"email": "first@example.com", "password": "Lovelace-engine-1843", "password_again": "Lovelace-engine-1843"}
    assert client.post("/accounts/register/", form).status_code == 302
    client.post("/accounts/logout/")

    refused = client.post("/accounts/register/", {**form, "email": "second@example.com"})

    assert refused.status_code == 429
    assert not get_user_model().objects.filter(username="second@example.com").exists()
