"""The UI's test-client fixtures: the shared cast (tests/conftest.py), logged in by session."""

from __future__ import annotations

import pytest
from django.test import Client


def logged_in(person) -> Client:
    client = Client()
    client.force_login(person.user)
    return client


@pytest.fixture
def owner_browser(owner) -> Client:
    return logged_in(owner)


def agent_stores(mind, **fields) -> dict:
    """A memory stored by the mind's agent over the API (unverified, source agent)."""
    response = mind.agent.post("/memory", {"category": "fact", **fields}, format="json")
    assert response.status_code == 201, response.content
    return response.json()
