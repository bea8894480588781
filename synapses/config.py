"""The tunable synapse constants as the running server sees them.

`setting("DECAY_RATE")` is `settings.SYNAPSE_DECAY_RATE` when set, else the default of
`synapses.constants`; read per call, so tests can override it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from synapses import constants
from synapses.geometry import EdgeParameters


def setting(name: str) -> Any:
    """The current value of one overridable constant (synapses.constants.OVERRIDABLE)."""
    if name not in constants.OVERRIDABLE:
        raise KeyError(f"{name} is not an overridable synapse constant")
    return getattr(settings, f"SYNAPSE_{name}", getattr(constants, name))


def edge_parameters() -> EdgeParameters:
    """The constants of edge formation as the server uses them (the embedding threshold may be tuned)."""
    return EdgeParameters(embedding_threshold=setting("EMBEDDING_THRESHOLD"))
