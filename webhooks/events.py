"""The events a webhook can subscribe to, and the patterns that name them (pure: no Django).

A hook's `events` is one pattern: `*` (every event), `<family>.*` (`memory.*`, `knot.*`) or one
event's name.
"""

from __future__ import annotations

from enum import StrEnum


class WebhookEvent(StrEnum):
    MEMORY_CREATED = "memory.created"
    MEMORY_UPDATED = "memory.updated"
    MEMORY_DELETED = "memory.deleted"
    MEMORY_VERIFIED = "memory.verified"
    MEMORY_UNVERIFIED = "memory.unverified"
    KNOT_CREATED = "knot.created"
    KNOT_REINFORCED = "knot.reinforced"


# What POST /webhooks/{id}/test sends: not an event of the mind, so no pattern but its own hook sees it.
TEST_EVENT = "webhook.test"
EVERY_EVENT = "*"
FAMILY_WILDCARD = ".*"
# Every pattern a hook may subscribe with, in the order the error message lists them.
EVENT_PATTERNS: tuple[str, ...] = (
    EVERY_EVENT,
    *sorted({event.value.split(".")[0] + FAMILY_WILDCARD for event in WebhookEvent}),
    *(event.value for event in WebhookEvent),
)


def pattern_matches(pattern: str, event: str) -> bool:
    """Whether a hook subscribed with `pattern` receives `event`."""
    if pattern == EVERY_EVENT:
        return True
    if pattern.endswith(FAMILY_WILDCARD):
        return event.startswith(pattern[: -len(FAMILY_WILDCARD)] + ".")
    return pattern == event
