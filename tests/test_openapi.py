"""The OpenAPI schema is valid and documents both credentials; the docs page works offline."""

from __future__ import annotations

import re
import uuid
from html.parser import HTMLParser

import pytest
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from openapi_spec_validator import validate

from minds.api.urls import urlpatterns as account_urlpatterns

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    from django.db import transaction
    from rest_framework.test import APIClient

    # Fetched once for the module, outside any test's transaction: whatever the request writes
    # (its pipeline-log rows) is rolled back here, or it would stay for every later test.
    with django_db_blocker.unblock(), transaction.atomic():
        response = APIClient().get("/api/schema/?format=json")
        transaction.set_rollback(True)
    assert response.status_code == 200
    return response.json()


def test_the_schema_is_valid_openapi_3(schema):
    validate(schema)  # raises on any violation

    assert schema["openapi"].startswith("3.")


def test_the_schema_documents_mind_keys_and_jwts_as_bearer_schemes(schema):
    schemes = schema["components"]["securitySchemes"]

    assert {name: (s["type"], s["scheme"], s["bearerFormat"]) for name, s in schemes.items() if "scheme" in s} == {
        "mindKey": ("http", "bearer", "MindKey"),
        "humanJwt": ("http", "bearer", "JWT"),
    }
    assert "mk_" in schemes["mindKey"]["description"]


def test_human_endpoints_do_not_advertise_mind_keys(schema):
    assert schema["paths"]["/minds"]["get"]["security"] == [{"humanJwt": []}, {"cookieAuth": []}]


def test_login_and_register_need_no_credentials(schema):
    assert "security" not in schema  # nothing is required globally …
    assert "security" not in schema["paths"]["/login"]["post"]  # … nor here
    assert "security" not in schema["paths"]["/register"]["post"]
    assert "security" not in schema["paths"]["/token/refresh"]["post"]
    assert "security" not in schema["paths"]["/logout"]["post"]


def test_refresh_documents_the_rotated_pair_and_logout_its_refresh_body(schema):
    refreshed = schema["paths"]["/token/refresh"]["post"]["responses"]["200"]["content"]["application/json"]
    logout = schema["paths"]["/logout"]["post"]["requestBody"]["content"]["application/json"]["schema"]

    assert refreshed["schema"] == {"$ref": "#/components/schemas/TokenPair"}
    assert schema["components"]["schemas"]["TokenPair"]["required"] == ["access", "refresh"]
    assert logout == {"$ref": "#/components/schemas/LogoutInputRequest"}
    assert schema["components"]["schemas"]["LogoutInputRequest"]["required"] == ["refresh"]


def test_each_path_is_listed_once_without_its_trailing_slash_twin(schema):
    assert "/minds" in schema["paths"]
    assert "/minds/{mind_id}/keys" in schema["paths"]
    assert [path for path in schema["paths"] if path.endswith("/")] == []


def test_lists_document_the_paging_body_and_parameters(schema):
    operation = schema["paths"]["/minds"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]

    assert body["required"] == ["count", "limit", "offset", "results"]
    limit = next(p for p in operation["parameters"] if p["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}


def test_errors_are_documented_in_the_error_shape(schema):
    response = schema["paths"]["/minds/{mind_id}"]["get"]["responses"]["404"]

    assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert set(schema["components"]["schemas"]["ErrorDetail"]["properties"]) == {"code", "message", "fields"}


def test_the_account_views_generate_without_warnings_or_errors(capsys):
    GENERATOR_STATS.reset()

    SchemaGenerator(patterns=account_urlpatterns).get_schema(request=None, public=True)

    assert capsys.readouterr().err == ""
    assert not GENERATOR_STATS


# --- Every response an endpoint gives, and every header rule ---------------------------------

_HTTP_METHODS = ("get", "post", "put", "patch", "delete")
ERROR_REF = "#/components/schemas/Error"


def _operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in _HTTP_METHODS:
                yield path, method, operation


def _statuses(schema: dict, path: str, method: str) -> set[int]:
    return {int(code) for code in schema["paths"][path][method]["responses"]}


@pytest.mark.parametrize(
    ("path", "method", "expected"),
    [
        # An agent's write: every error a memory write can meet.
        ("/memory", "post", {200, 201, 400, 401, 403, 404, 409, 413, 415, 429, 503}),
        ("/memory/{memory_id}", "patch", {200, 400, 401, 403, 404, 409, 413, 415, 429, 503}),
        # A read by agent or human: no 403 (reading needs the lowest level), no body → no 415.
        ("/memory", "get", {200, 400, 401, 404, 413, 429, 503}),
        ("/memory/recall", "get", {200, 400, 401, 404, 413, 429, 503}),
        # Human only: a Mind Key gets 403; humans are not throttled per key; no path id → no 404.
        ("/minds", "get", {200, 400, 401, 403, 413, 503}),
        ("/memory/{memory_id}/verify", "post", {200, 400, 401, 403, 404, 413, 503}),
        # Anonymous, throttled on its own, with a body.
        ("/login", "post", {200, 400, 401, 413, 415, 429, 503}),
        ("/logout", "post", {204, 400, 401, 413, 415, 503}),
        ("/health", "get", {200, 400, 413, 503}),
    ],
)
def test_a_sample_of_operations_documents_exactly_the_statuses_they_can_answer(schema, path, method, expected):
    assert _statuses(schema, path, method) == expected


def test_delete_of_a_memory_is_documented_as_the_200_it_answers(schema):
    responses = schema["paths"]["/memory/{memory_id}"]["delete"]["responses"]

    assert "204" not in responses
    ref = responses["200"]["content"]["application/json"]["schema"]["$ref"]
    assert set(schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]) == {"deleted", "id"}


def test_every_error_response_is_the_error_body_and_every_response_echoes_the_turn_id(schema):
    for path, method, operation in _operations(schema):
        for code, response in operation["responses"].items():
            assert "X-Turn-Id" in response["headers"], (method, path, code)
            if int(code) >= 400 and not (path == "/health" and code == "503"):  # /health's 503 is its report
                error_body = {"application/json": {"schema": {"$ref": ERROR_REF}}}
                assert response["content"] == error_body, (method, path, code)


def test_throttled_and_unavailable_answers_document_retry_after(schema):
    documented = 0
    for _path, _method, operation in _operations(schema):
        for code in ("429", "503"):
            if code in operation["responses"]:
                header = operation["responses"][code]["headers"]["Retry-After"]
                assert header["required"] is True
                assert header["schema"] == {"type": "integer", "minimum": 0}
                documented += 1
    assert documented > 46  # a 503 on every operation, a 429 on many


def _parameter(schema: dict, path: str, method: str, name: str, location: str) -> dict | None:
    parameters = schema["paths"][path][method].get("parameters", [])
    return next((p for p in parameters if p["name"] == name and p["in"] == location), None)


def test_every_operation_documents_the_x_turn_id_rule(schema):
    for path, method, _operation in _operations(schema):
        parameter = _parameter(schema, path, method, "X-Turn-Id", "header")
        assert parameter is not None, (method, path)
        assert parameter["schema"]["maxLength"] == 100
    rule = re.compile(_parameter(schema, "/memory", "get", "X-Turn-Id", "header")["schema"]["pattern"])
    assert rule.search("session-42/turn-7")
    assert not rule.search("turn\n7")
    assert not rule.search("turn\x007")


def test_the_idempotency_key_rule_is_the_one_the_server_applies(schema):
    for path in ("/memory", "/memory/sync"):
        parameter = _parameter(schema, path, "post", "Idempotency-Key", "header")
        assert (parameter["schema"]["minLength"], parameter["schema"]["maxLength"]) == (1, 255)
    rule = re.compile(parameter["schema"]["pattern"])
    assert rule.search(str(uuid.uuid4()))
    assert rule.search(" key with inner blanks ")
    assert not rule.search("   ")  # blank after trimming → 400
    assert not rule.search("key\twith a tab")  # a control character → 400
    replayed = schema["paths"]["/memory"]["post"]["responses"]["201"]["headers"]["Idempotent-Replayed"]
    assert replayed["schema"] == {"type": "string", "enum": ["true"]}


def test_memory_operations_take_the_mind_by_header_or_query_and_human_ones_do_not(schema):
    for path, method in (("/memory", "get"), ("/memory/{memory_id}", "delete"), ("/log", "get")):
        assert _parameter(schema, path, method, "X-Mind", "header") is not None, (method, path)
        assert _parameter(schema, path, method, "mind", "query") is not None, (method, path)
    for path, method in (("/minds", "get"), ("/minds/{mind_id}/keys", "post"), ("/login", "post")):
        assert _parameter(schema, path, method, "X-Mind", "header") is None, (method, path)
        assert _parameter(schema, path, method, "mind", "query") is None, (method, path)


def test_a_view_s_own_wording_of_a_common_parameter_wins(schema):
    # GET /log words `mind` itself ("a Mind Key reads its own"); the common one must not replace it.
    assert "reads its own" in _parameter(schema, "/log", "get", "mind", "query")["description"]


def test_the_error_responses_of_the_whole_schema_generate_without_warnings(capsys):
    GENERATOR_STATS.reset()

    SchemaGenerator().get_schema(request=None, public=True)

    assert capsys.readouterr().err == ""
    assert not GENERATOR_STATS


# --- Offline docs ---------------------------------------------------------------------------


class _Resources(HTMLParser):
    """Every URL the page makes the browser load: scripts, stylesheets/icons, images."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src"}.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.urls.append(value)


def test_the_docs_page_loads_nothing_from_outside_the_server(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    parser = _Resources()
    parser.feed(page)

    assert len(parser.urls) >= 3  # the stylesheet and the two Swagger UI scripts at least
    assert [url for url in parser.urls if not url.startswith("/") or url.startswith("//")] == []
    for url in parser.urls:
        assert client.get(url).status_code == 200, url
    # Swagger UI would otherwise fetch a badge from validator.swagger.io (its settings are in
    # the initialisation script, served from ?script so the page has no inline script).
    script = client.get("/api/docs/?script=").content.decode()
    assert '"validatorUrl": null' in script
