"""System checks that catch configuration mistakes at start-up."""

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from memories.checks import embedder_packages_installed

# A package name nothing provides, standing in for the semantic packages on machines that have them.
MISSING_PACKAGE = "synapse_test_package_that_is_not_installed"


def test_the_default_embedder_needs_no_extra_package(settings, monkeypatch):
    monkeypatch.setattr("memories.checks.SEMANTIC_PACKAGES", (MISSING_PACKAGE,))
    settings.SYNAPSE_EMBEDDER = "hashing"
    assert embedder_packages_installed(None) == []


def test_choosing_sentence_transformers_without_its_packages_stops_the_start(settings, monkeypatch):
    monkeypatch.setattr("memories.checks.SEMANTIC_PACKAGES", (MISSING_PACKAGE,))
    settings.SYNAPSE_EMBEDDER = "sentence-transformers"
    errors = embedder_packages_installed(None)
    assert [error.id for error in errors] == ["memories.E001"]
    assert MISSING_PACKAGE in errors[0].msg
    assert "requirements-semantic.txt" in errors[0].hint
    with pytest.raises(SystemCheckError):
        call_command("check")
