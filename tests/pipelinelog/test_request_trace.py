"""Every API request is a span: X-Turn-Id in and out, input and output rows, the mind, the caller."""

from __future__ import annotations

import pytest

from memories.models import Memory, MemoryAudit
from pipelinelog.models import LogEntry

pytestmark = pytest.mark.django_db

PROBE = pytest.mark.urls("tests.pipelinelog.probe_urls")


def rows_of_turn(turn_id: str) -> list[LogEntry]:
    return list(LogEntry.objects.filter(turn_id=turn_id).order_by("created_at", "id"))


@PROBE
def test_a_store_request_leaves_its_whole_span_in_the_turn_with_the_mind_on_every_row(mind):
    response = mind.agent.post("/probe", {"content": "Anna is my sister"}, format="json", HTTP_X_TURN_ID="T")
    assert response.status_code == 201

    turn = mind.agent.get("/log/turns/T").json()

    assert turn["turn_id"] == "T"
    assert len(turn["spans"]) == 1
    trace = turn["spans"][0]
    assert [row["kind"] for row in trace["rows"]] == ["span_start", "input", "db_write", "output", "span_end"]
    assert {row["mind_id"] for row in trace["rows"]} == {mind.mind.pk}
    assert {row["span_id"] for row in trace["rows"]} == {trace["span_id"]}
    assert trace["node"] == "probe-store"
    assert trace["status"] == "ok"
    assert trace["duration_ms"] >= 0
    prefix = mind.key[:11]
    assert {row["source"] for row in trace["rows"]} == {f"agent:{prefix}"}
    assert trace["rows"][1]["content"]["body"] == {"content": "Anna is my sister"}
    assert trace["rows"][3]["content"]["status"] == 201


def test_a_store_through_post_memory_leaves_its_span_with_the_db_write(mind):
    response = mind.agent.post(
        "/memory", {"category": "fact", "content": "Anna is my sister"}, format="json", HTTP_X_TURN_ID="T-mem"
    )
    assert response.status_code == 201, response.content

    turn = mind.agent.get("/log/turns/T-mem").json()

    request_span = turn["spans"][0]
    kinds = [row["kind"] for row in request_span["rows"]]
    assert kinds[:2] == ["span_start", "input"]
    assert kinds[-2:] == ["output", "span_end"]
    assert "db_write" in kinds
    assert request_span["node"] == "memory-collection"
    every_row = [row for trace in turn["spans"] for row in trace["rows"]]
    assert {row["mind_id"] for row in every_row} == {mind.mind.pk}
    assert {row["span_id"] for row in request_span["rows"]} == {request_span["span_id"]}


@PROBE
def test_a_human_request_names_the_user_as_source_and_binds_the_named_mind(owner, mind):
    owner.client.post(f"/probe?mind={mind.mind.pk}", {"content": "x"}, format="json", HTTP_X_TURN_ID="T-h")

    rows = rows_of_turn("T-h")
    assert rows
    assert {r.source for r in rows} == {f"user:{owner.user.pk}"}
    assert {r.mind_id for r in rows} == {mind.mind.pk}


@PROBE
def test_a_request_refused_for_an_invisible_mind_is_not_logged_into_that_mind(outsider, mind):
    response = outsider.client.post(f"/probe?mind={mind.mind.pk}", {}, format="json", HTTP_X_TURN_ID="T-o")

    assert response.status_code == 404
    rows = rows_of_turn("T-o")
    assert rows
    assert {r.mind_id for r in rows} == {None}
    assert LogEntry.objects.get(turn_id="T-o", kind="span_end").content["status"] == "client_error"
    # Exactly these keys: the duration is span_end's to say, not repeated here.
    assert LogEntry.objects.get(turn_id="T-o", kind="output").content == {"status": 404, "error": "not_found"}


def test_the_response_echoes_the_turn_id_it_was_given(api):
    response = api.get("/health", HTTP_X_TURN_ID="my turn 42")

    assert response["X-Turn-Id"] == "my turn 42"
    assert LogEntry.objects.filter(turn_id="my turn 42", node="health", kind="output").exists()


def test_a_request_without_turn_id_gets_a_generated_one_on_the_response_and_in_the_log(api):
    response = api.get("/health")

    turn_id = response["X-Turn-Id"]
    assert len(turn_id) == 36
    assert LogEntry.objects.filter(turn_id=turn_id, kind="span_start").count() == 1
    assert LogEntry.objects.get(turn_id=turn_id, kind="span_start").source == "anonymous"


def test_a_turn_id_of_100_characters_is_accepted(api):
    response = api.get("/health", HTTP_X_TURN_ID="t" * 100)

    assert response["X-Turn-Id"] == "t" * 100


def test_a_turn_id_over_100_characters_answers_400_naming_the_header(api):
    response = api.get("/health", HTTP_X_TURN_ID="t" * 101)

    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == "invalid_header"
    assert "X-Turn-Id" in body["error"]["fields"]
    assert LogEntry.objects.count() == 0


def test_the_trailing_slash_twin_is_logged_under_the_same_node(api):
    api.get("/health/", HTTP_X_TURN_ID="T-slash")

    assert LogEntry.objects.get(turn_id="T-slash", kind="span_start").node == "health"


@PROBE
def test_an_unexpected_error_in_a_view_ends_the_span_as_error_with_an_error_row(mind):
    mind.agent.raise_request_exception = False
    response = mind.agent.get("/probe/crash", HTTP_X_TURN_ID="T-crash")

    assert response.status_code == 500
    rows = rows_of_turn("T-crash")
    assert [r.kind for r in rows] == ["span_start", "input", "error", "output", "span_end"]
    assert rows[2].content == {"type": "RuntimeError", "message": "the probe crashed"}
    assert rows[-1].content["status"] == "error"
    assert {r.mind_id for r in rows} == {mind.mind.pk}  # an agent's request belongs to its key's mind


def test_reading_the_log_does_not_write_to_it(mind):
    listed = mind.agent.get("/log", HTTP_X_TURN_ID="T-read")
    turn = mind.agent.get("/log/turns/T-read", HTTP_X_TURN_ID="T-read")

    assert (listed.status_code, listed.json()["count"]) == (200, 0)
    assert turn.status_code == 404  # the turn of the two reads left no row to show

    assert not LogEntry.objects.filter(turn_id="T-read").exists()


def test_with_logging_off_no_row_is_written_but_the_turn_id_is_still_echoed(api, settings):
    settings.PIPELINE_LOG_ENABLED = False

    response = api.get("/health", HTTP_X_TURN_ID="T-off")

    assert response["X-Turn-Id"] == "T-off"
    assert LogEntry.objects.count() == 0


@PROBE
def test_long_bodies_are_summarized_not_copied(mind):
    mind.agent.post("/probe", {"content": "x" * 5000, "tags": list(range(100))}, format="json", HTTP_X_TURN_ID="T-l")

    body = LogEntry.objects.get(turn_id="T-l", kind="input").content["body"]
    assert body["content"].startswith("x" * 500)
    assert body["content"].endswith("(+4500 chars)")
    assert len(body["tags"]) == 21


def test_a_human_reading_a_memory_by_id_logs_into_the_memorys_mind(owner, mind):
    stored = mind.agent.post("/memory", {"category": "fact", "content": "Anna is my sister"}, format="json")

    response = owner.client.get(f"/memory/{stored.json()['id']}", HTTP_X_TURN_ID="T-read-one")

    assert response.status_code == 200
    assert set(LogEntry.objects.filter(turn_id="T-read-one").values_list("mind_id", flat=True)) == {mind.mind.pk}


@PROBE
def test_a_reader_refused_a_write_is_logged_into_the_mind_they_can_see(reader, mind):
    response = reader.client.post(f"/probe?mind={mind.mind.pk}", {}, format="json", HTTP_X_TURN_ID="T-ro")

    assert response.status_code == 403
    assert set(LogEntry.objects.filter(turn_id="T-ro").values_list("mind_id", flat=True)) == {mind.mind.pk}


@PROBE
def test_a_json_body_the_view_parsed_is_summarized_with_its_secrets_redacted(mind):
    response = mind.agent.post(
        "/probe", {"content": "Anna", "password": "hunter2"}, format="json", HTTP_X_TURN_ID="T-parsed"
    )

    assert response.status_code == 201
    body = LogEntry.objects.get(turn_id="T-parsed", kind="input").content["body"]
    assert body == {"content": "Anna", "password": "[redacted]"}


def test_a_json_body_no_view_parsed_is_summarized_from_its_bytes(api):
    response = api.post("/health", {"note": "x", "password": "hunter2"}, format="json", HTTP_X_TURN_ID="T-raw")

    assert response.status_code == 405  # refused before anything read the body
    body = LogEntry.objects.get(turn_id="T-raw", kind="input").content["body"]
    assert body == {"note": "x", "password": "[redacted]"}


def test_a_body_that_is_not_json_is_described_by_type_and_size(mind):
    response = mind.agent.post("/memory", data="{not json", content_type="application/json", HTTP_X_TURN_ID="T-bad")

    assert response.status_code == 400
    body = LogEntry.objects.get(turn_id="T-bad", kind="input").content["body"]
    assert body == {"content_type": "application/json", "bytes": 9, "parsed": False}


def test_deleting_a_mind_leaves_a_trace_of_the_request_without_the_mind_or_any_content(owner, mind):
    response = owner.client.delete(f"/minds/{mind.mind.pk}", HTTP_X_TURN_ID="T-del")

    assert response.status_code == 204
    rows = rows_of_turn("T-del")
    assert [r.kind for r in rows] == ["span_start", "input", "output", "span_end"]
    assert {(r.node, r.source, r.mind_id, r.content) for r in rows} == {
        ("mind-detail", f"user:{owner.user.pk}", None, None)
    }


@pytest.mark.parametrize("logging", [True, False], ids=["logging-on", "logging-off"])
def test_a_memory_stored_in_a_request_carries_the_requests_turn_id(mind, settings, logging):
    settings.PIPELINE_LOG_ENABLED = logging
    named = mind.agent.post("/memory", {"category": "fact", "content": "a"}, format="json", HTTP_X_TURN_ID="T-s")
    generated = mind.agent.post("/memory", {"category": "fact", "content": "b"}, format="json")

    for response, turn_id in ((named, "T-s"), (generated, generated["X-Turn-Id"])):
        assert response.status_code == 201
        assert Memory.objects.get(pk=response.json()["id"]).turn_id == turn_id
        assert MemoryAudit.objects.get(memory_id=response.json()["id"]).turn_id == turn_id
