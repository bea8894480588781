"""Public ids: prefixed, url-safe random strings (`m_…` minds, `mem_…` memories)."""

import secrets

# Random characters after the prefix; 16 url-safe characters carry 96 bits.
PUBLIC_ID_RANDOM_CHARS = 16


def new_public_id(prefix: str) -> str:
    """`<prefix>_` followed by PUBLIC_ID_RANDOM_CHARS url-safe random characters."""
    return f"{prefix}_{secrets.token_urlsafe(PUBLIC_ID_RANDOM_CHARS)[:PUBLIC_ID_RANDOM_CHARS]}"


def new_mind_id() -> str:
    return new_public_id("m")


def new_memory_id() -> str:
    return new_public_id("mem")
