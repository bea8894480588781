"""The webhook endpoints: create (the secret shown once), list, read, replace, delete; every
field validated with an error naming it; the SSRF guard under production settings."""

from __future__ import annotations

import pytest

from webhooks.models import Webhook
from webhooks.services.hooks import MAX_WEBHOOKS_PER_MIND

pytestmark = pytest.mark.django_db

PUBLIC_URL = "https://93.184.215.14/hooks/synapse"


def create(client, **body):
    return client.post("/webhooks", {"url": PUBLIC_URL, "events": "*", **body}, format="json")


def error_fields(response) -> dict:
    return response.json()["error"]["fields"]


def test_a_mind_key_creates_a_webhook_and_sees_its_generated_secret_once(mind):
    response = create(mind.agent, events="memory.*")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"].startswith("wh_")
    assert body["url"] == PUBLIC_URL and body["events"] == "memory.*" and body["enabled"] is True
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 40
    assert Webhook.objects.get(pk=body["id"]).secret == body["secret"]  # kept, so the server can sign

    listed = mind.agent.get("/webhooks").json()
    assert [hook["id"] for hook in listed] == [body["id"]]
    assert "secret" not in listed[0]
    assert "secret" not in mind.agent.get(f"/webhooks/{body['id']}").json()


def test_a_given_secret_is_kept_as_given(mind):
    response = create(mind.agent, secret="my-own-secret-of-24-chars")
    assert response.json()["secret"] == "my-own-secret-of-24-chars"


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"events": "memory.create"}, "events", "Use one of: *, knot.*, memory.*"),
        ({"events": ["memory.*"]}, "events", "is not allowed"),
        ({"url": 42}, "url", "Must be a string"),
        ({"url": "ftp://93.184.215.14/x"}, "url", "http:// or https://"),
        ({"url": "http://" + "a" * 2000 + ".com/"}, "url", "2000"),
        ({"secret": "short"}, "secret", "16"),
        ({"secret": 1234567890123456789}, "secret", "Must be a string"),
        ({"enabled": "yes"}, "enabled", "true or false"),
        ({"colour": "blue"}, "colour", "Unknown field. Use: url, events, secret, enabled."),
    ],
)
def test_a_bad_field_is_a_400_naming_it_and_what_is_allowed(mind, body, field, says):
    response = create(mind.agent, **body)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert says in " ".join(error_fields(response)[field])
    assert not Webhook.objects.exists()


def test_a_missing_url_and_events_are_named(mind):
    response = mind.agent.post("/webhooks", {}, format="json")
    assert response.status_code == 400
    assert set(error_fields(response)) == {"url", "events"}


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/hook", "http://localhost/hook", "http://10.0.0.7/hook", "http://169.254.169.254/"],
)
def test_a_private_or_loopback_url_is_refused_under_production_settings(mind, settings, url):
    settings.SYNAPSE_WEBHOOKS_ALLOW_PRIVATE = False
    settings.SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK = False
    response = create(mind.agent, url=url)
    assert response.status_code == 400
    assert "public addresses" in error_fields(response)["url"][0]
    assert not Webhook.objects.exists()


def test_the_production_defaults_refuse_loopback():
    # tests/settings.py is the real settings with DEBUG off, as in production.
    from django.conf import settings

    assert settings.DEBUG is False
    assert settings.SYNAPSE_WEBHOOKS_ALLOW_PRIVATE is False
    assert settings.SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK is False


def test_an_operator_setting_allows_private_urls(mind, settings):
    settings.SYNAPSE_WEBHOOKS_ALLOW_PRIVATE = True
    assert create(mind.agent, url="http://10.0.0.7/hook").status_code == 201


def test_put_replaces_url_events_and_enabled_and_keeps_the_secret_unless_given(mind):
    created = create(mind.agent).json()
    replacement = {"url": "https://93.184.215.15/other", "events": "knot.created", "enabled": False}
    response = mind.agent.put(f"/webhooks/{created['id']}", replacement, format="json")
    assert response.status_code == 200, response.content
    assert {key: response.json()[key] for key in replacement} == replacement
    hook = Webhook.objects.get(pk=created["id"])
    assert hook.secret == created["secret"]

    response = mind.agent.put(
        f"/webhooks/{created['id']}", {**replacement, "secret": "a-rotated-secret-xyz"}, format="json"
    )
    assert response.status_code == 200 and "secret" not in response.json()
    assert Webhook.objects.get(pk=created["id"]).secret == "a-rotated-secret-xyz"


def test_put_needs_every_field_but_the_secret(mind):
    created = create(mind.agent).json()
    response = mind.agent.put(f"/webhooks/{created['id']}", {"url": PUBLIC_URL}, format="json")
    assert response.status_code == 400
    assert set(error_fields(response)) == {"events", "enabled"}


def test_enabling_a_hook_the_server_disabled_clears_the_reason(mind):
    created = create(mind.agent).json()
    Webhook.objects.filter(pk=created["id"]).update(enabled=False, disabled_reason="The receiver answered 410 Gone.")
    response = mind.agent.put(
        f"/webhooks/{created['id']}", {"url": PUBLIC_URL, "events": "*", "enabled": True}, format="json"
    )
    assert response.json()["enabled"] is True and response.json()["disabled_reason"] == ""


def test_delete_removes_the_hook(mind):
    created = create(mind.agent).json()
    assert mind.agent.delete(f"/webhooks/{created['id']}").status_code == 204
    assert mind.agent.get(f"/webhooks/{created['id']}").status_code == 404
    assert not Webhook.objects.exists()


def test_another_minds_hook_is_not_found_for_every_method(mind, other_mind):
    created = create(mind.agent).json()
    path = f"/webhooks/{created['id']}"
    assert other_mind.agent.get(path).status_code == 404
    assert (
        other_mind.agent.put(path, {"url": PUBLIC_URL, "events": "*", "enabled": True}, format="json").status_code
        == 404
    )
    assert other_mind.agent.delete(path).status_code == 404
    assert other_mind.agent.post(f"{path}/test").status_code == 404
    assert other_mind.agent.get("/webhooks").json() == []
    assert Webhook.objects.filter(pk=created["id"]).exists()


def test_a_human_names_the_mind_and_needs_write_access(mind, owner, reader):
    response = owner.client.post(f"/webhooks?mind={mind.mind.pk}", {"url": PUBLIC_URL, "events": "*"}, format="json")
    assert response.status_code == 201
    assert reader.client.get(f"/webhooks?mind={mind.mind.pk}").status_code == 403
    missing = owner.client.get("/webhooks")
    assert missing.status_code == 400 and "mind" in error_fields(missing)


def test_an_unknown_query_parameter_is_named(mind):
    response = mind.agent.get("/webhooks?limt=5")
    assert response.status_code == 400 and "limt" in error_fields(response)


def test_a_mind_has_at_most_its_cap_of_webhooks(mind):
    for _ in range(MAX_WEBHOOKS_PER_MIND):
        assert create(mind.agent).status_code == 201
    response = create(mind.agent)
    assert response.status_code == 400
    assert str(MAX_WEBHOOKS_PER_MIND) in error_fields(response)["url"][0]


def test_the_test_endpoint_takes_no_body(mind):
    created = create(mind.agent).json()
    response = mind.agent.post(f"/webhooks/{created['id']}/test", {"x": 1}, format="json")
    assert response.status_code == 400 and "body" in error_fields(response)
