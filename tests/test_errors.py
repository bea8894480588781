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
    response = owner.client.post(f"/minds/{mind.mind.id}/share", {"user_email": 7, "acl": None}, format="json")

    error = _assert_error_shape(response, 400, "validation_error")
    assert error["fields"] == {
        "user_email": ["Must be a string."],
        "acl": ["This field may not be null."],
    }
    assert error["message"] == "Invalid input: user_email: Must be a string. (and 1 more field)"


def test_an_unknown_field_is_refused_before_any_other_check_like_on_the_memory_endpoints(owner, mind):
    response = owner.client.post(
        f"/minds/{mind.mind.id}/share", {"user_email": 7, "acl": None, "ignored": 1}, format="json"
    )

    error = _assert_error_shape(response, 400, "validation_error")
    assert error["fields"] == {"ignored": ["Unknown field. Use: user_email, acl."]}


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


# --- The review's defects, one test each ----------------------------------------------------


@pytest.fixture
def csrf_client():
    """A browser-like client: Django's CSRF checks on, as for any request without a bearer token."""
    from django.test import Client

    return Client(enforce_csrf_checks=True)


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/nonexistent"), ("delete", "/minds/%C2%84"), ("put", "/minds/{id}/shares/-1"), ("patch", "/foo%0Abar")],
)
def test_unsafe_methods_on_unknown_paths_answer_the_json_404_not_a_csrf_page(csrf_client, mind, method, path):
    response = getattr(csrf_client, method)(path.format(id=mind.mind.id), HTTP_AUTHORIZATION=f"Bearer {mind.key}")

    error = _assert_error_shape(response, 404, "not_found")
    assert error["message"].startswith("Nothing at /")


def test_a_failed_csrf_check_answers_json_saying_what_to_send(csrf_client, owner):
    csrf_client.force_login(owner.user)

    response = csrf_client.post("/admin/logout/")

    error = _assert_error_shape(response, 403, "csrf_failed")
    assert error["message"].startswith("CSRF verification failed: CSRF cookie not set.")
    assert "X-CSRFToken" in error["message"] and "Authorization: Bearer" in error["message"]


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
def test_a_path_with_an_encoded_newline_answers_the_json_404(api, settings, debug):
    settings.DEBUG = debug

    response = api.get("/foo%0Abar")

    error = _assert_error_shape(response, 404, "not_found")
    assert error["message"] == "Nothing at /foo\\nbar. The API is listed at /api/docs/."


def test_the_unknown_path_404_is_formatted_like_every_other_error(owner):
    not_found = owner.client.get("/no/such/place")
    not_allowed = owner.client.delete("/minds")  # a DRF view's error

    for response in (not_found, not_allowed):
        compact = json.dumps(response.json(), separators=(",", ":"), ensure_ascii=False).encode()
        assert response.content == compact
        assert response["Content-Type"] == "application/json"


def test_a_query_of_five_thousand_four_byte_characters_fits_the_url_limit(mind):
    response = mind.agent.get("/memory/search", {"q": "\U0001f600" * 5000})

    assert response.status_code == 200


def test_a_url_over_the_limit_answers_the_json_414_naming_the_limit(mind, settings):
    response = mind.agent.get("/memory/search", {"q": "a" * (settings.MAX_URL_BYTES + 1)})

    error = _assert_error_shape(response, 414, "url_too_long")
    assert f"the limit is {settings.MAX_URL_BYTES} bytes" in error["message"]


def _chunked(client, path: str, body: bytes, **headers):
    """A request as gunicorn hands over a chunked one: de-chunked input, no CONTENT_LENGTH."""
    import io

    return client.generic(
        "POST",
        path,
        b"",
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(body)},
        **headers,
    )


def test_a_chunked_body_is_read_like_any_other(mind):
    body = json.dumps({"category": "fact", "key": "chunked", "content": "Sent in chunks"}).encode()

    response = _chunked(mind.agent, "/memory", body)

    assert response.status_code == 201, response.content
    assert response.json()["content"] == "Sent in chunks"


def test_a_two_mebibyte_chunked_body_answers_413(mind):
    body = json.dumps({"category": "fact", "content": "x" * (2 * 1024 * 1024)}).encode()

    error = _assert_error_shape(_chunked(mind.agent, "/memory", body), 413, "payload_too_large")
    assert error["message"].startswith("The request body is more than 1048576 bytes")


def test_a_refused_chunked_body_is_read_to_its_end_before_the_413_so_the_sender_receives_it(api):
    # Answered and closed while the client still sends, the connection is reset under the client:
    # it sees a broken pipe, not the answer (tests/test_outage.py sends one over real HTTP).
    import io

    body = b"x" * (2 * 1024 * 1024 + 7)
    stream = io.BytesIO(body)
    response = api.generic(
        "POST", "/health", b"", content_type="application/json", HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": stream},
    )  # fmt: skip

    assert response.status_code == 413
    assert stream.tell() == len(body)


def test_a_refused_chunked_body_is_read_no_further_than_the_bound(api, monkeypatch):
    import io

    from django.conf import settings as django_settings

    from memoryproject.core import middleware

    monkeypatch.setattr(middleware, "REFUSED_BODY_DRAIN_BYTES", 3 * 1024 * 1024)
    stream = io.BytesIO(b"x" * (8 * 1024 * 1024))
    response = api.generic(
        "POST", "/health", b"", content_type="application/json", HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": stream},
    )  # fmt: skip

    assert response.status_code == 413
    assert stream.tell() == django_settings.MAX_REQUEST_BODY_BYTES + 1 + 3 * 1024 * 1024


def test_a_refused_body_of_a_declared_length_is_read_to_its_end_before_the_413(api):
    import io

    body = b"x" * (2 * 1024 * 1024)
    stream = io.BytesIO(body)
    response = api.generic(
        "POST", "/health", b"", content_type="application/json", CONTENT_LENGTH=str(len(body)),
        **{"wsgi.input": stream},
    )  # fmt: skip

    assert response.status_code == 413
    assert stream.tell() == len(body)


# --- Messages that say what to do -----------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (
            {"HTTP_AUTHORIZATION": "{key}"},
            "The Authorization header holds a bare Mind Key; send `Authorization: Bearer <Mind Key>`.",
        ),
        (
            {"HTTP_X_API_KEY": "{key}"},
            "The X-API-Key header is not read; send the key as `Authorization: Bearer <Mind Key>`.",
        ),
        ({}, "No credentials were sent. Agents send `Authorization: Bearer <Mind Key>`"),
        ({"HTTP_AUTHORIZATION": "Token {key}"}, "The Authorization scheme 'Token' is not accepted."),
    ],
    ids=["bare-key", "x-api-key", "nothing", "other-scheme"],
)
def test_a_key_sent_the_wrong_way_gets_told_how_to_send_it(api, mind, headers, expected):
    response = api.get("/memory", **{name: value.format(key=mind.key) for name, value in headers.items()})

    error = _assert_error_shape(response, 401, "not_authenticated")
    assert error["message"].startswith(expected)
    assert mind.key not in error["message"]


def test_a_body_without_a_json_content_type_is_told_to_send_one(mind):
    response = mind.agent.post(
        "/memory", data="category=fact&content=x", content_type="application/x-www-form-urlencoded"
    )

    error = _assert_error_shape(response, 415, "unsupported_media_type")
    assert error["message"] == (
        'Unsupported media type "application/x-www-form-urlencoded" in request. '
        "Send `Content-Type: application/json` with a JSON object as the body."
    )


def test_a_password_failing_several_rules_names_them_all(api):
    response = api.post("/register", {"email": "new@example.com", "password": "1234"}, format="json")

    error = _assert_error_shape(response, 400, "validation_error")
    assert error["message"] == (
        "Invalid input: password: This password is too short. It must contain at least 8 characters. "
        "This password is too common. This password is entirely numeric."
    )


def test_the_landing_page_varies_on_accept_and_answers_json_to_json_clients(api):
    response = api.get("/", HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "Accept" in [part.strip() for part in response["Vary"].split(",")]
    body = response.json()
    assert (body["docs"], body["schema"]) == ("/api/docs/", "/api/schema/")
    assert "Authorization: Bearer mk_" in body["guide"]
    html = api.get("/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    assert html["Content-Type"].startswith("text/html")
    assert "Accept" in html["Vary"]
