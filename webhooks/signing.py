"""The signature of a delivery (pure: no Django): `sha256=` and the hex HMAC-SHA256 of the exact
body bytes with the hook's secret. A receiver computes the same over the bytes it got and
compares in constant time (docs/webhooks.md has the example)."""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-Synapse-Signature"
SIGNATURE_PREFIX = "sha256="


def signature_of(body: bytes, secret: str) -> str:
    """The value of the signature header for `body` signed with `secret`."""
    return SIGNATURE_PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_valid(body: bytes, secret: str, header: str) -> bool:
    """Whether `header` is the signature of `body` with `secret` (constant-time comparison)."""
    return hmac.compare_digest(signature_of(body, secret), header)
