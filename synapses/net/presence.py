"""Writes to a knot's presence outside the daily decay."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from synapses.config import synapse_settings
from synapses.models import KnotPresence
from synapses.net.geometry import half_reactivation_presence


def knot_half_reactivate(
    *, presence: KnotPresence, min_weight: float | None = None, now: datetime | None = None
) -> None:
    """Bring an inactive knot back at half presence: `(weight_anchor + MIN_WEIGHT) / 2`.

    The halved value becomes `presence_base` as well as `weight_present`, with `reinforced_at`
    reset, so the next decay continues from it (decaying from the anchor would undo it). The
    knot's raw and anchor weights and its activation count stay as they are.
    """
    min_weight = synapse_settings.MIN_WEIGHT if min_weight is None else min_weight
    now = now or timezone.now()
    value = half_reactivation_presence(presence.knot.weight_anchor, min_weight)
    presence.presence_base = presence.weight_present = value
    presence.reinforced_at = presence.decayed_at = now
    presence.is_active = True
    presence.save(update_fields=["presence_base", "weight_present", "reinforced_at", "decayed_at", "is_active"])


def knots_deactivate(*, knot_ids: list[int]) -> int:
    """Take knots out of recall, resonance and the picture by hand (the admin's action), as decay
    does when a presence falls below MIN_WEIGHT: the weights stay, so a later use or a duplicate
    brings the knot back at half presence. Returns how many were active."""
    return KnotPresence.objects.filter(knot_id__in=knot_ids, is_active=True).update(is_active=False)
