"""The database away during a call: the tool answers the API's 503 body as a tool error, nothing
crashes, and the next call once the database is back is served on a fresh connection."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from mcpserver.calls import tool_call
from memories.models import Memory
from memoryproject.embedded.outage import outage


@pytest.fixture
def no_outage():
    """Each test starts outside an outage and leaves none behind (the state is per process)."""
    outage.since, outage.suppressed = None, 0
    yield outage
    outage.since, outage.suppressed = None, 0


@pytest.mark.django_db(transaction=True)
def test_a_call_while_the_database_is_away_is_a_tool_error_and_the_next_call_after_it_is_served(mind, no_outage):
    results = []

    def serve_two_calls() -> None:
        # This thread's connection: first at a socket that does not exist (a real outage), then back.
        reachable = connection.settings_dict
        connection.settings_dict = {**reachable, "HOST": "/nonexistent-socket-dir"}
        try:
            results.append(tool_call(mind_key=mind.key, name="store", arguments={"category": "fact", "content": "A"}))
            connection.settings_dict = reachable
            results.append(tool_call(mind_key=mind.key, name="store", arguments={"category": "fact", "content": "B"}))
        finally:
            connection.close()

    server_thread = threading.Thread(target=serve_two_calls)
    server_thread.start()
    server_thread.join(60)

    away, back = results
    assert away.is_error
    assert away.body["error"]["code"] == "database_unavailable"
    assert "retry in" in away.body["error"]["message"]
    assert not back.is_error, back.text
    assert list(Memory.objects.filter(mind=mind.mind).values_list("content", flat=True)) == ["B"]
