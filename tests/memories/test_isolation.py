"""Acceptance: nothing of one mind is visible, countable or changeable through another mind's key.

Mind A ("mind") holds memories with distinctive markers; mind B ("other_mind") asks every read
endpoint. B's answers must not contain any marker, and the aggregates B sees must not move when
A writes. As a control (so the test can fail), A's own answers do show A's markers.
Add every new read endpoint of the memory API to READ_PATHS.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory

pytestmark = pytest.mark.django_db

SECRET_CONTENT = "Zebra octopus rendezvous at pier 4711"
SECRET_KEY = "zebra_plan"
SECRET_TAG = "zebratag"

# Read endpoints of the memory API, as an agent calls them. Each answer that lists memories
# must show A's markers to A (control), and none of them to B.
READ_PATHS = [
    "/memory",
    "/memory?include_expired=true",
    f"/memory/by-tag?tag={SECRET_TAG}",
    "/memory/unverified",
    "/memory/expiring?within=30d",
    "/memory/diff?since=0",
    "/memory/audit",
    "/memory/recall",
    "/memory/recall?format=json",
    "/memory/tags",
    # /memory/graph draws knots, which these memories do not have yet (no promotion runs here):
    # tests/synapses/test_related_graph_net.py checks its isolation on promoted memories.
    "/memory/search?q=zebra%20octopus",
    "/memory/semantic-search?q=zebra%20octopus%20rendezvous&threshold=0",
    "/mind/export?format=json",
    "/mind/export?format=csv",
]
# Aggregates without markers: B's answer must be the same before and after A writes.
AGGREGATE_PATHS = [
    "/memory/stats",
    "/memory/tags",
    "/memory/timeline",
    "/memory/graph",
    "/memory/recall",
]


@pytest.fixture
def secret(mind):
    """A's memory with every marker; unverified (agent), expiring in two days."""
    body = {
        "category": "project",
        "key": SECRET_KEY,
        "content": SECRET_CONTENT,
        "tags": [SECRET_TAG],
        "expires_at": (timezone.now() + timedelta(days=2)).isoformat(),
    }
    response = mind.agent.post("/memory", body, format="json")
    assert response.status_code == 201
    return response.json()


def markers(secret) -> list[str]:
    return [secret["id"], SECRET_CONTENT, SECRET_KEY, SECRET_TAG]


def text_of(response) -> str:
    """The body as text, streamed (export) or not."""
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


@pytest.mark.parametrize("path", READ_PATHS)
def test_another_minds_key_sees_nothing_of_the_mind(mind, other_mind, secret, path):
    other_mind.agent.post("/memory", {"category": "note", "content": "B's own note", "tags": ["b"]}, format="json")
    theirs = other_mind.agent.get(path)
    assert theirs.status_code == 200, theirs.content
    text = text_of(theirs)
    assert [marker for marker in markers(secret) if marker in text] == []
    mine = mind.agent.get(path)
    assert mine.status_code == 200
    assert any(marker in text_of(mine) for marker in markers(secret))


@pytest.mark.parametrize("path", AGGREGATE_PATHS)
def test_another_minds_aggregates_do_not_move_when_the_mind_writes(mind, other_mind, path):
    other_mind.agent.post("/memory", {"category": "note", "content": "B's own note", "tags": ["b"]}, format="json")
    before = other_mind.agent.get(path)
    assert before.status_code == 200
    mind.agent.post(
        "/memory/sync",
        {"memories": [{"category": "fact", "content": f"A's fact {n}", "tags": ["a", "shared"]} for n in range(5)]},
        format="json",
    )
    after = other_mind.agent.get(path)
    assert text_of(after) == text_of(before)


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("patch", "", {"content": "overwritten"}),
        ("put", "", {"content": "overwritten"}),
        ("delete", "", None),
        ("get", "/related", None),
    ],
)
def test_another_minds_key_gets_404_for_the_minds_memory(mind, other_mind, secret, method, suffix, body):
    response = getattr(other_mind.agent, method)(f"/memory/{secret['id']}{suffix}", body, format="json")
    assert response.status_code == 404
    stored = Memory.objects.get(pk=secret["id"])
    assert stored.content == SECRET_CONTENT


@pytest.mark.parametrize("action", ["verify", "unverify"])
def test_a_human_without_access_gets_404_when_verifying(outsider, secret, action):
    assert outsider.client.post(f"/memory/{secret['id']}/{action}").status_code == 404
    assert Memory.objects.get(pk=secret["id"]).verified is False


@pytest.mark.parametrize("path", READ_PATHS)
def test_a_human_cannot_name_a_mind_they_have_no_access_to(outsider, mind, secret, path):
    separator = "&" if "?" in path else "?"
    response = outsider.client.get(f"{path}{separator}mind={mind.mind.pk}")
    assert response.status_code == 404
    assert SECRET_CONTENT not in text_of(response)


def test_writing_the_same_category_and_key_through_another_mind_creates_its_own_memory(mind, other_mind, secret):
    response = other_mind.agent.post(
        "/memory", {"category": "project", "key": SECRET_KEY, "content": "B's plan"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["id"] != secret["id"]
    assert Memory.objects.get(pk=secret["id"]).content == SECRET_CONTENT


def test_sync_through_another_mind_never_touches_the_mind(mind, other_mind, secret):
    other_mind.agent.post(
        "/memory/sync", {"memories": [{"category": "project", "key": SECRET_KEY, "content": "B's plan"}]}, format="json"
    )
    assert Memory.objects.get(pk=secret["id"]).content == SECRET_CONTENT
