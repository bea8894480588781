"""The secrets rule: no Mind Key, JWT or password ever enters the log, whatever the endpoint.

Every endpoint of the URLconf is called with every method its view allows, once with a Mind
Key and once with a JWT in the Authorization header, each time with the key, the token and
the password also in the query string and in the body (as fields and inside free text).
Every record the writer copies into the table is captured on its way — so rows of a mind
deleted later in the run are checked too — and searched for those strings and for any key
or token the responses handed out.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from minds.models import MindShare
from minds.services import mind_key_issue
from pipelinelog import writer as writer_module
from tests.conftest import PASSWORD, client_with_token, jwt_for

pytestmark = pytest.mark.django_db

MARKER = "remember-this-marker"
_PARAM = re.compile(r"<(?:\w+:)?(\w+)>")
_HANDED_OUT = re.compile(r"mk_[0-9a-f]{8}_[A-Za-z0-9_\-]+|eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+")
METHODS = ("get", "post", "put", "patch", "delete")
KIND, CONTENT = writer_module._COLUMNS.index("kind"), writer_module._COLUMNS.index("content")


def _endpoints() -> list[tuple[str, object, list[str]]]:
    """(route, view, methods) for every pattern except the admin's (its login is called on its own)."""
    found: list[tuple[str, object, list[str]]] = []
    seen: set[int] = set()

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if str(pattern.pattern).startswith("admin/"):
                    continue
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                view_class = getattr(pattern.callback, "view_class", None)
                key = id(view_class or pattern.callback)
                if key in seen:  # the trailing-slash twin of a route already listed
                    continue
                seen.add(key)
                methods = [m for m in METHODS if hasattr(view_class, m)] if view_class else ["get", "post"]
                found.append((prefix + str(pattern.pattern), view_class or pattern.callback, methods))

    walk(get_resolver().url_patterns, "")
    return found


def _path(route: str, values: dict[str, str]) -> str:
    if route.startswith("^"):  # the catch-all
        return "/no-such-path"
    return "/" + _PARAM.sub(lambda m: values.get(m.group(1), "1"), route)


@pytest.fixture
def captured(monkeypatch) -> list[tuple]:
    """Every record exactly as the writer hands it to COPY (content as its JSON text)."""
    records: list[tuple] = []
    original = writer_module._copy_records

    def recording(batch: list[tuple]) -> None:
        records.extend(batch)
        original(batch)

    monkeypatch.setattr(writer_module, "_copy_records", recording)
    return records


def test_no_mind_key_jwt_or_password_reaches_any_log_row_of_any_endpoint(owner, mind, reader, captured):
    jwt = jwt_for(owner.user)
    secrets = {mind.key, jwt, PASSWORD}
    stored = mind.agent.post("/memory", {"category": "fact", "content": "a memory to address"}, format="json")
    values = {
        "mind_id": mind.mind.pk,
        "memory_id": stored.json().get("id", "mem_missing000"),
        "key_id": str(mind_key_issue(mind=mind.mind, label="spare").key.pk),
        "share_id": str(MindShare.objects.get(mind=mind.mind, user=reader.user).pk),
        "turn_id": "T-secrets",
    }
    query = urlencode({"mind": mind.mind.pk, "token": jwt, "mind_key": mind.key, "password": PASSWORD})
    body = {
        "email": owner.user.email,
        "password": PASSWORD,
        "token": jwt,
        "access": jwt,
        "refresh": jwt,
        "mind_key": mind.key,
        "category": "note",
        "content": f"{MARKER}: my key is {mind.key} and my token is {jwt}",
        "name": "A mind",
        "user_email": reader.user.email,
        "acl": "read",
        "notes": [mind.key, {"nested_password": PASSWORD}],
    }
    clients = [mind.agent, client_with_token(jwt)]
    endpoints = _endpoints()
    assert len(endpoints) >= 10, "the URLconf looks empty; this test would prove nothing"

    calls = 0
    for deleting in (False, True):  # deletes last, so they do not hide the other endpoints
        for route, _view, methods in endpoints:
            for method in methods:
                if (method == "delete") != deleting:
                    continue
                for client in clients:
                    client.raise_request_exception = False
                    path = f"{_path(route, values)}?{query}"
                    kwargs = {"HTTP_X_MIND": mind.mind.pk, "HTTP_X_TURN_ID": "T-secrets"}
                    if method == "get":
                        response = client.get(path, **kwargs)
                    else:
                        response = getattr(client, method)(path, body, format="json", **kwargs)
                    if not route.startswith(("log", "app/log")):  # reading the log is not logged
                        calls += 1
                    raw = b"".join(response.streaming_content) if response.streaming else response.content
                    secrets.update(_HANDED_OUT.findall(raw.decode("utf-8", "replace")))
    # The admin's login form (form-encoded, not JSON).
    Client().post("/admin/login/", {"username": owner.user.email, "password": PASSWORD})

    texts = [json.dumps([str(value) for value in record], ensure_ascii=False) for record in captured]
    everything = "\n".join(texts)
    request_inputs = [record for record in captured if record[KIND] == "input" and record[CONTENT]]
    assert len(request_inputs) >= calls, "some requests left no input row"
    assert MARKER in everything, "bodies are not logged at all, so their absence of secrets proves nothing"
    assert "[redacted]" in everything
    leaked = sorted({secret[:16] + "…" for secret in secrets for text in texts if secret in text})
    assert leaked == [], f"secrets in the log: {leaked}"
