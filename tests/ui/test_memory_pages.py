"""The dashboard, a mind's memories, the review queue and one memory, through the test client:
status, permissions as the API's (read looks, write changes and verifies, others see nothing),
messages after every action, and what the database holds afterwards."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.forms import UI_PAGE_SIZE
from memories.models import AuditAction, Memory, MemoryAudit
from tests.embedding_server import fake_server_fixture  # noqa: F401 — a fixture
from tests.pages import assert_page_keeps_to_its_policy
from tests.ui.conftest import agent_stores, logged_in

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def _keys(response) -> list[str]:
    return [memory.key for memory in response.context["memories"]]


# --- Dashboard --------------------------------------------------------------------------------


def test_the_dashboard_lists_my_minds_and_the_shared_ones_with_their_counts(owner, mind, reader, other_mind):
    agent_stores(mind, content="one", key="one")
    agent_stores(mind, content="two", key="two")
    owner.client.post(f"/memory?mind={mind.mind.pk}", {"category": "fact", "content": "mine"}, format="json")

    own = logged_in(owner).get("/app/")
    shared = logged_in(reader).get("/app/")

    assert own.status_code == 200
    [row] = own.context["own"]
    assert row["mind"].pk == mind.mind.pk
    assert (row["numbers"]["active"], row["numbers"]["unverified"]) == (3, 2)
    assert row["numbers"]["pending_promotion"] == 3
    assert own.context["shared"] == [] and own.context["worker_alive"] is False
    assert "Worker: not running" in own.content.decode()
    assert [r["mind"].pk for r in shared.context["shared"]] == [mind.mind.pk]
    assert shared.context["own"] == []
    assert other_mind.mind.name not in own.content.decode()


def test_a_mind_created_on_the_dashboard_shows_its_key_once_and_never_again(owner):
    client = logged_in(owner)

    response = client.post("/app/minds/new/", {"name": "Travel agent", "description": "trips"})

    assert response.status_code == 201
    mind = owner.user.minds.get(name="Travel agent")
    key = response.context["issued"].plaintext
    assert key.startswith("mk_") and key in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    assert client.get(f"/app/minds/{mind.pk}/keys/").content.decode().count(key) == 0
    assert client.get("/memory/recall", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 200
    assert _messages(response) == ["Mind “Travel agent” created. Copy its key now: it is shown only once."]


def test_a_mind_without_a_name_is_not_created_and_the_form_says_why(owner):
    response = logged_in(owner).post("/app/minds/new/", {"name": ""})

    assert response.status_code == 400
    assert response.context["form"].errors["name"] == ["This field is required."]
    assert not owner.user.minds.exists()


# --- A mind's memories ------------------------------------------------------------------------


def test_the_mind_page_filters_by_category_tag_verified_source_and_priority(owner, mind):
    agent_stores(mind, content="Anna is my sister", key="anna", tags=["Family"], priority="high")
    agent_stores(mind, content="Uses vim", category="skill", key="vim", source="tool")
    owner.client.post(
        f"/memory?mind={mind.mind.pk}", {"category": "fact", "key": "mine", "content": "x"}, format="json"
    )
    client = logged_in(owner)
    page = f"/app/minds/{mind.mind.pk}/"

    assert sorted(_keys(client.get(page))) == ["anna", "mine", "vim"]
    assert _keys(client.get(page, {"category": "skill"})) == ["vim"]
    assert _keys(client.get(page, {"tag": "FAMILY"})) == ["anna"]
    assert _keys(client.get(page, {"verified": "true"})) == ["mine"]
    assert sorted(_keys(client.get(page, {"verified": "false"}))) == ["anna", "vim"]
    assert _keys(client.get(page, {"source": "tool"})) == ["vim"]
    assert _keys(client.get(page, {"priority": "high"})) == ["anna"]


def test_expired_memories_show_only_when_asked_for(owner, mind):
    agent_stores(mind, content="old news", key="old", expires_at=(timezone.now() - timedelta(hours=1)).isoformat())
    agent_stores(mind, content="current", key="current")
    client = logged_in(owner)

    assert _keys(client.get(f"/app/minds/{mind.mind.pk}/")) == ["current"]
    assert sorted(_keys(client.get(f"/app/minds/{mind.mind.pk}/", {"include_expired": "on"}))) == ["current", "old"]


def test_a_filter_value_that_is_not_allowed_is_named_on_the_form(owner, mind):
    response = logged_in(owner).get(f"/app/minds/{mind.mind.pk}/", {"category": "gossip"})

    assert response.status_code == 400
    assert (
        "Select a valid choice. gossip is not one of the available choices."
        in response.context["form"].errors["category"]
    )


def test_search_on_the_mind_page_uses_the_hybrid_search_and_keeps_the_other_filters(owner, mind):
    agent_stores(mind, content="Anna lives in Hamburg", key="anna_city")
    owner.client.post(
        f"/memory?mind={mind.mind.pk}",
        {"category": "fact", "key": "anna_job", "content": "Anna is a pilot"},
        format="json",
    )
    agent_stores(mind, content="The server listens on port 8000", key="port")
    client = logged_in(owner)

    everything = client.get(f"/app/minds/{mind.mind.pk}/", {"q": "Anna"})
    verified_only = client.get(f"/app/minds/{mind.mind.pk}/", {"q": "Anna", "verified": "true"})

    assert sorted(_keys(everything)[:2]) == ["anna_city", "anna_job"]
    assert all("text" in memory.matched for memory in everything.context["memories"][:2])
    assert _keys(verified_only) == ["anna_job"]
    assert everything.context["page"] is None


def test_the_mind_page_pages_through_the_memories(owner, mind):
    for number in range(UI_PAGE_SIZE + 1):
        agent_stores(mind, content=f"memory {number}", key=f"m{number:02d}")
    client = logged_in(owner)

    first = client.get(f"/app/minds/{mind.mind.pk}/", {"source": "agent"})
    second = client.get(f"/app/minds/{mind.mind.pk}/", {"source": "agent", "page": 2})

    assert len(_keys(first)) == UI_PAGE_SIZE and _keys(second) == ["m00"]
    assert set(_keys(first)).isdisjoint(_keys(second))
    assert "source=agent&amp;page=2" in first.content.decode()


def test_a_reader_sees_the_memories_without_any_button_that_changes_them(reader, mind):
    agent_stores(mind, content="Anna is my sister", key="anna")

    response = logged_in(reader).get(f"/app/minds/{mind.mind.pk}/")
    body = response.content.decode()

    assert response.status_code == 200 and _keys(response) == ["anna"]
    assert "/verify/" not in body and "/delete/" not in body and "New memory" not in body


def test_an_outsider_gets_the_not_found_page_for_a_mind_that_is_not_theirs(outsider, mind):
    response = logged_in(outsider).get(f"/app/minds/{mind.mind.pk}/")

    assert response.status_code == 404
    assert "No mind with this id is visible to you." in response.content.decode()
    assert response["Content-Type"].startswith("text/html")


# --- Create and edit ----------------------------------------------------------------------------


def test_a_memory_created_in_the_ui_is_the_humans_and_verified(owner, mind):
    response = logged_in(owner).post(
        f"/app/minds/{mind.mind.pk}/memories/new/",
        {"category": "preference", "key": "tone", "content": "Concise answers", "tags": "Style, style, work",
         "priority": "high", "entities": "", "event_time": "", "expires_at": ""},
    )  # fmt: skip

    memory = Memory.objects.get(mind=mind.mind, key="tone")
    assert response.status_code == 302 and response["Location"] == f"/app/memories/{memory.pk}/"
    assert (memory.source, memory.verified, memory.verified_by) == ("user", True, owner.user)
    assert memory.tags == ["style", "work"] and memory.priority == "high"
    assert _messages(response) == ["Memory tone stored."]


def test_the_memory_form_names_each_field_the_api_would_refuse(owner, mind):
    response = logged_in(owner).post(
        f"/app/minds/{mind.mind.pk}/memories/new/",
        {"category": "fact", "key": "-bad key", "content": "x", "priority": "normal", "expires_at": "whenever"},
    )

    errors = response.context["form"].errors
    assert response.status_code == 400
    assert errors["key"][0].startswith("Invalid key. Use 1–128 characters")
    assert "expires_at" in errors
    assert not Memory.objects.filter(mind=mind.mind).exists()


def test_a_writer_edits_a_memory_and_an_edit_onto_a_taken_key_is_a_form_error(writer, mind):
    anna = agent_stores(mind, content="Anna is my sister", key="anna", tags=["family"])
    agent_stores(mind, content="Bob", key="bob")
    client = logged_in(writer)
    form = {"category": "fact", "key": "anna", "content": "Anna is my older sister", "tags": "family",
            "priority": "normal", "entities": "", "event_time": "", "expires_at": ""}  # fmt: skip

    saved = client.post(f"/app/memories/{anna['id']}/edit/", form)
    clash = client.post(f"/app/memories/{anna['id']}/edit/", {**form, "key": "bob"})

    memory = Memory.objects.get(pk=anna["id"])
    assert saved.status_code == 302 and memory.content == "Anna is my older sister" and memory.key == "anna"
    # As over the API: a human who rewrites the words makes the memory theirs.
    assert (memory.source, memory.verified, memory.verified_by) == ("user", True, writer.user)
    assert _messages(saved) == ["Memory anna saved; changed: content, source, verified."]
    assert clash.status_code == 400
    assert "already has category 'fact' and key 'bob'" in clash.context["form"].errors["key"][0]


def test_an_edit_that_only_retags_keeps_the_agents_source_and_touches_nothing_else(owner, mind):
    anna = agent_stores(mind, content="Anna", key="anna", tags=["family"], event_time="2026-10-17")
    form = {"category": "fact", "key": "anna", "content": "Anna", "tags": "family, sister", "priority": "normal",
            "entities": "", "event_time": "2026-10-17T00:00:00+00:00", "expires_at": ""}  # fmt: skip

    response = logged_in(owner).post(f"/app/memories/{anna['id']}/edit/", form)

    memory = Memory.objects.get(pk=anna["id"])
    assert response.status_code == 302
    assert (memory.tags, memory.source, memory.verified, memory.event_precision) == (
        ["family", "sister"],
        "agent",
        False,
        "day",
    )
    assert _messages(response) == ["Memory anna saved; changed: tags."]


def test_a_reader_cannot_open_the_create_or_edit_forms(reader, mind):
    anna = agent_stores(mind, content="Anna", key="anna")
    client = logged_in(reader)

    assert client.get(f"/app/minds/{mind.mind.pk}/memories/new/").status_code == 403
    assert client.get(f"/app/memories/{anna['id']}/edit/").status_code == 403


# --- Verify, bulk verify, delete ---------------------------------------------------------------


def test_the_review_queue_verifies_with_one_click_and_the_memory_leaves_it(owner, mind):
    anna = agent_stores(mind, content="Anna is my sister", key="anna")
    agent_stores(mind, content="Bob", key="bob")
    client = logged_in(owner)
    queue = f"/app/minds/{mind.mind.pk}/unverified/"

    before = client.get(queue)
    response = client.post(f"/app/memories/{anna['id']}/verify/", {"next": queue})

    assert sorted(_keys(before)) == ["anna", "bob"]
    assert 'src="/static/ui/review.js"' in before.content.decode()
    assert response.status_code == 302 and response["Location"] == queue
    memory = Memory.objects.get(pk=anna["id"])
    assert memory.verified and memory.verified_by == owner.user
    assert _messages(response) == ["Memory anna verified."]
    assert _keys(client.get(queue)) == ["bob"]


def test_a_read_share_sees_no_verify_button_and_is_refused_if_it_posts_anyway(reader, mind):
    anna = agent_stores(mind, content="Anna is my sister", key="anna")
    client = logged_in(reader)

    queue = client.get(f"/app/minds/{mind.mind.pk}/unverified/")
    refused = client.post(f"/app/memories/{anna['id']}/verify/")
    bulk = client.post(f"/app/minds/{mind.mind.pk}/verify/", {"memory": [anna["id"]]})

    assert queue.status_code == 200 and 'data-action="verify"' not in queue.content.decode()
    assert refused.status_code == 403 and bulk.status_code == 403
    assert "This needs write access to the mind; you have read access." in refused.content.decode()
    assert Memory.objects.get(pk=anna["id"]).verified is False


def test_an_outsider_cannot_verify_or_delete_and_learns_nothing(outsider, mind):
    anna = agent_stores(mind, content="Anna", key="anna")
    client = logged_in(outsider)

    assert client.post(f"/app/memories/{anna['id']}/verify/").status_code == 404
    assert client.post(f"/app/memories/{anna['id']}/delete/").status_code == 404
    assert client.get(f"/app/memories/{anna['id']}/").status_code == 404
    assert Memory.objects.filter(pk=anna["id"], verified=False).exists()


def test_bulk_verify_verifies_every_ticked_memory(owner, mind):
    ids = [agent_stores(mind, content=f"m{n}", key=f"m{n}")["id"] for n in range(3)]
    page = f"/app/minds/{mind.mind.pk}/"

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/verify/", {"memory": ids[:2], "next": page})

    assert response.status_code == 302 and response["Location"] == page
    assert set(Memory.objects.filter(verified=True).values_list("pk", flat=True)) == set(ids[:2])
    assert MemoryAudit.objects.filter(action=AuditAction.VERIFIED).count() == 2
    assert _messages(response) == ["2 memories verified."]


def test_bulk_verify_of_nothing_says_to_tick_something(owner, mind):
    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/verify/", {})

    assert response.status_code == 302
    assert _messages(response) == ["Tick at least one memory to verify."]


def test_bulk_verify_with_a_memory_of_another_mind_verifies_none(owner, mind, other_mind):
    mine = agent_stores(mind, content="mine", key="mine")
    theirs = agent_stores(other_mind, content="theirs", key="theirs")

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/verify/", {"memory": [mine["id"], theirs["id"]]})

    assert response.status_code == 404
    assert not Memory.objects.filter(verified=True).exists()


def test_unverify_takes_the_confirmation_back(owner, mind):
    anna = agent_stores(mind, content="Anna", key="anna")
    client = logged_in(owner)
    client.post(f"/app/memories/{anna['id']}/verify/")

    response = client.post(f"/app/memories/{anna['id']}/unverify/")

    memory = Memory.objects.get(pk=anna["id"])
    assert response["Location"] == f"/app/memories/{anna['id']}/"
    assert (memory.verified, memory.verified_by) == (False, None)
    assert _messages(response) == ["Memory anna verified.", "Memory anna marked unverified."]


def test_delete_removes_the_memory_and_returns_to_the_list_not_to_its_gone_page(writer, mind):
    anna = agent_stores(mind, content="Anna", key="anna")

    response = logged_in(writer).post(f"/app/memories/{anna['id']}/delete/", {"next": f"/app/memories/{anna['id']}/"})

    assert response.status_code == 302 and response["Location"] == f"/app/minds/{mind.mind.pk}/"
    assert not Memory.objects.filter(pk=anna["id"]).exists()
    assert _messages(response) == ["Memory anna deleted."]


def test_a_next_that_points_off_the_site_is_ignored(owner, mind):
    anna = agent_stores(mind, content="Anna", key="anna")

    response = logged_in(owner).post(f"/app/memories/{anna['id']}/verify/", {"next": "https://evil.example/"})

    assert response["Location"] == f"/app/memories/{anna['id']}/"


def test_verify_is_a_post(owner, mind):
    anna = agent_stores(mind, content="Anna", key="anna")

    assert logged_in(owner).get(f"/app/memories/{anna['id']}/verify/").status_code == 405


# --- One memory ---------------------------------------------------------------------------------


def test_the_memory_page_shows_its_history_related_memories_and_a_place_for_knots(owner, mind):
    anna = agent_stores(mind, content="Anna is my sister", key="anna", tags=["family", "anna"])
    agent_stores(mind, content="Mum's birthday is in May", key="mum", tags=["family"])
    client = logged_in(owner)
    client.post(f"/app/memories/{anna['id']}/verify/")

    response = client.get(f"/app/memories/{anna['id']}/")
    body = response.content.decode()

    assert response.status_code == 200
    assert [row.action for row in response.context["audit"]] == ["verified", "created"]
    assert response.context["audit"][1].actor.startswith("agent:mk_")
    assert [(m.key, m.shared_tags) for m in response.context["related"]] == [("mum", ["family"])]
    assert 'id="knots"' in body and "Not in the long-term net yet" in body


@pytest.mark.parametrize(
    "path",
    [
        "/app/",
        "/app/minds/{mind}/",
        "/app/minds/{mind}/?q=anna",
        "/app/minds/{mind}/unverified/",
        "/app/minds/{mind}/memories/new/",
        "/app/memories/{memory}/",
        "/app/memories/{memory}/edit/",
    ],
)
def test_every_memory_page_keeps_to_the_content_security_policy(owner, mind, path):
    anna = agent_stores(mind, content="Anna is my sister", key="anna")

    assert_page_keeps_to_its_policy(logged_in(owner).get(path.format(mind=mind.mind.pk, memory=anna["id"])))


# --- An embedder that is down -------------------------------------------------------------------


def test_with_the_embedder_down_search_is_a_503_page_and_storing_a_form_error(owner, mind, fake_server):
    agent_stores(mind, content="Office is in Berlin", key="office")
    fake_server.reply = lambda body: (500, b"out of memory")
    client = logged_in(owner)

    with override_settings(SYNAPSE_EMBEDDER="openai", SYNAPSE_OPENAI_URL=fake_server.url):
        search = client.get(f"/app/minds/{mind.mind.pk}/", {"q": "berlin"})
        store = client.post(
            f"/app/minds/{mind.mind.pk}/memories/new/", {"category": "fact", "content": "new", "priority": "normal"}
        )

    assert search.status_code == 503 and search["Content-Type"].startswith("text/html")
    assert store.status_code == 400
    assert "embedding server" in store.context["form"].non_field_errors()[0].lower()
    assert list(Memory.objects.filter(mind=mind.mind).values_list("key", flat=True)) == ["office"]


def test_the_mind_pages_export_links_download_with_the_browsers_session(reader, mind):
    agent_stores(mind, content="Anna is my sister", key="anna")
    client = logged_in(reader)
    body = client.get(f"/app/minds/{mind.mind.pk}/").content.decode()
    assert f'href="/mind/export?mind={mind.mind.pk}&amp;format=json"' in body

    exported = client.get("/mind/export", {"mind": mind.mind.pk, "format": "json"})
    csv = client.get("/mind/export", {"mind": mind.mind.pk, "format": "csv"})

    assert exported.status_code == 200
    document = json.loads(b"".join(exported.streaming_content))
    assert [memory["key"] for memory in document["memories"]] == ["anna"]
    assert csv.status_code == 200 and "Anna is my sister" in b"".join(csv.streaming_content).decode()


# --- Queries --------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["/app/minds/{mind}/", "/app/minds/{mind}/unverified/"])
def test_a_list_page_runs_the_same_queries_for_one_memory_or_twenty(owner, mind, page):
    client = logged_in(owner)
    url = page.format(mind=mind.mind.pk)
    agent_stores(mind, content="first", key="first")
    client.get(url)  # the session's first read

    with CaptureQueriesContext(connection) as one:
        assert len(client.get(url).context["memories"]) == 1
    for number in range(19):
        agent_stores(mind, content=f"memory {number}", key=f"m{number}", tags=[f"t{number}"])
    with CaptureQueriesContext(connection) as twenty:
        assert len(client.get(url).context["memories"]) == 20

    assert len(twenty.captured_queries) == len(one.captured_queries)
