"""One login policy for every door: `POST /login` (API), `/accounts/login/` (UI) and `/admin/login/`.

Wrong passwords are counted once, here, whichever door they came through (docs/api-accounts.md →
"The login policy"):

- per (account, address): the `LOGIN_LOCKOUT_FAILURES`+1-th attempt within `LOGIN_WINDOW_SECONDS`
  and every one after it is refused — the right password included — for `LOGIN_LOCKOUT_SECONDS`;
- per account, from any other address, only a growing delay: once the account has had
  `LOGIN_LOCKOUT_FAILURES` wrong passwords in the window, an attempt must wait 1 s after the last
  one, doubling with each further wrong password up to 10 s. A hard per-account lockout would let
  anyone who knows an email lock its owner out; the delay leaves the owner a login in ≤ 10 s.
  The right password clears its address's count and the account's delay;
- per address, across accounts: `LOGIN_ADDRESS_FAILURES` wrong passwords in the window refuse the
  rest of it (one address trying many accounts).

Counts live in their own database cache (`logins`, table `synapse_login_attempts`, made by
`createcachetable`), visible to every process. Each attempt of one account holds a transaction-level
advisory lock from the check to the count, so parallel guesses are counted one after another and
none slips past the lockout. Accounts and addresses are hashed into the cache keys: the table
holds no email or address in clear.

Knows nothing of HTTP: the doors pass the email and the client address.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from minds.services import email_normalize
from minds.sql import LOGIN_ACCOUNT_LOCK_SQL

LOGIN_CACHE = "logins"
# The first wait once an account is under attack, and its cap (seconds); it doubles in between.
DELAY_FIRST_SECONDS = 1
DELAY_MAX_SECONDS = 10
# The first number of pg_advisory_xact_lock(int, int): the login policy's own space of locks.
ADVISORY_LOCK_SPACE = 24_001

LOCKED = (
    "Too many wrong passwords for this account from this address: logins from here are refused "
    "for {minutes} min. Try again in {seconds} s."
)
DELAYED = "Too many wrong passwords for this account: try again in {seconds} s."
ADDRESS_LIMITED = "Too many wrong passwords from this address: try again in {seconds} s."

T = TypeVar("T")


@dataclass(frozen=True)
class Refusal:
    """An attempt refused before its password is looked at, and when to try again."""

    seconds: int  # Retry-After
    message: str


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _keys(account: str, address: str) -> dict[str, str]:
    return {
        "lock": f"lock:{account}:{address}",
        "failures": f"fail:{account}:{address}",
        "account": f"acct:{account}",
        "address": f"addr:{address}",
    }


def _cache():
    return caches[LOGIN_CACHE]


def account_delay_seconds(failures: int) -> int:
    """The wait an account's recent wrong passwords impose on every address (0: none)."""
    beyond = failures - settings.LOGIN_LOCKOUT_FAILURES
    if beyond < 0:
        return 0
    return min(DELAY_FIRST_SECONDS * 2**beyond, DELAY_MAX_SECONDS)


def _refusal(keys: dict[str, str], now: float) -> Refusal | None:
    window = settings.LOGIN_WINDOW_SECONDS
    found = _cache().get_many([keys["lock"], keys["account"], keys["address"]])
    locked_until = found.get(keys["lock"])
    if locked_until is not None and locked_until > now:
        seconds, minutes = math.ceil(locked_until - now), math.ceil(settings.LOGIN_LOCKOUT_SECONDS / 60)
        return Refusal(seconds, LOCKED.format(minutes=minutes, seconds=seconds))
    address = found.get(keys["address"])
    if address and address["failures"] >= settings.LOGIN_ADDRESS_FAILURES and now - address["start"] < window:
        seconds = math.ceil(address["start"] + window - now)
        return Refusal(seconds, ADDRESS_LIMITED.format(seconds=seconds))
    account = found.get(keys["account"])
    if account and now - account["last"] < window:
        ready_at = account["last"] + account_delay_seconds(account["failures"])
        if ready_at > now:
            seconds = math.ceil(ready_at - now)
            return Refusal(seconds, DELAYED.format(seconds=seconds))
    return None


def _failure_count(keys: dict[str, str], address_hash: str, now: float) -> None:
    cache, window = _cache(), settings.LOGIN_WINDOW_SECONDS
    lockout = settings.LOGIN_LOCKOUT_SECONDS
    found = cache.get_many([keys["failures"], keys["account"], keys["address"]])
    recent = [at for at in found.get(keys["failures"], []) if now - at < window] + [now]
    account = found.get(keys["account"]) or {"failures": 0, "last": now, "locked": []}
    if now - account["last"] >= window:
        account["failures"] = 0
    account["failures"] += 1
    account["last"] = now
    address = found.get(keys["address"])
    if not address or now - address["start"] >= window:
        address = {"failures": 0, "start": now}
    address["failures"] += 1
    if len(recent) >= settings.LOGIN_LOCKOUT_FAILURES:
        cache.set(keys["lock"], now + lockout, timeout=lockout)
        cache.delete(keys["failures"])
        account["locked"] = sorted({*account["locked"], address_hash})
    else:
        cache.set(keys["failures"], recent, timeout=window)
    # The account's record lives as long as a lock it lists, so `unlock` can find every one.
    cache.set(keys["account"], account, timeout=max(lockout, window))
    cache.set(keys["address"], address, timeout=window)


def login_attempt(*, email: str, address: str, check: Callable[[], T | None]) -> T | None | Refusal:
    """Runs one login attempt under the policy.

    `check()` looks at the password: the account when it is right (and may log in here), None when
    not. Answers a Refusal (check not called), None (a wrong password, counted) or check's account.
    """
    account_hash, address_hash = _hash(email_normalize(email)), _hash(address)
    keys = _keys(account_hash, address_hash)
    # The cache table is in the default database, where the lock is taken.
    with transaction.atomic(using=DEFAULT_DB_ALIAS):
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute(LOGIN_ACCOUNT_LOCK_SQL, [ADVISORY_LOCK_SPACE, int(account_hash[:8], 16) - 2**31])
        now = time.time()
        refusal = _refusal(keys, now)
        if refusal is not None:
            return refusal
        user = check()
        if user is None:
            _failure_count(keys, address_hash, time.time())
        else:
            _success_count(keys)
        return user


def _success_count(keys: dict[str, str]) -> None:
    """The right password clears its address's count and the account's delay (its owner is
    here); lockouts of other addresses stay."""
    cache = _cache()
    cache.delete(keys["failures"])
    account = cache.get(keys["account"])
    if account and account["failures"]:
        account["failures"] = 0
        cache.set(keys["account"], account, timeout=max(settings.LOGIN_LOCKOUT_SECONDS, settings.LOGIN_WINDOW_SECONDS))


def login_unlock(*, email: str) -> int:
    """Lifts every lockout and the delay of the account of `email`; the number of locks lifted."""
    account_hash = _hash(email_normalize(email))
    cache = _cache()
    account = cache.get(f"acct:{account_hash}") or {"locked": []}
    lifted = [address for address in account["locked"] if cache.get(f"lock:{account_hash}:{address}") is not None]
    cache.delete_many(
        [f"acct:{account_hash}"]
        + [f"{kind}:{account_hash}:{address}" for address in account["locked"] for kind in ("lock", "fail")]
    )
    return len(lifted)
