"""Mind Key format and digests.

A key looks like `mk_<8 hex>_<43 url-safe chars>`. The first 11 characters (`mk_` + 8 hex) are
the public *prefix*, stored in clear for lookup and display; the whole key is stored only as
an HMAC-SHA256 digest keyed with settings.MIND_KEY_PEPPER.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings

MIND_KEY_MARKER = "mk_"
# `mk_` + 8 hex characters: unique, public, enough to tell keys apart in a list.
MIND_KEY_PREFIX_LENGTH = len(MIND_KEY_MARKER) + 8


def mind_key_generate() -> tuple[str, str]:
    """A new (plaintext key, prefix) pair."""
    prefix = MIND_KEY_MARKER + secrets.token_hex(4)
    return f"{prefix}_{secrets.token_urlsafe(32)}", prefix


def mind_key_digest(plaintext: str) -> str:
    """The digest stored for a key; comparing digests never needs the plaintext at rest."""
    return hmac.new(settings.MIND_KEY_PEPPER.encode(), plaintext.encode(), hashlib.sha256).hexdigest()


def looks_like_mind_key(token: str) -> bool:
    return token.startswith(MIND_KEY_MARKER)


def mind_key_prefix_of(plaintext: str) -> str | None:
    """The prefix part of a well-formed key, or None when it cannot be one of ours."""
    if len(plaintext) <= MIND_KEY_PREFIX_LENGTH + 1 or plaintext[MIND_KEY_PREFIX_LENGTH] != "_":
        return None
    return plaintext[:MIND_KEY_PREFIX_LENGTH]
