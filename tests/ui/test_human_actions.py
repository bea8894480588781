"""Every human action of the API has a page or a form in the UI: one test per row of the table
"API action → UI page or form" in docs/ui.md, each sending the page's own form (a plain POST or
GET, as a browser without JavaScript sends it) and reading the database afterwards.

The table and the cases below name the same actions; a test holds them to that.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from memories.models import EMBEDDING_DIMENSIONS, Memory
from minds.models import Mind, MindKey, MindShare
from synapses.models import Entity, Goal, Knot
from synapses.upkeep.discovery import discovery_get
from tests.factories import knot_make
from tests.ui.conftest import agent_stores, logged_in
from tests.vectors import axis

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[2] / "docs" / "ui.md"
TABLE_HEADING = "## API action → UI page or form"


@dataclass
class Cast:
    request: pytest.FixtureRequest
    owner: object
    mind: object  # tests.conftest.MindWithKey
    client: Client  # the owner, logged in by session

    @property
    def mind_id(self) -> str:
        return self.mind.mind.pk

    def memory(self, **fields) -> str:
        return agent_stores(self.mind, **{"content": "Anna is my sister", "key": "anna", **fields})["id"]


CASES: dict[str, Callable[[Cast], None]] = {}


def case(action: str):
    """Register the test of one table row, named by its API action as the table writes it."""

    def register(function: Callable[[Cast], None]) -> Callable[[Cast], None]:
        CASES[action] = function
        return function

    return register


def _page(response, status: int = 200) -> str:
    assert response.status_code == status, response.content[:2000]
    return response.content.decode()


# --- accounts -------------------------------------------------------------------------------------


@case("POST /register")
def _register(cast: Cast) -> None:
    client = Client()
    password = "Lovelace-notes-1843"
    response = client.post("/accounts/register/", {"email": "Ada@Example.com", "password": password,
                                                   "password_again": password})  # fmt: skip
    assert response.status_code == 302
    assert client.get("/app/").context["user"].email == "ada@example.com"


@case("POST /login")
def _login(cast: Cast) -> None:
    client = Client()
    response = client.post(
        "/accounts/login/", {"username": "owner@example.com", "password": "correct horse battery staple 42"}
    )
    assert response.status_code == 302 and client.get("/app/").status_code == 200


# --- minds, keys, shares --------------------------------------------------------------------------


@case("GET /minds, GET /minds/shared, GET /memory/stats, GET /memory/health")
def _dashboard(cast: Cast) -> None:
    cast.memory()
    body = _page(cast.client.get("/app/"))
    assert escape(cast.mind.mind.name) in body and 'data-label="Unverified"' in body


@case("POST /minds")
def _mind_create(cast: Cast) -> None:
    body = _page(cast.client.post("/app/minds/new/", {"name": "Travel", "description": "trips"}), 201)
    mind = Mind.objects.get(owner=cast.owner.user, name="Travel")
    assert mind.description == "trips" and MindKey.objects.filter(mind=mind).count() == 1
    assert 'id="mind-key"' in body


@case("PATCH /minds/{id}")
def _mind_rename(cast: Cast) -> None:
    response = cast.client.post(f"/app/minds/{cast.mind_id}/rename/", {"name": "Renamed", "description": "new"})
    assert response.status_code == 302
    assert Mind.objects.values_list("name", "description").get(pk=cast.mind_id) == ("Renamed", "new")


@case("DELETE /minds/{id}")
def _mind_delete(cast: Cast) -> None:
    response = cast.client.post(f"/app/minds/{cast.mind_id}/delete/", {"confirm_name": cast.mind.mind.name})
    assert response.status_code == 302 and not Mind.objects.filter(pk=cast.mind_id).exists()


@case("GET /minds/{id}/keys")
def _keys_list(cast: Cast) -> None:
    key = MindKey.objects.get(mind_id=cast.mind_id)
    body = _page(cast.client.get(f"/app/minds/{cast.mind_id}/keys/"))
    assert f"{key.prefix}…" in body and cast.mind.key not in body


@case("POST /minds/{id}/keys")
def _key_issue(cast: Cast) -> None:
    _page(cast.client.post(f"/app/minds/{cast.mind_id}/keys/new/", {"label": "phone"}), 201)
    assert MindKey.objects.filter(mind_id=cast.mind_id, label="phone", revoked_at__isnull=True).count() == 1


@case("DELETE /minds/{id}/keys/{key_id}")
def _key_revoke(cast: Cast) -> None:
    key = MindKey.objects.get(mind_id=cast.mind_id)
    assert cast.client.post(f"/app/minds/{cast.mind_id}/keys/{key.pk}/revoke/").status_code == 302
    key.refresh_from_db()
    assert key.revoked_at is not None


@case("POST /minds/{id}/share")
def _share_create(cast: Cast) -> None:
    outsider = cast.request.getfixturevalue("outsider")
    response = cast.client.post(f"/app/minds/{cast.mind_id}/shares/new/",
                                {"user_email": "outsider@example.com", "acl": "write"})  # fmt: skip
    assert response.status_code == 302
    assert MindShare.objects.get(mind_id=cast.mind_id, user=outsider.user).acl == "write"


@case("GET /minds/{id}/shares")
def _shares_list(cast: Cast) -> None:
    cast.request.getfixturevalue("reader")
    assert "reader@example.com" in _page(cast.client.get(f"/app/minds/{cast.mind_id}/keys/"))


@case("PUT /minds/{id}/shares/{share_id}")
def _share_change(cast: Cast) -> None:
    reader = cast.request.getfixturevalue("reader")
    share = MindShare.objects.get(mind_id=cast.mind_id, user=reader.user)
    assert cast.client.post(f"/app/minds/{cast.mind_id}/shares/{share.pk}/", {"acl": "admin"}).status_code == 302
    share.refresh_from_db()
    assert share.acl == "admin"


@case("DELETE /minds/{id}/shares/{share_id}")
def _share_end(cast: Cast) -> None:
    reader = cast.request.getfixturevalue("reader")
    share = MindShare.objects.get(mind_id=cast.mind_id, user=reader.user)
    assert cast.client.post(f"/app/minds/{cast.mind_id}/shares/{share.pk}/delete/").status_code == 302
    assert not MindShare.objects.filter(pk=share.pk).exists()


# --- memories -------------------------------------------------------------------------------------


@case("GET /memory")
def _memory_list(cast: Cast) -> None:
    cast.memory()
    cast.memory(content="Bob is my brother", key="bob", category="identity")
    body = _page(cast.client.get(f"/app/minds/{cast.mind_id}/", {"category": "identity"}))
    assert "Bob is my brother" in body and "Anna is my sister" not in body


@case("GET /memory/search")
def _memory_search(cast: Cast) -> None:
    cast.memory()
    cast.memory(content="The car is blue", key="car")
    response = cast.client.get(f"/app/minds/{cast.mind_id}/", {"q": "sister"})
    assert [memory.key for memory in response.context["memories"]] == ["anna"]


@case("GET /memory/unverified")
def _review_queue(cast: Cast) -> None:
    memory_id = cast.memory()
    assert f'data-memory="{memory_id}"' in _page(cast.client.get(f"/app/minds/{cast.mind_id}/unverified/"))


@case("GET /memory/{id}, GET /memory/audit")
def _memory_detail(cast: Cast) -> None:
    memory_id = cast.memory()
    body = _page(cast.client.get(f"/app/memories/{memory_id}/"))
    assert "Anna is my sister" in body and "created" in body


@case("POST /memory")
def _memory_create(cast: Cast) -> None:
    form = {"category": "fact", "content": "Likes tea", "key": "tea", "priority": "normal"}
    response = cast.client.post(f"/app/minds/{cast.mind_id}/memories/new/", form)
    assert response.status_code == 302
    memory = Memory.objects.get(mind_id=cast.mind_id, key="tea")
    assert (memory.content, memory.source, memory.verified) == ("Likes tea", "user", True)


@case("PATCH /memory/{id}")
def _memory_edit(cast: Cast) -> None:
    memory_id = cast.memory()
    form = {"category": "fact", "key": "anna", "content": "Anna is my older sister", "priority": "normal", "tags": ""}
    assert cast.client.post(f"/app/memories/{memory_id}/edit/", form).status_code == 302
    assert Memory.objects.get(pk=memory_id).content == "Anna is my older sister"


@case("DELETE /memory/{id}")
def _memory_delete(cast: Cast) -> None:
    memory_id = cast.memory()
    assert cast.client.post(f"/app/memories/{memory_id}/delete/").status_code == 302
    assert not Memory.objects.filter(pk=memory_id).exists()


@case("DELETE /memory/{id}/versions")
def _memory_versions_purge(cast: Cast) -> None:
    memory_id = cast.memory()
    old = Memory.objects.get(pk=memory_id)
    knot_make(memory=old, linked=True)  # the version before the edit, held by the net
    Memory.objects.filter(pk=memory_id).update(content="Anna is my older sister", content_hash="0" * 64)
    assert cast.client.post(f"/app/memories/{memory_id}/versions/purge/").status_code == 302
    assert not Knot.objects.filter(memory_id=memory_id).exists()


@case("POST /memory/{id}/verify")
def _memory_verify(cast: Cast) -> None:
    memory_id = cast.memory()
    assert cast.client.post(f"/app/memories/{memory_id}/verify/").status_code == 302
    assert Memory.objects.get(pk=memory_id).verified is True


@case("POST /memory/{id}/unverify")
def _memory_unverify(cast: Cast) -> None:
    memory_id = cast.memory()
    cast.client.post(f"/app/memories/{memory_id}/verify/")
    assert cast.client.post(f"/app/memories/{memory_id}/unverify/").status_code == 302
    assert Memory.objects.get(pk=memory_id).verified is False


@case("POST /memory/{id}/verify, for many at once")
def _bulk_verify(cast: Cast) -> None:
    ids = [cast.memory(key=f"k{number}", content=f"fact {number}") for number in range(3)]
    response = cast.client.post(f"/app/minds/{cast.mind_id}/verify/", {"memory": ids[:2]})
    assert response.status_code == 302
    assert dict(Memory.objects.filter(pk__in=ids).values_list("pk", "verified")) == {
        ids[0]: True, ids[1]: True, ids[2]: False,
    }  # fmt: skip


@case("GET /mind/export")
def _export(cast: Cast) -> None:
    cast.memory()
    body = _page(cast.client.get(f"/app/minds/{cast.mind_id}/transfer/"))
    link = re.search(r'href="(/mind/export\?mind=[^"]+format=json)"', body).group(1).replace("&amp;", "&")
    exported = json.loads(b"".join(cast.client.get(link).streaming_content))
    assert [memory["content"] for memory in exported["memories"]] == ["Anna is my sister"]


@case("POST /mind/import")
def _import(cast: Cast) -> None:
    row = {"category": "fact", "key": "imported", "content": "Came from a file", "source": "user"}
    upload = io.BytesIO((json.dumps(row) + "\n").encode())
    upload.name = "memories.jsonl"
    response = cast.client.post(f"/app/minds/{cast.mind_id}/transfer/", {"file": upload})
    assert response.status_code == 302
    assert Memory.objects.get(mind_id=cast.mind_id, key="imported").content == "Came from a file"


@case("POST /memory/compact")
def _compact(cast: Cast) -> None:
    ids = [cast.memory(key=f"trip{number}", content=f"Trip note {number}", tags=["trip"]) for number in range(3)]
    Memory.objects.filter(pk__in=ids).update(updated_at=timezone.now() - timedelta(days=40))
    form = {"older_than": "30d", "category": "", "max_clusters": 10, "min_cluster_size": 3, "action": "compact"}
    _page(cast.client.post(f"/app/minds/{cast.mind_id}/compact/", form))
    summary = Memory.objects.get(mind_id=cast.mind_id, source="system")
    assert sorted(summary.attributes["compacted_from"]) == sorted(ids)
    assert Memory.objects.filter(pk__in=ids, expires_at__lte=timezone.now()).count() == 3


# --- the net: goals and profile -------------------------------------------------------------------


@case("GET /synapses/goals")
def _goals_list(cast: Cast) -> None:
    Goal.objects.create(mind_id=cast.mind_id, statement="Run a marathon", motivation=0.7)
    assert "Run a marathon" in _page(cast.client.get(f"/app/minds/{cast.mind_id}/goals/"))


@case("POST /synapses/goals")
def _goal_create(cast: Cast) -> None:
    form = {"new-statement": "  Learn Italian ", "new-motivation": "0.6", "new-active": "on"}
    assert cast.client.post(f"/app/minds/{cast.mind_id}/goals/new/", form).status_code == 302
    goal = Goal.objects.get(mind_id=cast.mind_id)
    assert (goal.statement, goal.motivation, goal.active) == ("Learn Italian", 0.6, True)
    assert goal.embedding is not None


@case("PATCH /synapses/goals/{id}")
def _goal_change(cast: Cast) -> None:
    goal = Goal.objects.create(mind_id=cast.mind_id, statement="Learn Italian", motivation=0.6)
    prefix = f"goal-{goal.pk}"
    form = {f"{prefix}-statement": "Learn Spanish", f"{prefix}-motivation": "0.9"}  # the box unticked: inactive
    assert cast.client.post(f"/app/minds/{cast.mind_id}/goals/{goal.pk}/", form).status_code == 302
    goal.refresh_from_db()
    assert (goal.statement, goal.motivation, goal.active) == ("Learn Spanish", 0.9, False)


@case("DELETE /synapses/goals/{id}")
def _goal_delete(cast: Cast) -> None:
    goal = Goal.objects.create(mind_id=cast.mind_id, statement="Learn Italian", motivation=0.6)
    assert cast.client.post(f"/app/minds/{cast.mind_id}/goals/{goal.pk}/delete/").status_code == 302
    assert not Goal.objects.filter(pk=goal.pk).exists()


@case("GET /minds/{id}/profile")
def _profile(cast: Cast) -> None:
    strong = knot_make(mind=cast.mind.mind, weight_anchor=6.0, embedding=axis(EMBEDDING_DIMENSIONS - 1))
    Knot.objects.filter(pk=strong.pk).update(content="Is called Michael", category="identity")
    body = _page(cast.client.get(f"/app/minds/{cast.mind_id}/profile/"))
    assert "Is called Michael" in body and "identity" in body


# --- the net ----------------------------------------------------------------------------------------


@case("GET /synapses/entities")
def _entities_list(cast: Cast) -> None:
    Entity.objects.create(mind=cast.mind.mind, name="Anna", aliases=["Annie"])
    body = _page(cast.client.get(f"/app/minds/{cast.mind_id}/entities/"))
    assert "Anna" in body and "Annie" in body


@case("POST /synapses/entities")
def _entity_create(cast: Cast) -> None:
    response = cast.client.post(f"/app/minds/{cast.mind_id}/entities/", {"name": "Berlin", "aliases": "Berlin city"})
    assert response.status_code == 302
    assert Entity.objects.values_list("name", "aliases").get(mind_id=cast.mind_id) == ("Berlin", ["Berlin city"])


@case("PATCH /synapses/entities/{id}")
def _entity_rename(cast: Cast) -> None:
    anna = Entity.objects.create(mind=cast.mind.mind, name="Anna")
    response = cast.client.post(f"/app/minds/{cast.mind_id}/entities/{anna.pk}/", {"name": "Hanna", "aliases": "Anna"})
    assert response.status_code == 302
    anna.refresh_from_db()
    assert (anna.name, anna.aliases) == ("Hanna", ["Anna"])


@case("POST /synapses/entities/{id}/merge")
def _entity_merge(cast: Cast) -> None:
    anna = Entity.objects.create(mind=cast.mind.mind, name="Anna")
    schmidt = Entity.objects.create(mind=cast.mind.mind, name="Schmidt")
    response = cast.client.post(f"/app/minds/{cast.mind_id}/entities/merge/", {"entity": anna.pk, "into": schmidt.pk})
    assert response.status_code == 302
    assert list(Entity.objects.filter(mind_id=cast.mind_id).values_list("name", flat=True)) == ["Schmidt"]
    assert "Anna" in Entity.objects.get(pk=schmidt.pk).aliases


@case("DELETE /synapses/entities/{id}")
def _entity_delete(cast: Cast) -> None:
    anna = Entity.objects.create(mind=cast.mind.mind, name="Anna", aliases=["Annie"])
    response = cast.client.post(f"/app/minds/{cast.mind_id}/entities/{anna.pk}/delete/")
    assert response.status_code == 302
    assert not Entity.objects.filter(mind_id=cast.mind_id).exists()
    assert discovery_get(Mind.objects.get(pk=cast.mind_id)).ignored == ["anna", "annie"]


@case("GET/PATCH /synapses/discovery")
def _discovery(cast: Cast) -> None:
    assert "Entity discovery" in _page(cast.client.get(f"/app/minds/{cast.mind_id}/entities/"))
    response = cast.client.post(f"/app/minds/{cast.mind_id}/entities/discovery/", {"ignored": "Siemens"})
    assert response.status_code == 302
    setting = discovery_get(Mind.objects.get(pk=cast.mind_id))
    assert (setting.enabled, setting.ignored) == (False, ["siemens"])  # an unticked box switches it off


@case("GET /memory/recall")
def _recall(cast: Cast) -> None:
    cast.memory(content="Anna is my sister and lives in Berlin")
    body = _page(cast.client.get(f"/app/minds/{cast.mind_id}/recall/", {"q": "Where does Anna live?"}))
    assert "Anna is my sister and lives in Berlin" in body


@case("GET /memory/graph")
def _graph(cast: Cast) -> None:
    knot = knot_make(mind=cast.mind.mind, weight_anchor=3.0, embedding=axis(EMBEDDING_DIMENSIONS - 1))
    response = cast.client.get(f"/app/minds/{cast.mind_id}/net/data/")
    assert response.status_code == 200, response.content[:500]
    assert knot.pk in [node["id"] for node in response.json()["nodes"]]
    assert 'id="net"' in _page(cast.client.get(f"/app/minds/{cast.mind_id}/net/"))


# --- the log --------------------------------------------------------------------------------------


@case("GET /log, GET /log/turns/{turn_id}")
def _log(cast: Cast) -> None:
    memory_id = cast.memory()
    turn_id = Memory.objects.get(pk=memory_id).turn_id
    assert turn_id in _page(cast.client.get("/app/log/"))
    assert "Anna is my sister" in _page(cast.client.get(f"/app/log/{turn_id}/"))


# --- the tests ------------------------------------------------------------------------------------


def _table_actions() -> list[str]:
    """The first cell of each row of docs/ui.md's table, its backticked API actions joined."""
    lines = DOCS.read_text().split(TABLE_HEADING, 1)[1].splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("| API action"))
    rows = []
    for line in lines[start + 2 :]:  # after the header and its rule
        if not line.startswith("|"):
            break
        rows.append(line)
    return [", ".join(re.findall(r"`([^`]+)`", row.split("|")[1])) for row in rows]


def test_the_docs_table_and_the_tests_name_the_same_actions():
    assert sorted(_table_actions()) == sorted(CASES)


@pytest.mark.parametrize("action", list(CASES))
def test_the_ui_does_the_api_action(request, owner, mind, action):
    CASES[action](Cast(request=request, owner=owner, mind=mind, client=logged_in(owner)))
