"""Goals CRUD: GET/POST /synapses/goals, GET/PATCH/DELETE /synapses/goals/{id}."""

from __future__ import annotations

import numpy as np
import pytest

from memories.embedders import get_embedder
from synapses.models import Goal

pytestmark = pytest.mark.django_db


def goal_post(client, body, **query):
    return client.post("/synapses/goals" + (f"?mind={query['mind']}" if query else ""), body, format="json")


def test_a_new_goal_is_stored_with_the_embedding_of_its_statement(mind):
    response = goal_post(mind.agent, {"statement": "Run a marathon in spring", "motivation": 0.8})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["statement"], body["motivation"], body["active"]) == ("Run a marathon in spring", 0.8, True)
    goal = Goal.objects.get(pk=body["id"])
    expected = get_embedder().embed(["Run a marathon in spring"])[0]
    assert float(np.dot(np.asarray(goal.embedding), expected)) == pytest.approx(1.0, abs=1e-5)
    assert goal.embedding_model == get_embedder().name == body["embedding_model"]


def test_goals_are_listed_most_motivated_first_and_filtered_by_active(mind):
    for statement, motivation, active in [("a", 0.2, True), ("b", 0.9, True), ("c", 0.5, False)]:
        goal_post(mind.agent, {"statement": statement, "motivation": motivation, "active": active})
    body = mind.agent.get("/synapses/goals").json()
    assert (body["count"], [goal["statement"] for goal in body["results"]]) == (3, ["b", "c", "a"])
    active = mind.agent.get("/synapses/goals", {"active": "true"}).json()
    assert [goal["statement"] for goal in active["results"]] == ["b", "a"]


def test_patching_the_statement_embeds_it_again_and_other_fields_stay(mind):
    goal_id = goal_post(mind.agent, {"statement": "Learn Italian", "motivation": 0.4}).json()["id"]
    response = mind.agent.patch(f"/synapses/goals/{goal_id}", {"statement": "Learn Spanish"}, format="json")
    assert response.status_code == 200
    assert (response.json()["statement"], response.json()["motivation"]) == ("Learn Spanish", 0.4)
    stored = np.asarray(Goal.objects.get(pk=goal_id).embedding)
    assert float(np.dot(stored, get_embedder().embed(["Learn Spanish"])[0])) == pytest.approx(1.0, abs=1e-5)


def test_a_goal_can_be_switched_off_and_deleted(mind):
    goal_id = goal_post(mind.agent, {"statement": "Sleep more", "motivation": 1.0}).json()["id"]
    assert mind.agent.patch(f"/synapses/goals/{goal_id}", {"active": False}, format="json").json()["active"] is False
    assert mind.agent.delete(f"/synapses/goals/{goal_id}").status_code == 204
    assert not Goal.objects.filter(pk=goal_id).exists()
    assert mind.agent.get(f"/synapses/goals/{goal_id}").status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"motivation": 0.5}, "statement"),
        ({"statement": "x"}, "motivation"),
        ({"statement": "x", "motivation": 1.5}, "motivation"),
        ({"statement": "x", "motivation": -0.1}, "motivation"),
        ({"statement": "x", "motivation": "high"}, "motivation"),
        ({"statement": "", "motivation": 0.5}, "statement"),
        ({"statement": "x", "motivation": 0.5, "active": "yes"}, "active"),
        ({"statement": "x", "motivation": 0.5, "priority": 1}, "priority"),
    ],
)
def test_a_bad_goal_answers_400_naming_the_field(mind, body, field):
    response = goal_post(mind.agent, body)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_another_mind_s_goal_is_404_for_read_patch_and_delete(mind, other_mind):
    goal_id = goal_post(other_mind.agent, {"statement": "theirs", "motivation": 0.5}).json()["id"]
    assert mind.agent.get(f"/synapses/goals/{goal_id}").status_code == 404
    assert mind.agent.patch(f"/synapses/goals/{goal_id}", {"motivation": 2}, format="json").status_code == 404
    assert mind.agent.delete(f"/synapses/goals/{goal_id}").status_code == 404
    assert Goal.objects.filter(pk=goal_id).exists()


def test_a_reader_sees_goals_but_cannot_write_them(reader, mind):
    goal_post(mind.agent, {"statement": "shared", "motivation": 0.5})
    assert reader.client.get("/synapses/goals", {"mind": mind.mind.pk}).json()["count"] == 1
    response = goal_post(reader.client, {"statement": "mine", "motivation": 0.5}, mind=mind.mind.pk)
    assert response.status_code == 403


def test_a_goal_id_too_long_for_the_database_is_simply_not_found(mind):
    assert mind.agent.get("/synapses/goals/99999999999999999999").status_code == 404


def test_patching_one_field_of_an_inactive_goal_leaves_it_inactive(mind):
    goal_id = goal_post(mind.agent, {"statement": "Paused", "motivation": 0.3, "active": False}).json()["id"]
    body = mind.agent.patch(f"/synapses/goals/{goal_id}", {"motivation": 0.6}, format="json").json()
    assert (body["motivation"], body["active"]) == (0.6, False)
