"""A mind's entity discovery as its owner sets it: on or off, and the ignore list — the names
discovery must not propose again (docs/synapse-model.md, "Magnets found in the content").

The setting lives in the mind's settings (Mind.settings[MIND_DISCOVERY_SETTING]); promotion reads
it (synapses.promotion.entities.Discovery). Writes lock the mind's row, so a delete adding names
and the owner replacing the list never lose each other's change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction

from memoryproject.core.domain import ValidationFailed
from minds.models import Mind
from synapses.constants import DISCOVERY_IGNORED_MAX, MIND_DISCOVERY_SETTING


@dataclass(frozen=True)
class DiscoverySetting:
    enabled: bool
    ignored: list[str]  # lower-cased, sorted


def _of(settings: dict | None) -> DiscoverySetting:
    own = (settings or {}).get(MIND_DISCOVERY_SETTING) or {}
    return DiscoverySetting(enabled=own.get("enabled", True) is not False, ignored=sorted(own.get("ignored", [])))


def discovery_get(mind: Mind) -> DiscoverySetting:
    return _of(mind.settings)


def _keys(names: Iterable[str]) -> set[str]:
    return {" ".join(name.split()).lower() for name in names if name.strip()}


def _write(mind_id: str, change) -> DiscoverySetting:
    with transaction.atomic():
        mind = Mind.objects.select_for_update().only("id", "settings").get(pk=mind_id)
        current = _of(mind.settings)
        enabled, ignored = change(current)
        if len(ignored) > DISCOVERY_IGNORED_MAX:
            raise ValidationFailed(
                {"ignored": [f"At most {DISCOVERY_IGNORED_MAX} names; {len(ignored)} would be ignored."]}
            )
        setting = DiscoverySetting(enabled=enabled, ignored=sorted(ignored))
        mind.settings = {**(mind.settings or {}), MIND_DISCOVERY_SETTING: {"enabled": setting.enabled,
                                                                           "ignored": setting.ignored}}  # fmt: skip
        mind.save(update_fields=["settings"])
    return setting


def discovery_update(
    *, mind_id: str, enabled: bool | None = None, ignored: list[str] | None = None
) -> DiscoverySetting:
    """Switch discovery on or off and/or replace the ignore list (names, any case)."""
    return _write(
        mind_id,
        lambda current: (
            current.enabled if enabled is None else enabled,
            set(current.ignored) if ignored is None else _keys(ignored),
        ),
    )


def names_ignore(*, mind_id: str, names: Iterable[str]) -> DiscoverySetting:
    """Add `names` to the mind's ignore list (a deleted entity's name and aliases)."""
    added = _keys(names)
    return _write(mind_id, lambda current: (current.enabled, set(current.ignored) | added))
