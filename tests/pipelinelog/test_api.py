"""GET /log and GET /log/turns/{turn_id}: filters, paging, grouping, access."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from pipelinelog.spans import span
from tests.pipelinelog.factories import log_row

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 6, 27, 10, 0, 0, tzinfo=UTC)


def test_the_list_is_newest_first_in_the_paged_body(mind):
    for minute in range(3):
        log_row(mind=mind.mind, created_at=T0 + timedelta(minutes=minute), content={"n": minute})

    body = mind.agent.get("/log").json()

    assert body["count"] == 3
    assert body["limit"] == 100
    assert body["offset"] == 0
    assert [row["content"]["n"] for row in body["results"]] == [2, 1, 0]
    assert set(body["results"][0]) == {"id", "created_at", "kind", "node", "span_id", "source", "mind_id", "content"}
    assert body["results"][0]["created_at"] == "2026-06-27T10:02:00Z"


def test_limit_and_offset_page_through_the_rows(mind):
    for minute in range(5):
        log_row(mind=mind.mind, created_at=T0 + timedelta(minutes=minute), content={"n": minute})

    body = mind.agent.get("/log?limit=2&offset=2").json()

    assert body["count"] == 5
    assert [row["content"]["n"] for row in body["results"]] == [2, 1]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("limit=abc", "limit"),
        ("offset=-1", "offset"),
        ("kind=shout", "kind"),
        ("span_id=not-a-uuid", "span_id"),
        ("since=yesterday-ish", "since"),
        ("until=2026-13-45", "until"),
        ("since=2026-06-28&until=2026-06-27", "until"),
        ("turn_id=" + "t" * 101, "turn_id"),
    ],
)
def test_a_bad_parameter_answers_400_naming_it(mind, query, field):
    response = mind.agent.get(f"/log?{query}")

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_an_unknown_parameter_answers_400_naming_it_and_what_the_list_takes(mind):
    response = mind.agent.get("/log?knd=output")

    assert response.status_code == 400
    message = response.json()["error"]["fields"]["knd"][0]
    assert "turn_id" in message and "kind" in message and "limit" in message


def test_an_unknown_kind_answers_400_listing_the_kinds(mind):
    response = mind.agent.get("/log?kind=shout")

    message = response.json()["error"]["fields"]["kind"][0]
    assert message.startswith('"shout" is not allowed.')
    assert "span_start" in message and "token" in message


def test_the_schema_documents_the_list_as_a_page_of_rows(api):
    schema = api.get("/api/schema/?format=json").json()

    operation = schema["paths"]["/log"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert body["required"] == ["count", "limit", "offset", "results"]
    assert body["properties"]["results"]["items"] == {"$ref": "#/components/schemas/LogEntry"}
    limit = next(p for p in operation["parameters"] if p["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}


def test_the_filters_select_by_turn_span_node_and_kind(mind):
    span_a = uuid.uuid4()
    log_row(mind=mind.mind, turn_id="A", span_id=span_a, node="memories.store", kind="db_write")
    log_row(mind=mind.mind, turn_id="A", span_id=span_a, node="memories.store", kind="output")
    log_row(mind=mind.mind, turn_id="B", node="synapses.decay", kind="db_write")

    def ids(query: str) -> int:
        return mind.agent.get(f"/log?{query}").json()["count"]

    assert ids("turn_id=A") == 2
    assert ids(f"span_id={span_a}") == 2
    assert ids("node=synapses.decay") == 1
    assert ids("kind=db_write") == 2
    assert ids("turn_id=A&kind=output") == 1


def test_since_and_until_take_iso_8601_and_epoch_seconds_inclusively(mind):
    for minute in range(4):
        log_row(mind=mind.mind, created_at=T0 + timedelta(minutes=minute), content={"n": minute})

    iso = mind.agent.get("/log?since=2026-06-27T10:01:00Z&until=2026-06-27T10:02:00Z").json()
    epoch = int((T0 + timedelta(minutes=2)).timestamp())
    by_epoch = mind.agent.get(f"/log?since={epoch}").json()

    assert [row["content"]["n"] for row in iso["results"]] == [2, 1]
    assert [row["content"]["n"] for row in by_epoch["results"]] == [3, 2]


def test_only_rows_of_the_callers_mind_are_listed(mind, other_mind):
    log_row(mind=mind.mind, content={"mine": True})
    log_row(mind=other_mind.mind, content={"mine": False})
    log_row(mind=None, content={"mine": False})

    body = mind.agent.get("/log").json()

    assert [row["content"] for row in body["results"]] == [{"mine": True}]


def test_a_reader_of_the_mind_may_read_its_log(reader, mind):
    log_row(mind=mind.mind)

    assert reader.client.get(f"/log?mind={mind.mind.pk}").json()["count"] == 1
    assert reader.client.get("/log", HTTP_X_MIND=mind.mind.pk).json()["count"] == 1


def test_an_outsider_gets_404_for_the_log_of_a_mind_they_cannot_see(outsider, mind):
    log_row(mind=mind.mind, turn_id="T")

    assert outsider.client.get(f"/log?mind={mind.mind.pk}").status_code == 404
    assert outsider.client.get(f"/log/turns/T?mind={mind.mind.pk}").status_code == 404


def test_a_human_must_name_the_mind(owner):
    response = owner.client.get("/log")

    assert response.status_code == 400
    assert "mind" in response.json()["error"]["fields"]


def test_anonymous_callers_get_401(api):
    assert api.get("/log").status_code == 401


def test_a_turn_groups_rows_by_span_oldest_first_with_status_and_duration(mind):
    with span("tests.first", turn_id="T-g", mind=mind.mind) as first:
        first.input({"step": 1})
    with pytest.raises(ValueError), span("tests.second", turn_id="T-g", mind=mind.mind):
        raise ValueError("no")
    log_row(mind=mind.mind, turn_id="T-g", kind="note", content="loose")

    turn = mind.agent.get("/log/turns/T-g").json()

    assert [s["node"] for s in turn["spans"]] == ["tests.first", "tests.second", "tests.node"]
    assert turn["spans"][0]["span_id"] == str(first.span_id)
    assert turn["spans"][0]["status"] == "ok"
    assert turn["spans"][1]["status"] == "error"
    assert turn["spans"][2]["span_id"] is None
    assert turn["spans"][2]["status"] == "open"
    assert [r["kind"] for r in turn["spans"][0]["rows"]] == ["span_start", "input", "span_end"]
    assert turn["spans"][1]["duration_ms"] >= 0
    assert turn["truncated"] is False


def test_a_turn_the_mind_has_no_rows_of_answers_404(mind, other_mind):
    log_row(mind=other_mind.mind, turn_id="T-x")

    response = mind.agent.get("/log/turns/T-x")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
