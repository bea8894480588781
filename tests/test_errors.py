"""Bad requests of every kind answer the one JSON error shape with the right status, never 500."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minds.models import MindKey, MindShare

pytestmark = pytest.mark.django_db


def _assert_error_shape(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"]
    assert set(body["error"]) == {"code", "message", "fields"}
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    return body["error"]


# --- Bodies ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/register", "/login", "/token/refresh", "/minds"])
def test_malformed_json_answers_400(owner, path):
    response = owner.client.post(path, data='{"email": "a@b.c",', content_type="application/json")

    error = _assert_error_shape(response, 400, "parse_error")
    assert error["message"].startswith("JSON parse error")


@pytest.mark.parametrize(
    ("body", "got"), [("[]", "list"), ("null", "null"), ('"text"', "str"), ("42", "int"), ("true", "bool")]
)
def test_a_json_body_that_is_not_an_object_answers_400(owner, body, got):
    response = owner.client.post("/minds", data=body, content_type="application/json")

    error = _assert_error_shape(response, 400, "parse_error")
    assert error["message"] == f"The request body must be a JSON object ({{...}}), not {got}."


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/x-www-form-urlencoded", "email=a%40b.c&password=x"),
        ("text/plain", '{"email": "a@b.c", "password": "x"}'),
        ("multipart/form-data; boundary=xyz", "--xyz--"),
    ],
)
def test_a_body_that_is_not_json_answers_415(api, content_type, body):
    response = api.post("/register", data=body, content_type=content_type)

    error = _assert_error_shape(response, 415, "unsupported_media_type")
    assert content_type.split(";")[0] in error["message"]


@pytest.mark.parametrize("path", ["/register", "/login", "/minds"])
def test_a_two_mebibyte_body_answers_413(owner, path):
    body = json.dumps({"name": "x" * (2 * 1024 * 1024)})

    response = owner.client.post(path, data=body, content_type="application/json")

    _assert_error_shape(response, 413, "payload_too_large")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_json_numbers_answer_400(owner, constant):
    response = owner.client.post("/minds", data=f'{{"name": {constant}}}', content_type="application/json")

    _assert_error_shape(response, 400, "parse_error")


def test_validation_errors_name_every_bad_field(owner, mind):
    response = owner.client.post(
        f"/minds/{mind.mind.id}/share", {"user_email": 7, "acl": None, "ignored": 1}, format="json"
    )

    error = _assert_error_shape(response, 400, "validation_error")
    assert error["fields"] == {
        "user_email": ["Enter a valid email address."],
        "acl": ["This field may not be null."],
    }
    assert error["message"] == "Invalid input: user_email: Enter a valid email address. (and 1 more field)"


def test_a_nul_character_in_a_field_answers_400_not_500(owner):
    response = owner.client.post("/minds", {"name": "bad\u0000name"}, format="json")

    error = _assert_error_shape(response, 400, "validation_error")
    assert list(error["fields"]) == ["name"]


# --- Paths and methods ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/no/such/place",
        "/minds/not-a-mind-id",
        "/minds/m_%00",
        "/minds/m_abc/unknown",
        "/minds/m_abc/keys/not-a-number",
        "/minds/m_abc/shares/1/extra",
        "/registerr",
    ],
)
def test_unknown_paths_answer_404(owner, path):
    _assert_error_shape(owner.client.get(path), 404, "not_found")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("patch", "/register"),
        ("get", "/register"),
        ("get", "/login"),
        ("put", "/token/refresh"),
        ("delete", "/minds"),
        ("put", "/minds"),
        ("post", "/minds/{id}"),
        ("get", "/minds/{id}/share"),
        ("post", "/minds/{id}/shares"),
        ("get", "/minds/{id}/keys/{key}"),
        ("patch", "/minds/{id}/shares/{share}"),
    ],
)
def test_unsupported_methods_answer_405(owner, mind, reader, method, path):
    key = MindKey.objects.get(mind=mind.mind)
    share = MindShare.objects.get(mind=mind.mind)
    url = path.format(id=mind.mind.id, key=key.pk, share=share.pk)

    error = _assert_error_shape(getattr(owner.client, method)(url, {}, format="json"), 405, "method_not_allowed")
    assert error["message"] == f'Method "{method.upper()}" not allowed.'


# --- No input produces a 500 ----------------------------------------------------------------

_FIELD_NAMES = ["email", "password", "refresh", "name", "description", "label", "user_email", "acl"]
_JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
_JSON_VALUES = st.recursive(
    _JSON_SCALARS | st.text(max_size=300),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=6,
)
_BODIES = st.dictionaries(st.sampled_from(_FIELD_NAMES) | st.text(max_size=8), _JSON_VALUES, max_size=5)
_QUERIES = st.dictionaries(st.sampled_from(["limit", "offset"]), st.text(max_size=25), max_size=2)
_ENDPOINTS = [
    ("post", "/register"),
    ("post", "/login"),
    ("post", "/token/refresh"),
    ("get", "/minds"),
    ("post", "/minds"),
    ("get", "/minds/shared"),
    ("patch", "/minds/{id}"),
    ("get", "/minds/{id}/keys"),
    ("post", "/minds/{id}/keys"),
    ("post", "/minds/{id}/share"),
    ("get", "/minds/{id}/shares"),
    ("put", "/minds/{id}/shares/{share}"),
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(endpoint=st.sampled_from(_ENDPOINTS), body=_BODIES, query=_QUERIES)
def test_no_body_or_query_makes_an_endpoint_answer_500(owner, mind, reader, endpoint, body, query):
    method, path = endpoint
    share = MindShare.objects.get(mind=mind.mind, user=reader.user)
    url = path.format(id=mind.mind.id, share=share.pk)
    client = owner.client
    response = client.get(url, query) if method == "get" else getattr(client, method)(url, body, format="json")

    assert response.status_code < 500
    if response.status_code >= 400:
        _assert_error_shape(response, response.status_code)


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/memory?include_expired=yes", "include_expired"),
        ("/memory/tags?include_expired=yes", "include_expired"),
        ("/memory?limit=%205", "limit"),
        ("/memory/tags?limit=%205", "limit"),
        ("/memory/diff?since=0&limit=10.0", "limit"),
        ("/memory/diff?since=0&limit=", "limit"),
        ("/memory?limit=10.0", "limit"),
    ],
)
def test_query_booleans_and_numbers_are_read_alike_on_every_endpoint(mind, path, param):
    response = mind.agent.get(path)

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [param]
