"""GET /minds/{id}/profile: the strongest durable memories of what the user said, by category."""

from __future__ import annotations

import pytest

from memories.models import EMBEDDING_DIMENSIONS
from synapses.models import Knot
from synapses.net.selectors.knots import PROFILE_MAX_KNOTS
from tests.factories import knot_make
from tests.vectors import axis

pytestmark = pytest.mark.django_db


def knot(mind, content, *, anchor, category="fact", observer="user", count=1, active=True) -> Knot:
    made = knot_make(mind=mind, weight_anchor=anchor, is_active=active, embedding=axis(EMBEDDING_DIMENSIONS - 1))
    Knot.objects.filter(pk=made.pk).update(content=content, category=category, observer=observer,
                                           activation_count=count)  # fmt: skip
    return made


@pytest.fixture
def profiled(the_mind):
    knot(the_mind, "Prefers short answers", anchor=4.0, category="preference")
    knot(the_mind, "Is called Michael", anchor=6.0, category="identity")
    knot(the_mind, "Lives in Berlin", anchor=4.0, category="fact", count=3)
    knot(the_mind, "Works at ACME", anchor=4.0, category="fact", count=1)
    knot(the_mind, "The agent said hello", anchor=9.0, observer="agent")
    knot(the_mind, "Faded fact", anchor=9.5, active=False)
    return the_mind


def test_the_profile_groups_the_user_s_active_knots_strongest_first(owner, profiled):
    response = owner.client.get(f"/minds/{profiled.pk}/profile")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["mind_id"], body["count"]) == (profiled.pk, 4)
    # identity (6.0) first; then fact, whose strongest knot (4.0, 3 activations) comes before preference's
    # (4.0, 1 activation); inside fact the equal anchors go by activation count.
    assert [(group["category"], [k["content"] for k in group["knots"]]) for group in body["categories"]] == [
        ("identity", ["Is called Michael"]),
        ("fact", ["Lives in Berlin", "Works at ACME"]),
        ("preference", ["Prefers short answers"]),
    ]


def test_the_profile_as_text_lists_each_category_with_its_memories(owner, profiled):
    response = owner.client.get(f"/minds/{profiled.pk}/profile", {"format": "text"})
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == (
        f"Profile of {profiled.name}: 4 durable memories of what the user said.\n"
        "\n"
        "identity\n"
        "  - Is called Michael\n"
        "fact\n"
        "  - Lives in Berlin\n"
        "  - Works at ACME\n"
        "preference\n"
        "  - Prefers short answers\n"
    )


def test_an_empty_net_has_an_empty_profile(owner, the_mind):
    assert owner.client.get(f"/minds/{the_mind.pk}/profile").json() == {
        "mind_id": the_mind.pk,
        "count": 0,
        "categories": [],
    }
    text = owner.client.get(f"/minds/{the_mind.pk}/profile", {"format": "text"}).content.decode()
    assert text == f"Profile of {the_mind.name}: nothing durable the user said yet.\n"


def test_the_profile_holds_at_most_fifty_knots(owner, the_mind):
    for index in range(PROFILE_MAX_KNOTS + 2):
        knot(the_mind, f"fact {index}", anchor=1.0 + index / 100)
    body = owner.client.get(f"/minds/{the_mind.pk}/profile").json()
    assert body["count"] == 50
    assert body["categories"][0]["knots"][0]["content"] == "fact 51"


def test_a_reader_may_read_the_profile_an_outsider_gets_404_and_a_mind_key_403(reader, outsider, mind):
    assert reader.client.get(f"/minds/{mind.mind.pk}/profile").status_code == 200
    assert outsider.client.get(f"/minds/{mind.mind.pk}/profile", {"format": "bogus"}).status_code == 404
    assert mind.agent.get(f"/minds/{mind.mind.pk}/profile").status_code == 403


@pytest.mark.parametrize(("params", "field"), [({"format": "xml"}, "format"), ({"limit": "5"}, "limit")])
def test_a_bad_profile_parameter_answers_400_naming_it(owner, the_mind, params, field):
    response = owner.client.get(f"/minds/{the_mind.pk}/profile", params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
