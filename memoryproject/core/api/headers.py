"""Request headers a client chooses freely (`X-Turn-Id`, `Idempotency-Key`): one rule for what
is usable — at most a number of characters, no control characters — shared by the log's
middleware and the memory views."""

from __future__ import annotations

import re

# ASCII control characters (C0 and DEL): never in a header value that is stored or echoed.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
# The same rule as a JSON-schema pattern, for the OpenAPI contract (leading and trailing blanks
# are trimmed before the check).
NO_CONTROL_CHARACTERS_PATTERN = r"^[^\x00-\x1f\x7f]*$"


def header_value_problem(name: str, value: str, *, max_chars: int) -> str | None:
    """What is wrong with the (trimmed) value of header `name`, or None when it is usable."""
    if not value:
        return f"{name} is blank; send 1–{max_chars} characters, or leave it out."
    if len(value) > max_chars:
        return f"{name} is {len(value)} characters long; send 1–{max_chars} characters, or leave it out."
    if _CONTROL_CHARACTERS.search(value):
        return f"{name} must not contain control characters."
    return None
