"""The log pages: recent turns of my minds, and one turn as spans with readable rows."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.test import Client

from pipelinelog.models import LogEntry
from tests.pages import assert_page_keeps_to_its_policy
from tests.ui.conftest import logged_in

pytestmark = pytest.mark.django_db


def _store(mind, turn_id: str, content: str):
    response = mind.agent.post(
        "/memory", {"category": "fact", "content": content}, format="json", HTTP_X_TURN_ID=turn_id
    )
    assert response.status_code == 201


def test_the_log_page_lists_recent_turns_of_the_minds_i_can_read(reader, mind, other_mind):
    _store(mind, "turn-mine", "Anna is my sister")
    _store(other_mind, "turn-theirs", "secret of someone else")

    response = logged_in(reader).get("/app/log/")

    turns = [item["turn"] for item in response.context["turns"]]
    assert response.status_code == 200
    assert [turn.turn_id for turn in turns] == ["turn-mine"]
    [turn] = turns
    assert turn.mind_id == mind.mind.pk and turn.nodes == ["memory-collection"] and turn.rows >= 4
    assert "turn-theirs" not in response.content.decode()


def test_the_log_page_for_one_mind_names_it_and_an_invisible_mind_is_not_found(owner, mind, other_mind):
    _store(mind, "turn-a", "a")
    client = logged_in(owner)

    one = client.get("/app/log/", {"mind": mind.mind.pk})
    theirs = client.get("/app/log/", {"mind": other_mind.mind.pk})

    assert one.context["chosen"].pk == mind.mind.pk
    assert [item["turn"].turn_id for item in one.context["turns"]] == ["turn-a"]
    assert theirs.status_code == 404


def test_a_turn_shows_its_spans_with_the_rows_as_readable_json(owner, mind):
    _store(mind, "turn/with slash", "Anna is my sister")
    client = logged_in(owner)

    response = client.get("/app/log/turn/with%20slash/")

    assert response.status_code == 200
    [item] = response.context["traces"]
    [span] = item["spans"]
    kinds = [line["row"].kind for line in span["rows"]]
    assert span["span"].node == "memory-collection" and span["span"].status == "ok"
    assert kinds[0] == "span_start" and kinds[-1] == "span_end" and "input" in kinds
    assert span["rows"][0]["offset_ms"] == 0
    body = response.content.decode()
    assert "&quot;content&quot;: &quot;Anna is my sister&quot;" in body
    assert_page_keeps_to_its_policy(response)


def test_a_turn_of_a_mind_i_cannot_see_is_not_found(outsider, mind):
    _store(mind, "turn-private", "private")
    client = logged_in(outsider)

    assert client.get("/app/log/turn-private/").status_code == 404
    assert client.get("/app/log/turn-private/", {"mind": mind.mind.pk}).status_code == 404
    assert client.get("/app/log/no-such-turn/").status_code == 404


def test_a_ui_forms_csrf_token_never_enters_the_log(owner, mind):
    anna = mind.agent.post("/memory", {"category": "fact", "content": "Anna"}, format="json").json()
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner.user)
    client.get(f"/app/memories/{anna['id']}/")
    token = client.cookies["csrftoken"].value

    response = client.post(  # as a browser posts a form
        f"/app/memories/{anna['id']}/verify/",
        urlencode({"csrfmiddlewaretoken": token}),
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 302
    rows = LogEntry.objects.filter(mind=mind.mind, node="ui-memory-verify", kind="input")
    [row] = rows
    assert row.content["body"]["csrfmiddlewaretoken"] != token
    assert token not in str(list(LogEntry.objects.values_list("content", flat=True)))


def test_reading_the_log_pages_adds_nothing_to_the_log(owner, mind):
    _store(mind, "turn-read", "Anna is my sister")
    client = logged_in(owner)
    before = LogEntry.objects.count()

    client.get("/app/log/", {"mind": mind.mind.pk})
    client.get("/app/log/turn-read/", {"mind": mind.mind.pk})

    assert LogEntry.objects.count() == before
    assert client.get(f"/app/minds/{mind.mind.pk}/").status_code == 200
    assert LogEntry.objects.filter(node="ui-mind").count() > 0  # the other pages are logged as usual
