"""What `redact` replaces and what it keeps."""

from __future__ import annotations

import datetime
import decimal
import uuid

from pipelinelog.redaction import REDACTED, redact

KEY = "mk_0123abcd_" + "s" * 43
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyX2lkIjoxfQ.c2lnbmF0dXJl"


def test_credential_keys_are_redacted_at_any_depth_whatever_their_case():
    content = {"Password": "p", "nested": [{"refresh": "r", "new_password": "n", "client_secret": "c"}]}

    assert redact(content) == {
        "Password": REDACTED,
        "nested": [{"refresh": REDACTED, "new_password": REDACTED, "client_secret": REDACTED}],
    }


def test_mind_keys_and_jwts_are_redacted_alone_and_inside_text():
    assert redact(KEY) == REDACTED
    assert redact("mk_anything") == REDACTED
    assert redact(f"my key is {KEY}, my token {JWT}.") == f"my key is {REDACTED}, my token {REDACTED}."


def test_ordinary_content_is_kept_and_made_json_safe():
    when = datetime.datetime(2026, 6, 27, 10, 0, tzinfo=datetime.UTC)
    ident = uuid.UUID(int=1)

    assert redact({"content": "Anna is my sister", "key": "user_name", "input_tokens": 3}) == {
        "content": "Anna is my sister",
        "key": "user_name",
        "input_tokens": 3,
    }
    assert redact({"at": when, "id": ident, "cost": decimal.Decimal("0.25"), "score": float("nan")}) == {
        "at": "2026-06-27T10:00:00+00:00",
        "id": str(ident),
        "cost": "0.25",
        "score": "nan",
    }
    assert redact(("a", 1)) == ["a", 1]
