"""The tools in-process: each validates with the API's rules and answers the API's body; every
failure is a tool error carrying the API's message; every call is one pipeline-log span."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import async_to_sync
from jsonschema import Draft202012Validator
from mcp import Client

from mcpserver.calls import NOT_A_MIND_KEY, SERVER_ERROR, TURN_ID_META_KEY, tool_call
from mcpserver.server import build_server
from mcpserver.tools import TOOLS
from memories.models import Memory
from minds.models import MindKey
from pipelinelog.models import LogEntry

TOOL_NAMES = {"recall", "store", "search", "resonance", "used", "forget", "list_unverified"}


def call(mind, name: str, **arguments):
    return tool_call(mind_key=mind.key, name=name, arguments=arguments)


def test_store_creates_a_memory_of_the_key_s_mind_as_the_agent_and_answers_the_api_s_body(mind):
    result = call(mind, "store", category="preference", key="drink", content="Likes green tea", tags=["Tea"])

    assert not result.is_error, result.text
    memory = Memory.objects.get(pk=result.body["id"])
    assert (memory.mind_id, memory.source, memory.content, memory.tags) == (
        mind.mind.pk,
        "agent",
        "Likes green tea",
        ["tea"],
    )
    assert result.body["created"] is True and result.body["verified"] is False
    assert json.loads(result.text) == result.body


def test_storing_the_same_category_and_key_again_updates_instead_of_duplicating(mind):
    first = call(mind, "store", category="fact", key="city", content="Lives in Berlin")
    second = call(mind, "store", category="fact", key="city", content="Lives in Hamburg")

    assert (first.body["created"], second.body["created"]) == (True, False)
    assert Memory.objects.filter(mind=mind.mind).count() == 1


def test_a_bad_argument_is_a_tool_error_with_the_api_s_message_naming_the_field(mind):
    result = call(mind, "store", category="hobby", content="Plays chess")

    assert result.is_error
    error = result.body["error"]
    assert error["code"] == "validation_error"
    assert list(error["fields"]) == ["category"]
    assert error["message"].startswith("Invalid input: category:")
    assert "identity" in error["message"] and "note" in error["message"]  # the allowed values are named
    assert Memory.objects.count() == 0


def test_an_unknown_argument_is_named_with_the_ones_the_tool_takes(mind):
    result = call(mind, "search", q="tea", limt=5)

    assert result.is_error
    assert list(result.body["error"]["fields"]) == ["limt"]
    assert "q" in result.body["error"]["fields"]["limt"][0]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"q": "tea", "limit": 0}, "limit"),
        ({"q": "tea", "limit": 2.5}, "limit"),
        ({"q": "tea", "limit": "five"}, "limit"),
        ({"q": ""}, "q"),
        ({"q": 42}, "q"),
        ({}, "q"),
    ],
)
def test_search_refuses_what_the_query_string_would_refuse(mind, arguments, field):
    result = tool_call(mind_key=mind.key, name="search", arguments=arguments)

    assert result.is_error
    assert field in result.body["error"]["fields"]


def test_search_takes_a_json_integer_limit_and_finds_the_stored_memory(mind):
    call(mind, "store", category="preference", content="Likes green tea in the morning")
    call(mind, "store", category="fact", content="Owns a red bicycle")

    result = call(mind, "search", q="green tea", limit=1)

    assert not result.is_error, result.text
    assert (result.body["limit"], result.body["count"]) == (1, 1)
    assert result.body["results"][0]["content"] == "Likes green tea in the morning"


def test_recall_answers_the_prompt_text_of_the_mind(mind):
    call(mind, "store", category="identity", key="user_name", content="Michael", priority="critical")

    result = call(mind, "recall")

    assert not result.is_error, result.text
    assert result.body is None
    assert result.text.startswith("Mind: Michael's Mind\nMemories: 1 total (0 verified, 1 unverified)")
    assert "[001] identity (CRITICAL) [unverified]\n  user_name\n  Michael" in result.text


def test_recall_takes_no_format_the_tool_always_answers_text(mind):
    result = call(mind, "recall", format="json")

    assert result.is_error
    assert list(result.body["error"]["fields"]) == ["format"]


def test_forget_deletes_the_memory_and_a_second_forget_is_not_found(mind):
    stored = call(mind, "store", category="fact", content="Wrong fact")

    first = call(mind, "forget", memory_id=stored.body["id"])
    second = call(mind, "forget", memory_id=stored.body["id"])

    assert first.body == {"deleted": True, "id": stored.body["id"]}
    assert not Memory.objects.filter(pk=stored.body["id"]).exists()
    assert (second.is_error, second.body["error"]["code"]) == (True, "not_found")


@pytest.mark.parametrize("memory_id", ["mem_" + "x" * 5000, "m_notamemory", "mem_no such id"])
def test_forget_of_an_id_that_cannot_be_a_memory_is_not_found_not_a_crash(mind, memory_id):
    result = call(mind, "forget", memory_id=memory_id)

    assert (result.is_error, result.body["error"]["code"]) == (True, "not_found")


def test_forget_of_an_id_with_a_nul_names_the_field(mind):
    result = call(mind, "forget", memory_id="mem_\x00")

    assert result.is_error and list(result.body["error"]["fields"]) == ["memory_id"]


def test_forget_cannot_reach_another_mind_s_memory(mind, other_mind):
    theirs = call(other_mind, "store", category="fact", content="Their secret")

    result = call(mind, "forget", memory_id=theirs.body["id"])

    assert (result.is_error, result.body["error"]["code"]) == (True, "not_found")
    assert Memory.objects.filter(pk=theirs.body["id"]).exists()


def test_list_unverified_pages_the_agent_s_memories(mind):
    for n in range(3):
        call(mind, "store", category="note", content=f"Note {n}")

    result = call(mind, "list_unverified", limit=2, offset=1)

    assert not result.is_error, result.text
    assert (result.body["count"], result.body["limit"], result.body["offset"]) == (3, 2, 1)
    assert [item["content"] for item in result.body["results"]] == ["Note 1", "Note 0"]


def test_list_unverified_names_a_bad_offset(mind):
    result = call(mind, "list_unverified", offset=-1)

    assert result.is_error and list(result.body["error"]["fields"]) == ["offset"]


def test_used_names_a_missing_field(mind):
    result = call(mind, "used", answer="Anna likes chocolate")

    assert result.is_error and list(result.body["error"]["fields"]) == ["knot_ids"]


def test_an_unknown_tool_is_a_tool_error_listing_the_tools(mind):
    result = call(mind, "remember_everything")

    assert (result.is_error, result.body["error"]["code"]) == (True, "not_found")
    assert all(name in result.body["error"]["message"] for name in TOOL_NAMES)


@pytest.mark.parametrize("mind_key", ["", "not a key", "mk_ünïcode", "eyJhbGciOiJIUzI1NiJ9.e30.x"])
def test_a_value_that_is_no_mind_key_is_refused_on_the_call(db, mind_key):
    result = tool_call(mind_key=mind_key, name="recall", arguments={})

    assert result.is_error
    assert result.body["error"] == {"code": "authentication_failed", "message": NOT_A_MIND_KEY, "fields": {}}


def test_a_wrong_key_and_a_revoked_key_are_refused_with_the_api_s_messages(mind):
    wrong = tool_call(mind_key=mind.key[:-4] + "AAAA", name="recall", arguments={})
    MindKey.objects.filter(mind=mind.mind).update(revoked_at="2026-01-01T00:00:00Z")
    revoked = tool_call(mind_key=mind.key, name="recall", arguments={})

    assert wrong.body["error"]["message"] == "The Mind Key is not valid."
    assert revoked.body["error"]["message"] == "The Mind Key was revoked; ask the mind's owner for a new one."


def test_every_call_is_one_span_of_its_own_turn_with_the_agent_and_the_mind(mind):
    good = call(mind, "store", category="fact", content="Has a cat")
    bad = call(mind, "store", category="fact")

    rows = LogEntry.objects.filter(node="mcp.store").order_by("id")
    assert {row.kind for row in rows} >= {"span_start", "input", "output", "span_end"}
    spans = {row.span_id for row in rows if row.kind == "span_start"}
    assert len(spans) == 2 and len({row.turn_id for row in rows}) == 2
    assert {row.source for row in rows} == {f"agent:{mind.key[:11]}"}
    assert {row.mind_id for row in rows} == {mind.mind.pk}
    ends = [row.content["status"] for row in rows if row.kind == "span_end"]
    assert ends == ["ok", "client_error"]
    outputs = [row.content for row in rows if row.kind == "output" and "is_error" in row.content]
    assert outputs == [{"is_error": False}, {"is_error": True, "error": "validation_error"}]
    assert good.body["turn_id"] == rows.first().turn_id  # the memory carries the call's turn
    assert not bad.body.get("id")


def test_the_sdk_client_lists_every_tool_with_its_schema_and_a_description(mind):
    async def listed():
        async with Client(build_server(mind.key)) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in async_to_sync(listed)()}

    assert set(tools) == TOOL_NAMES
    assert tools["store"].input_schema["required"] == ["category", "content"]
    assert tools["search"].input_schema["properties"]["limit"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 1000,
        "default": 20,
    }
    assert tools["forget"].annotations.destructive_hint is True
    assert tools["recall"].annotations.read_only_hint is True
    assert all(len(tool.description) > 80 for tool in tools.values())


def test_every_tool_schema_is_valid_json_schema_and_accepts_an_example_call(mind):
    examples = {
        "recall": {"q": "Anna", "limit": 5},
        "store": {"category": "fact", "content": "Has a cat", "tags": ["pets"], "expires_at": None},
        "search": {"q": "cat", "limit": 3, "category": "fact"},
        "resonance": {"q": "cat", "mood": "joy"},
        "used": {"answer": "The cat", "knot_ids": [1, 2]},
        "forget": {"memory_id": "mem_abcdefghij"},
        "list_unverified": {"limit": 10, "offset": 0},
    }
    for name, tool in TOOLS.items():
        validator = Draft202012Validator(tool.input_schema)
        Draft202012Validator.check_schema(tool.input_schema)
        assert list(validator.iter_errors(examples[name])) == [], name
        assert not validator.is_valid({**examples[name], "no_such_argument": 1}), name


def test_an_unexpected_exception_is_a_server_error_without_its_trace_and_an_error_span(mind, monkeypatch, caplog):
    def broken(**kwargs):
        raise RuntimeError("secret internals at /srv/synapse")

    monkeypatch.setattr("mcpserver.tools.recall_build", broken)

    result = call(mind, "recall")

    assert result.is_error
    assert result.body["error"] == {"code": "server_error", "message": SERVER_ERROR, "fields": {}}
    assert "secret internals" not in result.text
    assert "RuntimeError: secret internals" in caplog.text  # the traceback is the server's to read
    end = LogEntry.objects.get(node="mcp.recall", kind="span_end")
    assert end.content["status"] == "error"
    assert LogEntry.objects.get(node="mcp.recall", kind="error").content["type"] == "RuntimeError"


def test_calls_that_name_one_turn_in_meta_share_it_in_the_log_and_in_the_stored_memory(mind):
    async def two_calls():
        async with Client(build_server(mind.key)) as client:
            meta = {TURN_ID_META_KEY: "agent-turn-7"}
            stored = await client.call_tool("store", {"category": "fact", "content": "Has a cat"}, meta=meta)
            await client.call_tool("recall", {"q": "cat"}, meta=meta)
            return stored

    stored = async_to_sync(two_calls)()

    assert stored.structured_content["turn_id"] == "agent-turn-7"
    starts = LogEntry.objects.filter(node__startswith="mcp.", kind="span_start").order_by("id")
    assert list(starts.values_list("node", "turn_id")) == [
        ("mcp.store", "agent-turn-7"),
        ("mcp.recall", "agent-turn-7"),
    ]


@pytest.mark.parametrize(
    ("turn_id", "words"), [("x" * 101, "characters long"), ("a\nb", "control characters"), (7, "must be a string")]
)
def test_a_turn_id_the_api_would_refuse_is_a_tool_error_naming_the_meta_key_and_logs_nothing(mind, turn_id, words):
    result = tool_call(mind_key=mind.key, name="recall", arguments={}, turn_id=turn_id)

    assert result.is_error
    assert list(result.body["error"]["fields"]) == [f"_meta.{TURN_ID_META_KEY}"]
    assert words in result.body["error"]["message"]
    assert not LogEntry.objects.filter(node__startswith="mcp").exists()


def test_a_blank_turn_id_starts_a_new_turn_like_a_blank_header(mind):
    result = tool_call(mind_key=mind.key, name="recall", arguments={}, turn_id="  ")

    assert not result.is_error
    assert len(LogEntry.objects.get(node="mcp.recall", kind="span_start").turn_id) == 36  # a uuid4


@pytest.fixture
def mind_key_rate(settings):
    def set_rate(rate: str) -> None:
        current = settings.REST_FRAMEWORK
        settings.REST_FRAMEWORK = {
            **current,
            "DEFAULT_THROTTLE_RATES": {**current["DEFAULT_THROTTLE_RATES"], "mind_key": rate},
        }

    return set_rate


def test_calls_over_the_mind_key_rate_are_refused_with_the_api_s_throttled_error_and_write_nothing(
    mind, other_mind, mind_key_rate
):
    mind_key_rate("2/min")
    assert [call(mind, "recall").is_error for _ in range(2)] == [False, False]

    refused = call(mind, "store", category="fact", content="Lives in Berlin")

    assert refused.is_error
    assert refused.body["error"]["code"] == "throttled"
    assert re.search(r"available in \d+ seconds", refused.body["error"]["message"]), refused.body
    assert Memory.objects.count() == 0
    assert not call(other_mind, "recall").is_error  # counted per key


def test_with_the_shared_cache_tool_calls_and_requests_of_one_key_share_one_budget(
    mind, mind_key_rate, settings, client
):
    settings.MIND_KEY_THROTTLE_CACHE = "default"
    mind_key_rate("2/min")
    assert not call(mind, "recall").is_error

    assert client.get("/memory/recall", HTTP_AUTHORIZATION=f"Bearer {mind.key}").status_code == 200
    assert call(mind, "recall").body["error"]["code"] == "throttled"
