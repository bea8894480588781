"""Errors, health and the request-level rules every endpoint shares."""

import json

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client

from memories.selectors.system import HEALTH_STATS_CACHE_KEY

pytestmark = pytest.mark.django_db


def test_health_reports_database_ok_and_worker_down_without_a_cluster(api):
    response = api.get("/health")
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "ok"
    assert body["worker"] == "down"
    assert body["status"] == "degraded"


def test_unknown_path_answers_json_404(api):
    response = api.get("/no/such/place")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_body_over_one_mebibyte_answers_413(api):
    body = json.dumps({"email": "x" * (2 * 1024 * 1024)})
    response = api.post("/health", data=body, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


def test_the_landing_page_gives_agents_a_plain_text_guide(api):
    response = api.get("/", HTTP_ACCEPT="text/plain")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert "GET /memory/recall" in response.content.decode()


@pytest.mark.parametrize("mind_id", ["m_%00", "m_abc%00def", "x" * 500, "m_" + "a" * 100])
def test_a_mind_id_that_cannot_exist_answers_404_not_500(owner, mind_id):
    response = owner.client.get(f"/memory?mind={mind_id}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_nul_in_the_x_mind_header_answers_404(owner):
    response = owner.client.get("/memory", HTTP_X_MIND="m_ab\x00cd")
    assert response.status_code == 404


def test_anonymous_health_says_only_up_or_down_per_component(api, owner, mind):
    mind.agent.post("/memory", {"category": "fact", "content": "x"}, format="json")

    anonymous = api.get("/health").json()
    a_user = owner.client.get("/health").json()  # a JWT of a non-staff account: the same

    assert anonymous == {"status": "degraded", "database": "ok", "worker": "down"}
    assert a_user == anonymous


def test_a_staff_session_gets_the_version_and_the_counts(staff, mind):
    mind.agent.post("/memory", {"category": "fact", "content": "x"}, format="json")

    body = staff.get("/health").json()

    assert body["version"] == settings.VERSION
    # users: the owner and the staff account
    assert body["stats"] == {"users": 2, "minds": 1, "memories": 1, "knots": 0, "knots_active": 0, "edges": 0}


def test_a_non_staff_session_gets_no_counts(owner, api):
    session = Client()
    session.force_login(owner.user)

    assert set(session.get("/health").json()) == {"status", "database", "worker"}


def test_health_counts_are_refreshed_at_most_once_a_minute(staff, mind):
    assert staff.get("/health").json()["stats"]["memories"] == 0
    mind.agent.post("/memory", {"category": "fact", "content": "x"}, format="json")
    assert staff.get("/health").json()["stats"]["memories"] == 0  # still the cached count
    cache.delete(HEALTH_STATS_CACHE_KEY)
    assert staff.get("/health").json()["stats"]["memories"] == 1
