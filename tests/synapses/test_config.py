"""The tunable synapse constants as one typed object, read per access (synapses.config)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import override_settings

from synapses import constants
from synapses.config import TUNABLE, synapse_settings
from synapses.net.geometry import EdgeParameters

ROOT = Path(__file__).resolve().parents[2]
# Where the code reads the settings: the apps and the benchmarks.
CODE_DIRS = ("minds", "memories", "synapses", "pipelinelog", "webhooks", "mcpserver", "memoryproject", "bench")
ATTRIBUTE = re.compile(r"\bsynapse_settings\.([A-Za-z_]+)")


def _attributes_the_code_uses() -> set[str]:
    used = set()
    for directory in CODE_DIRS:
        for path in (ROOT / directory).rglob("*.py"):
            used.update(ATTRIBUTE.findall(path.read_text(encoding="utf-8")))
    return used


def test_the_code_reads_the_settings_through_the_object():
    # The object is in use (the scan finds it), so the next test checks real reads.
    assert {"DECAY_RATE", "MIN_WEIGHT", "MAX_EDGE_PAIRS_PER_KNOT", "edge_parameters"} <= _attributes_the_code_uses()


@pytest.mark.parametrize("name", sorted(_attributes_the_code_uses()))
def test_every_attribute_the_code_uses_is_declared_and_readable(name):
    assert isinstance(getattr(type(synapse_settings), name, None), property), f"{name} is not a declared setting"
    assert getattr(synapse_settings, name) is not None


@pytest.mark.parametrize("name", TUNABLE)
def test_each_tunable_setting_follows_its_django_setting_at_once(name):
    before = getattr(synapse_settings, name)
    sentinel = "seed" if name == "RESONANCE_RANKING" else 12345  # the ranking is "relevance" in tests
    with override_settings(**{f"SYNAPSE_{name}": sentinel}):
        assert getattr(synapse_settings, name) == sentinel
    assert getattr(synapse_settings, name) == before


def test_the_defaults_are_the_models_and_the_calibrated_thresholds_the_embedders():
    with override_settings(SYNAPSE_EMBEDDER="hashing"):
        assert synapse_settings.DECAY_RATE == constants.DECAY_RATE
        assert constants.EMBEDDER_THRESHOLDS["hashing"]["MATCH_THRESHOLD"] == synapse_settings.MATCH_THRESHOLD
        assert synapse_settings.edge_parameters == EdgeParameters(
            embedding_threshold=constants.EMBEDDER_THRESHOLDS["hashing"]["EMBEDDING_THRESHOLD"]
        )


def test_a_misspelt_setting_is_an_error_where_it_is_read():
    with pytest.raises(AttributeError):
        synapse_settings.DECAY_RAT  # noqa: B018 — the read itself must fail


def test_resonance_ranking_comes_from_the_settings_alone():
    # Its one home is settings.py (SYNAPSE_RESONANCE_RANKING, "relevance" unless set): no dead
    # default in the constants.
    assert not hasattr(constants, "RESONANCE_RANKING")
    assert synapse_settings.RESONANCE_RANKING == "relevance"
