"""Acceptance 1 with real processes: the SDK's own MCP client spawns `manage.py mcp` over stdio
against the test database, lists the tools and round-trips store → recall → search → resonance →
used; a bad argument comes back as a tool error naming the field. Then `--http` on a free
loopback port, and the start-up refusals (a wrong key, a non-loopback host)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from memories.models import Memory
from memoryproject.embedded.port import free_port
from pipelinelog.models import LogEntry
from synapses.models import Knot
from tests.processes import ExitedEarly, wait_for

ROOT = Path(__file__).resolve().parents[2]
# A child that starts Django and the SDK on a loaded 2-core machine (seconds).
START_DEADLINE_SECONDS = 60
# The longest one call may take before the client gives up (seconds); generous for the same reason.
CALL_TIMEOUT_SECONDS = 60
TOOL_NAMES = {"recall", "store", "search", "resonance", "used", "forget", "list_unverified"}
CONTENT = "Anna loves dark chocolate from Zurich"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def child_env(mind_key: str) -> dict[str, str]:
    """This process's environment, pointed at the test database: the same server and role,
    the test database's name (the child's settings read DATABASE_URL)."""
    url = urlsplit(settings.DATABASE_URL)._replace(path="/" + connection.settings_dict["NAME"])
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": urlunsplit(url),
        "SYNAPSE_MIND_KEY": mind_key,
    }


def structured(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def _round_trip(mind_key: str) -> dict:
    server = StdioServerParameters(command=sys.executable, args=["manage.py", "mcp"], env=child_env(mind_key), cwd=ROOT)
    seen: dict = {}
    async with Client(server, read_timeout_seconds=CALL_TIMEOUT_SECONDS) as client:
        seen["tools"] = {tool.name for tool in (await client.list_tools()).tools}
        seen["stored"] = structured(await client.call_tool("store", {"category": "fact", "content": CONTENT}))
        # The promotion the worker would run, called here: the stored memory becomes a knot.
        await sync_to_async(call_command)("promote", "--now")
        seen["activations"] = await sync_to_async(
            lambda: list(Knot.objects.values_list("activation_count", flat=True))
        )()
        seen["recall"] = (await client.call_tool("recall", {"q": "Anna chocolate"})).content[0].text
        seen["search"] = structured(await client.call_tool("search", {"q": "chocolate", "limit": 5}))
        seen["resonance"] = structured(await client.call_tool("resonance", {"q": "Anna chocolate"}))
        knot_ids = [item["knot_id"] for item in seen["resonance"]["items"]]
        seen["used"] = structured(await client.call_tool("used", {"answer": CONTENT, "knot_ids": knot_ids}))
        seen["bad"] = await client.call_tool("store", {"category": "hobby", "content": "Plays chess"})
    return seen


def test_the_sdk_client_over_stdio_lists_the_tools_and_round_trips_store_recall_search_resonance_used(mind):
    seen = async_to_sync(_round_trip)(mind.key)

    assert seen["tools"] == TOOL_NAMES
    memory = Memory.objects.get(pk=seen["stored"]["id"])
    assert (memory.mind_id, memory.source, seen["stored"]["created"]) == (mind.mind.pk, "agent", True)
    knot = Knot.objects.get(mind=mind.mind)
    assert knot.content == CONTENT

    assert "Memories: 1 total (0 verified, 1 unverified)" in seen["recall"]
    assert 'Resonance for: "Anna chocolate"' in seen["recall"]
    assert [hit["id"] for hit in seen["search"]["results"]] == [memory.pk]
    assert [item["knot_id"] for item in seen["resonance"]["items"]] == [knot.pk]
    assert [hit["knot_id"] for hit in seen["used"]["hits"]] == [knot.pk]
    knot.refresh_from_db()
    assert [knot.activation_count] == [seen["activations"][0] + 1]  # reinforced once by `used`

    bad = seen["bad"]
    assert bad.is_error
    assert bad.structured_content["error"]["code"] == "validation_error"
    assert list(bad.structured_content["error"]["fields"]) == ["category"]
    assert "category" in bad.content[0].text and "Traceback" not in bad.content[0].text
    assert Memory.objects.filter(mind=mind.mind).count() == 1

    # Every call of the child is a span of the log, as the agent, on the key's mind.
    nodes = LogEntry.objects.filter(node__startswith="mcp.", kind="span_start")
    assert sorted(nodes.values_list("node", flat=True)) == sorted(
        ["mcp.store", "mcp.recall", "mcp.search", "mcp.resonance", "mcp.used", "mcp.store"]
    )
    assert set(nodes.values_list("source", "mind_id")) == {(f"agent:{mind.key[:11]}", mind.mind.pk)}


def _wait_for_port(port: int, process: subprocess.Popen) -> None:
    def listening() -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    try:
        listened = wait_for(listening, seconds=START_DEADLINE_SECONDS, every=0.1, process=process)
    except ExitedEarly:
        raise AssertionError(
            f"manage.py mcp --http exited with {process.returncode}: {process.stderr.read()}"
        ) from None
    if not listened:
        raise AssertionError(f"nothing listened on port {port} within {START_DEADLINE_SECONDS} s")


async def _store_and_list_over_http(url: str) -> tuple[dict, dict]:
    async with Client(url, read_timeout_seconds=CALL_TIMEOUT_SECONDS) as client:
        stored = structured(await client.call_tool("store", {"category": "note", "content": "Over HTTP"}))
        unverified = structured(await client.call_tool("list_unverified", {"limit": 10}))
    return stored, unverified


def test_http_serves_the_same_tools_on_a_loopback_port_and_stops_on_sigterm(mind):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mcp", "--http", "--port", str(port)],
        cwd=ROOT,
        env=child_env(mind.key),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_port(port, process)
        stored, unverified = async_to_sync(_store_and_list_over_http)(f"http://127.0.0.1:{port}/mcp")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert Memory.objects.get(pk=stored["id"]).mind_id == mind.mind.pk
    assert [item["id"] for item in unverified["results"]] == [stored["id"]]
    # uvicorn shuts down gracefully, then re-raises SIGTERM so the exit says what ended it; not SIGKILL.
    assert process.returncode == -signal.SIGTERM
    assert "StreamableHTTP session manager shutting down" in process.stderr.read()


def _start(*args: str, mind_key: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "mcp", *args],
        cwd=ROOT,
        env=child_env(mind_key),
        capture_output=True,
        text=True,
        timeout=START_DEADLINE_SECONDS,
        stdin=subprocess.DEVNULL,
    )


def test_a_wrong_key_stops_the_server_at_start_up_with_one_line_and_nothing_on_the_wire(mind):
    started = _start(mind_key=mind.key[:-4] + "AAAA")

    assert started.returncode == 1
    assert started.stdout == ""
    assert started.stderr.strip().splitlines() == ["CommandError: The Mind Key is not valid."]


def test_a_host_that_is_not_loopback_is_refused_before_anything_listens(mind):
    started = _start("--http", "--host", "0.0.0.0", mind_key=mind.key)  # noqa: S104 — the refusal is the test

    assert started.returncode == 1
    assert "is not a loopback address" in started.stderr
