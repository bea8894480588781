"""One login policy for /login, /accounts/login/ and /admin/login/ (minds/login_policy.py): one
count of wrong passwords, a lockout per (account, address) from the 11th attempt in a minute, only
a growing delay for the account's other addresses, `manage.py unlock` and the admin's action.

Each test starts from an empty `logins` cache (asserted): its rows live in the test's transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from minds.login_policy import account_delay_seconds

EMAIL = "root@example.com"
PASSWORD = "the right password 42"
ATTACKER = "10.9.0.1"
OWNER_ELSEWHERE = "10.9.0.2"


@dataclass(frozen=True)
class Answer:
    status: int
    retry_after: int | None
    text: str


def _api(email: str, password: str, address: str) -> Answer:
    response = APIClient().post("/login", {"email": email, "password": password}, format="json", REMOTE_ADDR=address)
    return Answer(response.status_code, _retry_after(response), response.content.decode())


def _page(path: str) -> Callable[[str, str, str], Answer]:
    def attempt(email: str, password: str, address: str) -> Answer:
        response = Client(REMOTE_ADDR=address).post(path, {"username": email, "password": password})
        return Answer(response.status_code, _retry_after(response), response.content.decode())

    return attempt


def _retry_after(response) -> int | None:
    return int(response["Retry-After"]) if response.has_header("Retry-After") else None


DOORS = {"api": _api, "ui": _page("/accounts/login/"), "admin": _page("/admin/login/")}
# What each door answers to the right password, and to a wrong one.
LOGGED_IN = {"api": 200, "ui": 302, "admin": 302}
WRONG = {"api": 401, "ui": 200, "admin": 200}


@pytest.fixture
def account(db):
    """A staff account (the admin lets only staff in), the login cache empty."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM synapse_login_attempts")
        assert cursor.fetchone()[0] == 0, "the test does not start from an empty login cache"
    return get_user_model().objects.create_superuser(username=EMAIL, email=EMAIL, password=PASSWORD)


def _wrong_passwords_through_every_door(count: int, address: str) -> None:
    """`count` wrong passwords, taking the three doors in turn: they add up to one count."""
    names = list(DOORS)
    for n in range(count):
        name = names[n % len(names)]
        assert DOORS[name](EMAIL, f"wrong {n}", address).status == WRONG[name], (name, n)


@pytest.mark.parametrize("door", DOORS)
def test_each_door_locks_the_address_out_of_the_account_from_the_11th_attempt_shared_with_the_others(
    account, door, settings
):
    attempt = DOORS[door]
    _wrong_passwords_through_every_door(10, ATTACKER)

    locked = attempt(EMAIL, PASSWORD, ATTACKER)  # the 11th attempt, the right password

    assert locked.status == 429
    assert settings.LOGIN_LOCKOUT_SECONDS - 5 <= locked.retry_after <= settings.LOGIN_LOCKOUT_SECONDS == 900
    assert f"try again in {locked.retry_after} s" in locked.text.lower()

    # Another address meets only the account's delay (1 s after 10 wrong passwords), then logs in.
    delayed = attempt(EMAIL, PASSWORD, OWNER_ELSEWHERE)
    assert delayed.status == 429 and delayed.retry_after <= 1
    time.sleep(delayed.retry_after)
    assert attempt(EMAIL, PASSWORD, OWNER_ELSEWHERE).status == LOGGED_IN[door]
    # … while the attacker's address stays locked out.
    assert attempt(EMAIL, PASSWORD, ATTACKER).status == 429

    out = StringIO()
    call_command("unlock", "Root@Example.com", stdout=out)

    assert "1 lockout(s) lifted" in out.getvalue()
    assert attempt(EMAIL, PASSWORD, ATTACKER).status == LOGGED_IN[door]


def test_ten_wrong_passwords_are_refused_one_by_one_and_only_the_11th_attempt_is_locked(account):
    answers = [_api(EMAIL, f"wrong {n}", ATTACKER).status for n in range(10)]

    assert answers == [401] * 10
    assert _api(EMAIL, "wrong again", ATTACKER).status == 429


def test_a_right_password_clears_the_count_of_its_address(account):
    _wrong_passwords_through_every_door(9, ATTACKER)
    assert _api(EMAIL, PASSWORD, ATTACKER).status == 200

    _wrong_passwords_through_every_door(9, ATTACKER)

    assert _api(EMAIL, PASSWORD, ATTACKER).status == 200


def test_the_account_s_delay_doubles_with_each_wrong_password_up_to_10_s(settings):
    assert settings.LOGIN_LOCKOUT_FAILURES == 10
    delays = [account_delay_seconds(failures) for failures in range(8, 17)]

    assert delays == [0, 0, 1, 2, 4, 8, 10, 10, 10]


def test_the_delay_grows_for_other_addresses_while_wrong_passwords_go_on(account):
    _wrong_passwords_through_every_door(10, ATTACKER)
    first = _api(EMAIL, PASSWORD, OWNER_ELSEWHERE)
    time.sleep(first.retry_after)
    assert _api(EMAIL, "still guessing", "10.9.0.3").status == 401  # the 11th wrong password

    second = _api(EMAIL, PASSWORD, OWNER_ELSEWHERE)

    assert (first.retry_after, second.status, second.retry_after) == (1, 429, 2)


def test_one_address_trying_many_accounts_is_refused_for_the_rest_of_the_minute(account, settings):
    settings.LOGIN_ADDRESS_FAILURES = 3
    for n in range(3):
        assert _api(f"guess{n}@example.com", "wrong", ATTACKER).status == 401

    refused = _api(EMAIL, PASSWORD, ATTACKER)

    assert refused.status == 429 and 55 <= refused.retry_after <= 60
    assert "from this address" in refused.text
    assert _api(EMAIL, PASSWORD, OWNER_ELSEWHERE).status == 200


def test_a_forged_forwarded_for_header_does_not_dodge_the_lockout(account):
    for n in range(10):
        APIClient().post(
            "/login", {"email": EMAIL, "password": "wrong"}, format="json",
            REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=f"192.0.2.{n}",
        )  # fmt: skip

    refused = APIClient().post(
        "/login", {"email": EMAIL, "password": PASSWORD}, format="json",
        REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR="192.0.2.200",
    )  # fmt: skip

    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "throttled"


def test_the_admin_action_lifts_the_lockout(account):
    _wrong_passwords_through_every_door(10, ATTACKER)
    assert _api(EMAIL, PASSWORD, ATTACKER).status == 429
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser(username="ops@example.com", password="x"))

    response = staff.post(
        "/admin/auth/user/", {"action": "unlock_logins", "_selected_action": [account.pk]}, follow=True
    )

    assert response.status_code == 200
    assert "1 lockout(s) lifted" in response.content.decode()
    assert _api(EMAIL, PASSWORD, ATTACKER).status == 200


def test_unlock_of_an_account_without_lockouts_lifts_none(account):
    out = StringIO()

    call_command("unlock", "nobody@example.com", stdout=out)

    assert "0 lockout(s) lifted" in out.getvalue()
