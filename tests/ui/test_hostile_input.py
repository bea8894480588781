"""No input makes a UI page answer 500: NUL characters, control characters, ids that are not ids,
redirect targets with line breaks. Each is refused on its form, or is simply not found."""

from __future__ import annotations

import pytest

from memories.models import Memory
from tests.ui.conftest import agent_stores, logged_in

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "query",
    [{"q": "an\x00na"}, {"tag": "fa\x00mily"}, {"page": "x"}, {"page": "-1"}, {"verified": "maybe"}, {"page": "99999"}],
)
def test_the_mind_page_answers_bad_filters_without_a_500(owner, mind, query):
    agent_stores(mind, content="Anna", key="anna")

    response = logged_in(owner).get(f"/app/minds/{mind.mind.pk}/", query)

    assert response.status_code in (200, 400)
    if response.status_code == 400:
        assert response.context["form"].errors


@pytest.mark.parametrize("turn_id", ["a%00b", "line%0Abreak", "%7F"])
def test_a_turn_id_with_control_characters_is_not_found(owner, mind, turn_id):
    assert logged_in(owner).get(f"/app/log/{turn_id}/").status_code == 404


@pytest.mark.parametrize("mind_param", ["m_\x00", "x" * 5000, "not-a-mind"])
def test_a_log_page_naming_no_real_mind_is_not_found(owner, mind_param):
    assert logged_in(owner).get("/app/log/", {"mind": mind_param}).status_code == 404


@pytest.mark.parametrize("memory_id", ["mem_\x00", "'; DROP TABLE x; --", "mem_" + "a" * 200])
def test_bulk_verify_of_something_that_is_no_memory_id_is_refused_with_a_message(owner, mind, memory_id):
    agent_stores(mind, content="Anna", key="anna")

    response = logged_in(owner).post(f"/app/minds/{mind.mind.pk}/verify/", {"memory": [memory_id]})

    assert response.status_code == 302
    assert not Memory.objects.filter(verified=True).exists()


@pytest.mark.parametrize("target", ["/app/\nSet-Cookie: x=y", "/app/\x00", "//evil.example/", "javascript:alert(1)"])
def test_a_hostile_next_falls_back_to_the_memory_page(owner, mind, target):
    anna = agent_stores(mind, content="Anna", key="anna")

    response = logged_in(owner).post(f"/app/memories/{anna['id']}/verify/", {"next": target})

    assert response.status_code == 302
    assert response["Location"] == f"/app/memories/{anna['id']}/"


def test_a_memory_form_with_a_nul_in_the_content_is_a_form_error(owner, mind):
    response = logged_in(owner).post(
        f"/app/minds/{mind.mind.pk}/memories/new/", {"category": "fact", "content": "a\x00b", "priority": "normal"}
    )

    assert response.status_code == 400
    assert response.context["form"].errors["content"] == ["Null characters are not allowed."]
