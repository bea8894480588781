"""No input answers 500: JSON nested deeper than the bound, NUL and lone surrogates anywhere, huge
strings — on every JSON endpoint, in the pipeline log's re-parse, in the import readers."""

from __future__ import annotations

import io
import json
import sys

import pytest
from django.test import RequestFactory, override_settings
from django.views.debug import technical_500_response
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memories.import_readers import UnreadableFile, read_dump, read_export, read_jsonl
from memoryproject.core.jsonbounds import JSON_MAX_DEPTH, JSONTooDeep, json_depth, loads_bounded
from minds.models import MindShare

pytestmark = pytest.mark.django_db

BOUND = "64"  # the documented bound, written out: the tests must fail if the code's constant drifts


def _nested(depth: int, opener: str = "[", leaf: str = '"x"') -> str:
    """JSON text nesting `depth` containers (lists, or objects under key "k") around `leaf`."""
    if opener == "[":
        return "[" * depth + leaf + "]" * depth
    return '{"k":' * depth + leaf + "}" * depth


# --- The bound itself (pure) ------------------------------------------------------------------


def test_the_documented_bound_is_64_levels():
    assert int(BOUND) == JSON_MAX_DEPTH


@pytest.mark.parametrize("opener", ["[", "{"])
def test_64_levels_parse_and_65_are_refused_naming_the_bound(opener):
    assert json_depth(loads_bounded(_nested(64, opener))) == 64
    with pytest.raises(JSONTooDeep, match=BOUND):
        loads_bounded(_nested(65, opener))


def test_nesting_past_the_interpreters_recursion_limit_is_refused_not_a_recursion_error():
    with pytest.raises(JSONTooDeep, match=BOUND):
        loads_bounded(_nested(sys.getrecursionlimit() * 3))


def test_depth_counts_the_deepest_branch_not_the_first():
    assert json_depth({"a": 1, "b": [[{"c": []}]], "d": {}}) == 5
    assert json_depth("text") == 0


# --- Over HTTP --------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [65, 1000, 5000])
def test_a_body_nested_past_the_bound_answers_400_naming_it(mind, depth):
    body = '{"category": "fact", "content": "x", "attributes": ' + _nested(depth, "{") + "}"

    response = mind.agent.post("/memory", data=body, content_type="application/json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "parse_error"
    assert BOUND in error["message"]


def test_an_anonymous_deep_body_is_refused_without_500_by_the_logs_reparse(api):
    # No view parses it (authentication fails first): the pipeline log's middleware re-parses the
    # raw body for its summary, which used to raise RecursionError.
    response = api.post("/minds", data=_nested(5000), content_type="application/json", HTTP_X_TURN_ID="T-deep")

    assert response.status_code == 401
    from pipelinelog.models import LogEntry

    body = LogEntry.objects.get(turn_id="T-deep", kind="input").content["body"]
    assert body == {"content_type": "application/json", "bytes": len(_nested(5000)), "parsed": False}


@pytest.mark.parametrize(
    "attributes",
    [{"a\u0000b": 1}, {"a": "x\u0000"}, {"a": [{"b": ["c", "\u0000"]}]}, {"a": {"\u0000": {}}}],
    ids=["key", "value", "nested-value", "nested-key"],
)
def test_a_nul_anywhere_in_attributes_answers_400_naming_attributes(mind, attributes):
    response = mind.agent.post("/memory", {"category": "fact", "content": "x", "attributes": attributes}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"attributes": ["Null characters are not allowed."]}


def test_attributes_deeper_than_32_levels_answer_400_and_32_are_stored(mind):
    def deep(levels):
        value: dict = {}
        for _ in range(levels - 1):
            value = {"k": value}
        return value

    kept = mind.agent.post("/memory", {"category": "fact", "content": "x", "attributes": deep(32)}, format="json")
    refused = mind.agent.post("/memory", {"category": "fact", "content": "y", "attributes": deep(33)}, format="json")

    assert kept.status_code == 201
    assert refused.status_code == 400
    assert "32" in refused.json()["error"]["fields"]["attributes"][0]


# --- The import readers -----------------------------------------------------------------------


def test_an_export_file_nested_past_the_bound_is_unreadable_naming_it():
    with pytest.raises(UnreadableFile, match=BOUND):
        read_export(io.StringIO('{"format_version": 1, "memories": ' + _nested(3000) + "}"))


def test_a_jsonl_line_nested_past_the_bound_is_a_row_problem_naming_it():
    read = read_jsonl(io.StringIO('{"category": "fact", "content": "ok"}\n' + _nested(3000) + "\n"))

    assert read.rows[0].data == {"category": "fact", "content": "ok"}
    assert BOUND in read.rows[1].problem


def test_a_dump_nested_past_the_bound_is_unreadable_naming_it():
    with pytest.raises(UnreadableFile, match=BOUND):
        read_dump(io.StringIO(_nested(3000)))


# --- DEBUG's error page -----------------------------------------------------------------------


def test_the_debug_error_page_masks_the_database_password():
    # Written in parts: the page also quotes this test's source lines and lists its locals.
    secret_url = "postgresql://synapse:" + "hunter2-" + "db-secret@db.example:5432/synapse"
    request = RequestFactory().get("/boom", DATABASE_URL=secret_url)
    with override_settings(DEBUG=True, DATABASE_URL=secret_url):
        try:
            conninfo = secret_url  # noqa: F841 — a frame local the page lists
            raise RuntimeError("boom")
        except RuntimeError:
            page = technical_500_response(request, *sys.exc_info()).content.decode()

    assert "boom" in page  # the page was rendered, with its settings and request
    assert "hunter2-" + "db-secret" not in page
    assert "postgresql://synapse:********************@db.example" in page


# --- Property: every JSON endpoint, any nesting, any string → a JSON 4xx ------------------------


def _json_operations() -> list[tuple[str, str, tuple[str, ...]]]:
    """(method, path template, body fields) of every operation of the OpenAPI document that takes
    a body — read from the document, so a new endpoint is covered without editing this test."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    components = document["components"]["schemas"]
    operations = []
    for path, items in document["paths"].items():
        for method, operation in items.items():
            if method not in ("post", "put", "patch") or "requestBody" not in operation:
                continue  # an operation without a body never reads one (verify answers 200 to any)
            body = operation["requestBody"].get("content", {}).get("application/json", {}).get("schema", {})
            fields = components.get(body.get("$ref", "").rsplit("/", 1)[-1], body).get("properties", {})
            operations.append((method, path, tuple(sorted(fields))))
    return operations


JSON_OPERATIONS = _json_operations()


@pytest.fixture
def live_ids(mind, reader) -> dict[str, object]:
    """Real ids for the path parameters, so a request reaches the view that parses its body."""
    memory = mind.agent.post("/memory", {"category": "fact", "content": "Anna"}, format="json").json()
    entity = mind.agent.post("/synapses/entities", {"name": "Anna"}, format="json")
    goal = mind.agent.post("/synapses/goals", {"statement": "Learn Rust", "motivation": 0.5}, format="json")
    return {
        "memory_id": memory["id"],
        "mind_id": mind.mind.pk,
        "share_id": MindShare.objects.get(mind=mind.mind, user=reader.user).pk,
        "entity_id": entity.json().get("id", 1),
        "goal_id": goal.json().get("id", 1),
        "webhook_id": 1,  # none exists: a 404, still a JSON 4xx
    }


def _call(owner, mind, credential: str, method: str, path: str, body: str):
    client = {"owner": owner.client, "agent": mind.agent}.get(credential)
    headers = {"HTTP_X_MIND": mind.mind.pk} if credential == "owner" else {}
    if client is None:
        from rest_framework.test import APIClient

        client = APIClient()
    return getattr(client, method)(path, data=body, content_type="application/json", **headers)


def _assert_json_4xx(response) -> dict:
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    return response.json()["error"]


# Any JSON text: lone surrogates (escaped, as JSON allows), NUL, and 64 KiB strings among them.
_POISON = st.sampled_from(["\u0000", "\ud800", "\udfff", "x" * 65536])
_STRINGS = st.builds(lambda *parts: "".join(parts), st.text(max_size=20), _POISON, st.text(max_size=20))
_VALUES = st.recursive(
    _STRINGS,
    lambda children: (
        st.lists(children, min_size=1, max_size=3)
        | st.dictionaries(st.text(max_size=6) | _STRINGS, children, min_size=1, max_size=3)
    ),
    max_leaves=4,
)
_PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@_PROPERTY_SETTINGS
@given(
    operation=st.sampled_from(JSON_OPERATIONS),
    credential=st.sampled_from(["owner", "agent", "anonymous"]),
    depth=st.integers(min_value=int(BOUND) + 1, max_value=4000),
    openers=st.text(alphabet="[{", min_size=1, max_size=4),
    leaf=_STRINGS,
)
def test_every_json_endpoint_answers_a_body_nested_past_the_bound_with_a_json_4xx(
    owner, mind, live_ids, operation, credential, depth, openers, leaf
):
    method, template, fields = operation
    nested = json.dumps(leaf)
    for level in range(depth - 1):
        nested = f"[{nested}]" if openers[level % len(openers)] == "[" else f'{{"k": {nested}}}'
    body = "{" + json.dumps(fields[0] if fields else "field") + ": " + nested + "}"

    response = _call(owner, mind, credential, method, template.format(**live_ids), body)

    error = _assert_json_4xx(response)
    if response.status_code == 400:
        assert BOUND in error["message"]


@_PROPERTY_SETTINGS
@given(
    operation=st.sampled_from(JSON_OPERATIONS),
    credential=st.sampled_from(["owner", "agent"]),
    data=st.data(),
)
def test_every_json_endpoint_answers_nul_surrogates_and_huge_strings_with_a_json_4xx(
    owner, mind, live_ids, operation, credential, data
):
    method, template, fields = operation
    names = st.sampled_from(fields) if fields else st.text(max_size=8)
    body = data.draw(st.dictionaries(names, _VALUES, min_size=1, max_size=3))

    response = _call(owner, mind, credential, method, template.format(**live_ids), json.dumps(body))

    _assert_json_4xx(response)
