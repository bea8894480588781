"""System checks of minds: the Mind Key pepper must not change under existing keys (minds.W001)."""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.db import DatabaseError

PEPPER_CHANGED = "minds.W001"


@checks.register(checks.Tags.security)
def mind_key_pepper_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Warns when MIND_KEY_PEPPER differs from the pepper var/ keeps while Mind Keys exist: every
    one of them would answer 401. Touches the database only when the two differ."""
    state = getattr(settings, "MIND_KEY_PEPPER_STATE", None)
    if state is None or not state.changed:
        return []
    from minds.models import MindKey

    try:
        keys = MindKey.objects.count()
    except DatabaseError:  # no database yet (or not migrated): nothing to break
        return []
    if not keys:
        return []
    return [
        checks.Warning(
            f"MIND_KEY_PEPPER differs from the pepper kept in var/mind_key_pepper, which the {keys} "
            "existing Mind Key(s) were made with: every one of them answers 401 while it is set.",
            hint="Unset MIND_KEY_PEPPER (or set it to the content of var/mind_key_pepper) to keep the keys; "
            "to change the pepper on purpose, issue new keys (docs/operations.md → Production settings).",
            id=PEPPER_CHANGED,
        )
    ]
