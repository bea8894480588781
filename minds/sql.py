"""The statements minds runs by hand (tests/test_statements.py pins them)."""

from __future__ import annotations

# Serialises the attempts on one account (minds.login_policy) until the transaction ends: the
# policy's space of locks, then the account's hash folded into an int.
LOGIN_ACCOUNT_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s, %s)"
