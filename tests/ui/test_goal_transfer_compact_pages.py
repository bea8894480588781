"""The goals, profile, export & import and compaction pages: the API's access matrix, its rules
and messages on the forms, and the dashboard's cost in queries."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.contrib.messages import get_messages
from django.utils import timezone

from memories.models import Memory
from minds.services import mind_create
from synapses.models import Goal
from tests.conftest import client_with_token
from tests.pages import assert_page_keeps_to_its_policy
from tests.ui.conftest import agent_stores, logged_in

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def _upload(text: str, name: str) -> io.BytesIO:
    upload = io.BytesIO(text.encode())
    upload.name = name
    return upload


# --- access ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["goals", "profile", "transfer"])
def test_a_reader_sees_the_goals_profile_and_export_pages_and_each_keeps_to_the_policy(reader, mind, page):
    response = logged_in(reader).get(f"/app/minds/{mind.mind.pk}/{page}/")

    assert_page_keeps_to_its_policy(response)


def test_a_reader_sees_the_goals_without_a_form_and_cannot_post_one(reader, mind):
    Goal.objects.create(mind=mind.mind, statement="Run a marathon", motivation=0.7)
    client = logged_in(reader)

    page = client.get(f"/app/minds/{mind.mind.pk}/goals/").content.decode()
    refused = client.post(f"/app/minds/{mind.mind.pk}/goals/new/", {"new-statement": "x", "new-motivation": "0.5"})

    assert "Run a marathon" in page and "Add goal" not in page and "Save goal" not in page
    assert refused.status_code == 403
    assert "This needs write access to the mind; you have read access." in refused.content.decode()
    assert Goal.objects.filter(mind=mind.mind).count() == 1


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("compact/", {"older_than": "30d", "max_clusters": 10, "min_cluster_size": 3, "action": "compact"}),
        ("transfer/", {"file": "placeholder"}),
    ],
    ids=["compact", "import"],
)
def test_a_reader_can_neither_compact_nor_import(reader, mind, path, form):
    response = logged_in(reader).post(f"/app/minds/{mind.mind.pk}/{path}", form)

    assert response.status_code == 403 and Memory.objects.filter(mind=mind.mind).count() == 0


@pytest.mark.parametrize("path", ["goals/", "profile/", "transfer/", "compact/"])
def test_an_outsider_finds_none_of_the_pages(outsider, mind, path):
    assert logged_in(outsider).get(f"/app/minds/{mind.mind.pk}/{path}").status_code == 404


def test_a_goal_of_another_mind_cannot_be_changed_through_this_one(owner, mind, other_mind):
    theirs = Goal.objects.create(mind=other_mind.mind, statement="Theirs", motivation=0.5)

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/goals/{theirs.pk}/delete/")

    assert response.status_code == 404 and Goal.objects.filter(pk=theirs.pk).exists()


# --- goals ----------------------------------------------------------------------------------------


def test_a_goal_out_of_range_is_refused_on_its_form_and_nothing_is_stored(owner, mind):
    response = logged_in(owner).post(
        f"/app/minds/{mind.mind.pk}/goals/new/", {"new-statement": "Learn Italian", "new-motivation": "1.5"}
    )

    assert response.status_code == 400
    assert response.context["new_form"].errors == {"motivation": ["Ensure this value is less than or equal to 1.0."]}
    assert not Goal.objects.filter(mind=mind.mind).exists()


def test_a_goal_change_with_a_mistake_shows_it_on_that_goal_and_keeps_the_goal(owner, mind):
    goal = Goal.objects.create(mind=mind.mind, statement="Learn Italian", motivation=0.6)
    prefix = f"goal-{goal.pk}"

    response = logged_in(owner).post(
        f"/app/minds/{mind.mind.pk}/goals/{goal.pk}/", {f"{prefix}-statement": "", f"{prefix}-motivation": "0.9"}
    )

    [shown] = response.context["goals"]
    assert response.status_code == 400 and "statement" in shown.form.errors
    goal.refresh_from_db()
    assert (goal.statement, goal.motivation) == ("Learn Italian", 0.6)


def test_saving_a_goal_says_what_it_is_now(owner, mind):
    goal = Goal.objects.create(mind=mind.mind, statement="Learn Italian", motivation=0.6)
    prefix = f"goal-{goal.pk}"

    response = logged_in(owner).post(
        f"/app/minds/{mind.mind.pk}/goals/{goal.pk}/",
        {f"{prefix}-statement": "Learn Italian", f"{prefix}-motivation": "0.25", f"{prefix}-active": "on"},
    )

    assert _messages(response) == ["Goal “Learn Italian” saved: motivation 0.25, active."]


# --- import ---------------------------------------------------------------------------------------


def test_an_export_imported_into_another_mind_brings_its_memories_and_a_second_import_skips_them(owner, mind):
    agent_stores(mind, content="Anna is my sister", key="anna", tags=["family"])
    client = logged_in(owner)
    exported = b"".join(client.get(f"/mind/export?mind={mind.mind.pk}&format=json").streaming_content).decode()
    target, _ = mind_create(owner=owner.user, name="Copy")

    first = client.post(f"/app/minds/{target.pk}/transfer/", {"file": _upload(exported, "export.json")})
    second = client.post(f"/app/minds/{target.pk}/transfer/", {"file": _upload(exported, "export.json")})

    copied = Memory.objects.get(mind=target)
    assert (copied.key, copied.content, copied.tags) == ("anna", "Anna is my sister", ["family"])
    assert first.status_code == second.status_code == 302
    assert _messages(first) == ["Imported export.json: 1 created, 0 updated, 0 skipped."]
    assert _messages(second)[-1] == "Imported export.json: 0 created, 0 updated, 1 skipped."


def test_an_import_with_one_wrong_memory_imports_nothing_and_names_it(owner, mind):
    lines = [{"category": "fact", "content": "fine"}, {"category": "nonsense", "content": "wrong"}]
    text = "\n".join(json.dumps(line) for line in lines)

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/transfer/", {"file": _upload(text, "two.jsonl")})

    errors = response.context["form"].errors["file"]
    assert response.status_code == 400 and errors[0] == "Nothing was imported:"
    assert errors[1].startswith("memories.1.category: ") and '"nonsense" is not allowed' in errors[1]
    assert not Memory.objects.filter(mind=mind.mind).exists()


@pytest.mark.parametrize(
    ("text", "name", "message"),
    [
        ("{not json", "export.json", "Not JSON: "),
        ('{"format_version": 99, "memories": []}', "export.json", "This server reads export format_version 1"),
        ("", "empty.jsonl", "The submitted file is empty."),
        ("\n\n", "blank.jsonl", "The file holds no memories."),
        ("\xff", "latin.jsonl", ""),
    ],
    ids=["not-json", "other-version", "empty", "blank-lines", "not-utf8"],
)
def test_a_file_that_is_not_an_export_is_refused_saying_why(owner, mind, text, name, message):
    body = text.encode("latin-1") if name == "latin.jsonl" else text.encode()
    upload = io.BytesIO(body)
    upload.name = name

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/transfer/", {"file": upload})

    [error] = response.context["form"].errors["file"]
    assert response.status_code == 400
    assert error.startswith(message or "The file is not UTF-8 text.")


# --- compaction -----------------------------------------------------------------------------------


def _old_tagged_memories(mind, count: int) -> list[str]:
    ids = [
        agent_stores(mind, content=f"Trip note {number}", key=f"trip{number}", tags=["trip"])["id"]
        for number in range(count)
    ]
    Memory.objects.filter(pk__in=ids).update(updated_at=timezone.now() - timedelta(days=40))
    return ids


def test_a_compaction_preview_lists_the_group_and_changes_nothing(owner, mind):
    ids = _old_tagged_memories(mind, 3)
    form = {"older_than": "30d", "category": "", "max_clusters": 10, "min_cluster_size": 3, "action": "preview"}

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/compact/", form)

    [cluster] = response.context["result"].clusters
    assert response.status_code == 200 and sorted(cluster.member_ids) == sorted(ids)
    assert _messages(response) == ["Preview: 1 group of 3 memories would be compacted."]
    assert Memory.objects.filter(mind=mind.mind).count() == 3
    assert not Memory.objects.filter(pk__in=ids, expires_at__isnull=False).exists()


def test_compaction_takes_only_memories_older_than_asked(owner, mind):
    _old_tagged_memories(mind, 3)
    form = {"older_than": "60d", "category": "", "max_clusters": 10, "min_cluster_size": 3, "action": "compact"}

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/compact/", form)

    assert response.context["result"].clusters == []
    assert "No group" in response.content.decode()
    assert not Memory.objects.filter(mind=mind.mind, source="system").exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("older_than", "soon", "'soon' is not a duration."),
        ("min_cluster_size", "1", "Ensure this value is greater than or equal to 2."),
        ("max_clusters", "51", "Ensure this value is less than or equal to 50."),
    ],
)
def test_a_compaction_with_a_wrong_parameter_is_refused_under_it(owner, mind, field, value, message):
    form = {"older_than": "30d", "category": "", "max_clusters": 10, "min_cluster_size": 3, "action": "compact"}

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/compact/", {**form, field: value})

    assert response.status_code == 400
    assert response.context["form"].errors[field][0].startswith(message)


# --- the dashboard's queries ----------------------------------------------------------------------

# What one dashboard costs, whatever the number of minds: the session and its user (2), the
# minds (1), the memories' counts of every mind with the pending ones (1), the net's parked and
# last promotion of every mind (2), the last decay run (1), the worker's heartbeat (1: django-q2
# reads its cache, a database table), and the request's pipeline-log rows (3: a savepoint around one COPY).
DASHBOARD_QUERIES = 11


@pytest.mark.parametrize("minds", [1, 5])
def test_the_dashboard_costs_the_same_queries_for_one_mind_and_for_five(owner, django_assert_num_queries, minds):
    for number in range(minds):
        made, issued = mind_create(owner=owner.user, name=f"Mind {number}")
        agent_stores(SimpleNamespace(agent=client_with_token(issued.plaintext)), content="Anna", key="anna")
    client = logged_in(owner)

    with django_assert_num_queries(DASHBOARD_QUERIES):
        response = client.get("/app/")

    assert len(response.context["own"]) == minds
    assert {row["numbers"]["pending_promotion"] for row in response.context["own"]} == {1}


def test_the_dashboard_shows_the_numbers_the_api_answers_for_each_mind(owner, mind, other_mind):
    from synapses.promotion.service import memories_promote

    agent_stores(mind, content="Anna is my sister", key="anna")
    agent_stores(mind, content="Bob is my brother", key="bob")
    expired = agent_stores(mind, content="Old plan", key="plan")
    Memory.objects.filter(pk=expired["id"]).update(expires_at=timezone.now() - timedelta(days=1))
    memories_promote(mind_id=mind.mind.pk, now_all=True, limit=1)  # one of the two current ones
    agent_stores(other_mind, content="Not mine", key="theirs")

    [row] = logged_in(owner).get("/app/").context["own"]
    stats = owner.client.get(f"/memory/stats?mind={mind.mind.pk}").json()
    health = owner.client.get(f"/memory/health?mind={mind.mind.pk}").json()

    numbers = row["numbers"]
    assert (numbers["active"], numbers["expired"], numbers["unverified"]) == (2, 1, 3)
    assert (numbers["active"], numbers["expired"], numbers["unverified"]) == (
        stats["active"], stats["expired"], stats["unverified"],
    )  # fmt: skip
    assert numbers["pending_promotion"] == health["pending_promotion"] == 1
    assert numbers["parked"] == health["parked"] == 0
    assert numbers["last_promotion_at"] is not None
    assert numbers["last_promotion_at"].isoformat().replace("+00:00", "Z") == health["last_promotion_at"]


def test_a_goal_id_beyond_bigint_is_not_found_not_a_database_error(owner, mind):
    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/goals/{'9' * 30}/delete/")

    assert response.status_code == 404


def test_the_compaction_page_and_its_answer_keep_to_the_policy(owner, mind):
    client = logged_in(owner)
    form = {"older_than": "30d", "category": "", "max_clusters": 10, "min_cluster_size": 3, "action": "preview"}

    assert_page_keeps_to_its_policy(client.get(f"/app/minds/{mind.mind.pk}/compact/"))
    assert_page_keeps_to_its_policy(client.post(f"/app/minds/{mind.mind.pk}/compact/", form))
