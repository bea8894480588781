"""Memory keys, pure: the key the server derives for a keyless memory, and the subject (stem) a
key names. No Django: strings in, strings out (docs/api-memory.md, "The memory object")."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

# Length of the content hash in a derived key: `<category>_<12 hex>` (hex digits).
DERIVED_KEY_HEX = 12
_HEX_DIGITS = frozenset("0123456789abcdef")
# A trailing version suffix of a key: `_2`, `-v3`, `.v1.2`, `_version_4`, `:2026` (separator, an
# optional `v` or `version`, digits, optionally more dot/underscore-separated digit groups).
_KEY_VERSION_SUFFIX = re.compile(r"[_.:\-](?:v|version[_\-]?)?\d+(?:[._]\d+)*$")


def content_hash_of(content: str) -> str:
    """SHA-256 of the content's UTF-8 bytes, as 64 hex digits."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def derived_key(category: str, content: str) -> str:
    """The key of a keyless memory: the same content in the same category is the same memory."""
    return f"{category}_{content_hash_of(content)[:DERIVED_KEY_HEX]}"


def key_given_or_derived(fields: Mapping) -> str:
    """The key of a memory's validated `fields`: the one the client gave, else the derived one."""
    return fields.get("key") or derived_key(fields["category"], fields["content"])


def is_derived_key(key: str, category: str) -> bool:
    """Whether `key` has the shape `derived_key` gives a keyless memory of `category`."""
    prefix = f"{category}_"
    digest = key[len(prefix) :]
    return key.startswith(prefix) and len(digest) == DERIVED_KEY_HEX and set(digest) <= _HEX_DIGITS


def key_stem(key: str, category: str) -> str | None:
    """The subject a key names: lower-cased, one trailing version suffix removed. None for a key
    the server derived from the content (`<category>_<12 hex>`), which names no subject."""
    lowered = key.lower()
    if is_derived_key(lowered, category):
        return None
    stem = _KEY_VERSION_SUFFIX.sub("", lowered)
    return stem or lowered
