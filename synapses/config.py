"""The tunable synapse constants as the running server sees them.

`setting("DECAY_RATE")` is `settings.SYNAPSE_DECAY_RATE` when set, else the default of
`synapses.constants`; read per call, so tests can override it. A similarity threshold
(constants.EMBEDDER_THRESHOLDS) defaults to the value calibrated for the configured embedder
(settings.SYNAPSE_EMBEDDER), and to the original's value for an embedder without one.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from synapses import constants
from synapses.net.geometry import EdgeParameters

# Thresholds some embedder has a calibrated value of: tunable like the OVERRIDABLE constants.
_CALIBRATED_NAMES = frozenset(name for table in constants.EMBEDDER_THRESHOLDS.values() for name in table)


def setting(name: str) -> Any:
    """The current value of one overridable constant (constants.OVERRIDABLE, or a calibrated threshold)."""
    calibrated = constants.EMBEDDER_THRESHOLDS.get(settings.SYNAPSE_EMBEDDER, {})
    if name not in constants.OVERRIDABLE and name not in _CALIBRATED_NAMES:
        raise KeyError(f"{name} is not an overridable synapse constant")
    override = getattr(settings, f"SYNAPSE_{name}", None)
    if override is not None:
        return override
    if name in calibrated:
        return calibrated[name]
    return getattr(constants, name)


def threshold_current(name: str) -> float | None:
    """A threshold's current value, or None when this build has no such constant (yet)."""
    try:
        return setting(name)
    except (KeyError, AttributeError):
        return getattr(constants, name, None)


def edge_parameters() -> EdgeParameters:
    """The constants of edge formation as the server uses them (the embedding threshold may be tuned)."""
    return EdgeParameters(embedding_threshold=setting("EMBEDDING_THRESHOLD"))
