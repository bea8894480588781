"""Strict everywhere: every body refuses a field it does not declare and a value of the wrong JSON
type with the one 400 of the memory endpoints — read from the OpenAPI document, so a new endpoint
is covered without editing this test."""

from __future__ import annotations

import json

import pytest
from drf_spectacular.generators import SchemaGenerator

from minds.models import Mind, MindShare

pytestmark = pytest.mark.django_db

# A value of another JSON type than the documented one.
_WRONG_VALUE = {"string": 12345, "integer": "1", "number": "0.5", "boolean": "true", "array": "x", "object": "x"}


def _body_operations() -> list[tuple[str, str, dict[str, dict]]]:
    document = SchemaGenerator().get_schema(request=None, public=True)
    components = document["components"]["schemas"]
    operations = []
    for path, items in document["paths"].items():
        for method, operation in items.items():
            schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if method in ("post", "put", "patch") and schema:
                body = components.get(schema.get("$ref", "").rsplit("/", 1)[-1], schema)
                properties = {
                    name: components.get(rule.get("$ref", "").rsplit("/", 1)[-1], rule)  # enums are components
                    for name, rule in body.get("properties", {}).items()
                }
                operations.append((method, path, properties))
    return operations


BODY_OPERATIONS = _body_operations()
_IDS = [f"{method.upper()} {path}" for method, path, _ in BODY_OPERATIONS]


@pytest.fixture
def call(owner, mind, reader, settings):
    """Sends a body as the mind's owner (JWT + X-Mind), to real ids."""
    settings.SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK = True  # a hook to create; nothing is delivered here
    memory = mind.agent.post("/memory", {"category": "fact", "content": "Anna"}, format="json").json()
    entity = mind.agent.post("/synapses/entities", {"name": "Anna"}, format="json").json()
    goal = mind.agent.post("/synapses/goals", {"statement": "Learn Rust", "motivation": 0.5}, format="json").json()
    hook = mind.agent.post("/webhooks", {"url": "http://127.0.0.1:9/in", "events": "*"}, format="json").json()
    ids = {
        "memory_id": memory["id"],
        "mind_id": mind.mind.pk,
        "share_id": MindShare.objects.get(mind=mind.mind, user=reader.user).pk,
        "entity_id": entity["id"],
        "goal_id": goal["id"],
        "webhook_id": hook["id"],
    }

    def send(method: str, path: str, body: dict):
        return getattr(owner.client, method)(
            path.format(**ids), data=json.dumps(body), content_type="application/json", HTTP_X_MIND=mind.mind.pk
        )

    return send


def _validation_fields(response) -> dict:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    return error["fields"]


@pytest.mark.parametrize(("method", "path", "properties"), BODY_OPERATIONS, ids=_IDS)
def test_an_unknown_field_is_refused_naming_it(call, method, path, properties):
    fields = _validation_fields(call(method, path, {"bogus": 1}))

    assert "bogus" in fields
    assert fields["bogus"][0].startswith("Unknown field.")


@pytest.mark.parametrize(("method", "path", "properties"), BODY_OPERATIONS, ids=_IDS)
def test_a_value_of_the_wrong_type_is_refused_naming_the_field(call, method, path, properties):
    typed = {name: rule["type"] for name, rule in properties.items() if rule.get("type") in _WRONG_VALUE}
    assert typed or not properties  # every body documents its fields' types

    for name, kind in typed.items():
        fields = _validation_fields(call(method, path, {name: _WRONG_VALUE[kind]}))
        assert any(field == name or field.startswith(f"{name}.") for field in fields), (name, fields)


def test_a_mind_named_by_a_number_with_a_stray_field_is_refused_and_not_created(owner):
    response = owner.client.post("/minds", {"name": 12345, "bogus": 1}, format="json")

    assert _validation_fields(response) == {"bogus": ["Unknown field. Use: name, description."]}
    assert not Mind.objects.exists()
    assert _validation_fields(owner.client.post("/minds", {"name": 12345}, format="json")) == {
        "name": ["Must be a string."]
    }
