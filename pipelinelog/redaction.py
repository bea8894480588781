"""The secrets rule: no credential ever enters the log.

`redact()` runs over the content of every row before it is written (in the writer, off the
request path) and over every request summary. It replaces

- the value of any key named like a credential (`password`, `token`, `access`, `refresh`,
  `mind_key`, `secret`, `authorization`, and keys containing `password` or `secret`),
- any string that starts with the Mind Key marker `mk_`, and Mind Keys inside longer text,
- any string shaped like a JWT (three base64url parts, the first starting with `eyJ`),

and turns everything else into plain JSON values (datetimes → ISO 8601, UUIDs and decimals →
strings, unknown objects → `str()`), so a row can always be inserted.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import uuid
from typing import Any

from pipelinelog.constants import REDACTED, SUMMARY_MAX_DEPTH, SUMMARY_MAX_ITEMS, SUMMARY_MAX_STRING

# Keys whose value is a credential, compared lower-cased and exactly.
SECRET_KEYS = frozenset(
    {"password", "token", "access", "refresh", "mind_key", "secret", "authorization", "api_key", "x-api-key",
     # The UI's forms post their CSRF token; whoever reads the log must not be able to forge them.
     "csrfmiddlewaretoken"}
)  # fmt: skip
# Parts that make any key a secret one (`new_password`, `client_secret`, `password1`).
SECRET_KEY_PARTS = ("password", "secret")

MIND_KEY_MARKER = "mk_"
# A whole Mind Key inside longer text: `mk_` + 8 hex + `_` + the secret part.
_MIND_KEY_IN_TEXT = re.compile(r"mk_[0-9a-fA-F]{8}_[A-Za-z0-9_\-]+")
# A JWT: header.payload.signature, base64url, the header always starting with `{"` → `eyJ`.
_JWT = re.compile(r"eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+")


def is_secret_key(key: object) -> bool:
    name = str(key).lower()
    return name in SECRET_KEYS or any(part in name for part in SECRET_KEY_PARTS)


def redact_text(text: str) -> str:
    if text.startswith(MIND_KEY_MARKER):
        return REDACTED
    if "\x00" in text:  # PostgreSQL's jsonb takes no NUL character
        text = text.replace("\x00", "\ufffd")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates (valid in JSON input, not in UTF-8 or jsonb)
            text = text.encode("utf-8", "replace").decode("utf-8")
    if "mk_" in text:
        text = _MIND_KEY_IN_TEXT.sub(REDACTED, text)
    if "eyJ" in text:
        text = _JWT.sub(REDACTED, text)
    return text


def redact(value: Any) -> Any:
    """A JSON-safe copy of `value` with every secret replaced (see the module docstring)."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        # PostgreSQL's jsonb has no NaN or infinity.
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {redact_text(str(k)): (REDACTED if is_secret_key(k) else redact(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [redact(item) for item in value]
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID | decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return redact_text(str(value))


def summarize(value: Any, depth: int = 0) -> Any:
    """A bounded, secret-free picture of a request value: long strings cut, long lists shortened."""
    if isinstance(value, str):
        text = redact_text(value)
        if len(text) > SUMMARY_MAX_STRING:
            return f"{text[:SUMMARY_MAX_STRING]}… (+{len(text) - SUMMARY_MAX_STRING} chars)"
        return text
    if isinstance(value, dict):
        if depth >= SUMMARY_MAX_DEPTH:
            return f"{{… {len(value)} keys}}"
        return {str(k): (REDACTED if is_secret_key(k) else summarize(v, depth + 1)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if depth >= SUMMARY_MAX_DEPTH:
            return f"[… {len(value)} items]"
        items = [summarize(item, depth + 1) for item in value[:SUMMARY_MAX_ITEMS]]
        if len(value) > SUMMARY_MAX_ITEMS:
            items.append(f"… (+{len(value) - SUMMARY_MAX_ITEMS} items)")
        return items
    return value
