"""One order of checks everywhere: authorize first (a mind the caller cannot see is a 404), then
validate. A bad parameter on another person's mind must not reveal that the mind exists."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

# Requests that are invalid whoever sends them (each a 400 for the mind's owner).
INVALID = [
    ("get", "/memory/recall?limit=0"),
    ("get", "/memory/search"),
    ("get", "/memory/semantic-search"),
    ("get", "/memory/stats?bogus=1"),
    ("get", "/memory/tags?bogus=1"),
    ("get", "/memory/timeline?bogus=1"),
    ("get", "/memory/graph?bogus=1"),
    ("get", "/mind/export?format=xml"),
    ("get", "/memory?limit=0"),
    ("post", "/memory/compact"),
]


def send(client, method: str, url: str, mind_id: str):
    separator = "&" if "?" in url else "?"
    if method == "post":  # a compaction whose older_than is not a duration
        return client.post(f"{url}{separator}mind={mind_id}", {"older_than": "x"}, format="json")
    return client.get(f"{url}{separator}mind={mind_id}")


@pytest.mark.parametrize(("method", "url"), INVALID)
def test_an_outsider_gets_404_before_any_parameter_is_checked(mind, outsider, method, url):
    response = send(outsider.client, method, url, mind.mind.pk)
    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(("method", "url"), INVALID)
def test_the_owner_gets_the_400_of_the_same_request(owner, mind, method, url):
    response = send(owner.client, method, url, mind.mind.pk)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "validation_error"


def test_an_outsider_asking_for_related_memories_with_a_bad_parameter_gets_404(mind, outsider):
    memory_id = mind.agent.post("/memory", {"category": "fact", "content": "Berlin"}, format="json").json()["id"]
    assert outsider.client.get(f"/memory/{memory_id}/related?bogus=1").status_code == 404
