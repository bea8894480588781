"""The tunable synapse constants as the running server sees them: `synapse_settings.DECAY_RATE`.

Like DRF's `api_settings`, one object with an attribute per setting, but every attribute is
declared (a misspelt name is an AttributeError where it is written, and a type checker sees the
type) and read on every access, so `override_settings` in tests and a changed setting apply at
once. Each value comes from, in this order:

1. Django's `SYNAPSE_<NAME>` when the settings define it (an operator's tuning);
2. for a similarity threshold, the value calibrated for the configured embedder
   (`SYNAPSE_EMBEDDER` or the installation's record, constants.EMBEDDER_THRESHOLDS);
3. the model's default in `synapses.constants`.

`RESONANCE_RANKING` has no default here: settings.py always sets `SYNAPSE_RESONANCE_RANKING`
(from the environment, "relevance" when unset), so that is its one home.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from memories.embedders import embedder_backend
from synapses import constants
from synapses.net.geometry import EdgeParameters


def _value(name: str) -> Any:
    override = getattr(settings, f"SYNAPSE_{name}", None)
    if override is not None:
        return override
    calibrated = constants.EMBEDDER_THRESHOLDS.get(embedder_backend(), {})
    if name in calibrated:
        return calibrated[name]
    return getattr(constants, name)


class SynapseSettings:
    """Every tunable constant of the synapse model, read per access (see the module's docstring)."""

    # --- knot dynamics (§6, §9)
    @property
    def REINFORCEMENT_BOOST(self) -> float:
        return _value("REINFORCEMENT_BOOST")

    @property
    def DECAY_RATE(self) -> float:
        return _value("DECAY_RATE")

    @property
    def MIN_WEIGHT(self) -> float:
        return _value("MIN_WEIGHT")

    # --- edges (§3)
    @property
    def EMBEDDING_THRESHOLD(self) -> float:
        return _value("EMBEDDING_THRESHOLD")

    @property
    def EMBEDDING_CANDIDATES(self) -> int:
        return _value("EMBEDDING_CANDIDATES")

    @property
    def MAX_EDGE_PAIRS_PER_KNOT(self) -> int:
        return _value("MAX_EDGE_PAIRS_PER_KNOT")

    # --- reinforcement by use (§6)
    @property
    def USAGE_THRESHOLD(self) -> float:
        return _value("USAGE_THRESHOLD")

    @property
    def USAGE_MAX_PER_TURN(self) -> int:
        return _value("USAGE_MAX_PER_TURN")

    # --- promotion (§4)
    @property
    def PROMOTION_SALIENCE(self) -> float:
        return _value("PROMOTION_SALIENCE")

    @property
    def PROMOTION_AGE(self) -> float:
        return _value("PROMOTION_AGE")

    @property
    def PROMOTION_MAX_ATTEMPTS(self) -> int:
        return _value("PROMOTION_MAX_ATTEMPTS")

    @property
    def MATCH_THRESHOLD(self) -> float:
        return _value("MATCH_THRESHOLD")

    @property
    def PROMOTION_BATCH_SIZE(self) -> int:
        return _value("PROMOTION_BATCH_SIZE")

    # --- resonance (§5, §8)
    @property
    def ANCHOR_FLOOR(self) -> float:
        return _value("ANCHOR_FLOOR")

    @property
    def GRAVITY_THRESHOLD(self) -> float:
        return _value("GRAVITY_THRESHOLD")

    @property
    def RESONANCE_RANKING(self) -> str:
        return settings.SYNAPSE_RESONANCE_RANKING

    # --- derived
    @property
    def edge_parameters(self) -> EdgeParameters:
        """The constants of edge formation as the server uses them (the embedding threshold may be tuned)."""
        return EdgeParameters(embedding_threshold=self.EMBEDDING_THRESHOLD)


synapse_settings = SynapseSettings()

# The names an operator may set as SYNAPSE_<NAME> (docs/synapse-model.md §11): every declared setting.
TUNABLE = tuple(
    name for name, member in vars(SynapseSettings).items() if isinstance(member, property) and name.isupper()
)
