"""What the net tells the apps above it: a signal sent when knots are created or reinforced.

The net sends `knots_changed` inside the transaction that wrote the knots, like the memories'
lifecycle signal (memories.lifecycle); listeners above the net (the webhooks) record what they
must do and act once it commits. Only the signal lives here: the net's services send it.
"""

from __future__ import annotations

from enum import StrEnum

from django.dispatch import Signal


class KnotEvent(StrEnum):
    CREATED = "created"  # promotion made a new knot of a memory
    REINFORCED = "reinforced"  # an answer used the knot (POST /synapses/used)


# Sent with event (a KnotEvent), mind_id and knot_ids (a tuple of knot ids), sender=KnotEvent.
# Promotion sends one `created` per batch and mind, naming every knot the batch created there.
knots_changed = Signal()
