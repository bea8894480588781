"""The span API: rows, ids, inheritance, errors, late binding, isolation between threads."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from pipelinelog.models import LogEntry
from pipelinelog.spans import NOOP_SPAN, current_span, current_turn_id, span

pytestmark = pytest.mark.django_db

# Shaped like a JWT (header.payload.signature), so the redaction takes it for one.
JWT_LIKE = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"


def kinds_of(span_id) -> list[str]:
    return list(LogEntry.objects.filter(span_id=span_id).order_by("created_at", "id").values_list("kind", flat=True))


def test_a_span_writes_start_its_rows_and_end_with_status_and_duration():
    with span("tests.node", turn_id="T-1") as sp:
        sp.input({"text": "hello"})
        sp.calculation({"score": 0.73})
        sp.output({"text": "bye"})

    assert kinds_of(sp.span_id) == ["span_start", "input", "calculation", "output", "span_end"]
    end = LogEntry.objects.get(span_id=sp.span_id, kind="span_end")
    assert end.content["status"] == "ok"
    assert end.content["duration_ms"] >= 0
    assert set(LogEntry.objects.filter(span_id=sp.span_id).values_list("turn_id", "node", "source")) == {
        ("T-1", "tests.node", "system")
    }


def test_every_kind_has_a_method_that_writes_that_kind():
    methods = ["input", "output", "calculation", "decision", "db_read", "db_write", "error", "note", "prompt", "token"]
    with span("tests.kinds") as sp:
        for name in methods:
            getattr(sp, name)({"kind": name})

    assert kinds_of(sp.span_id) == ["span_start", *methods, "span_end"]
    for entry in LogEntry.objects.filter(span_id=sp.span_id).exclude(kind__in=["span_start", "span_end"]):
        assert entry.content == {"kind": entry.kind}


def test_an_exception_passing_through_writes_error_and_an_error_end_and_propagates():
    with pytest.raises(ZeroDivisionError), span("tests.fails") as sp:
        1 / 0  # noqa: B018

    assert kinds_of(sp.span_id) == ["span_start", "error", "span_end"]
    assert LogEntry.objects.get(span_id=sp.span_id, kind="error").content["type"] == "ZeroDivisionError"
    assert LogEntry.objects.get(span_id=sp.span_id, kind="span_end").content["status"] == "error"


def test_fail_writes_the_exception_as_an_error_row_and_ends_the_span_as_error():
    with span("tests.caught") as sp:
        try:
            raise KeyError("missing")
        except KeyError as error:
            sp.fail(error)

    assert kinds_of(sp.span_id) == ["span_start", "error", "span_end"]
    assert LogEntry.objects.get(span_id=sp.span_id, kind="error").content == {
        "type": "KeyError",
        "message": "'missing'",
    }
    assert LogEntry.objects.get(span_id=sp.span_id, kind="span_end").content["status"] == "error"


def test_fail_takes_the_text_of_an_error_cut_to_500_characters():
    with span("tests.text") as sp:
        sp.fail("boom " * 200)

    message = LogEntry.objects.get(span_id=sp.span_id, kind="error").content["message"]
    assert message == ("boom " * 200)[:500]


def test_an_error_message_is_redacted_before_it_is_cut():
    with span("tests.secret") as sp:
        sp.fail("x" * 490 + JWT_LIKE)  # cut first, the token would lose its tail and escape the pattern

    message = LogEntry.objects.get(span_id=sp.span_id, kind="error").content["message"]
    assert "eyJ" not in message
    assert message.startswith("x" * 490 + "[redacted]")


def test_once_a_span_has_ended_a_failure_reaches_no_span():
    with span("tests.ended") as ended:
        pass
    current_span().fail(ValueError("nobody listens"))

    assert current_span() is not ended
    assert sorted(LogEntry.objects.values_list("span_id", "kind")) == sorted(
        [(ended.span_id, "span_start"), (ended.span_id, "span_end")]
    )


def test_a_nested_span_inherits_turn_source_and_mind_and_gets_its_own_span_id(mind):
    with span("tests.outer", turn_id="T-2", source="worker", mind=mind.mind) as outer:
        with span("tests.inner") as inner:
            assert current_span() is inner
            inner.note("inside")
        assert current_span() is outer

    assert inner.span_id != outer.span_id
    rows = LogEntry.objects.filter(span_id=inner.span_id)
    assert {(r.turn_id, r.source, r.mind_id) for r in rows} == {("T-2", "worker", mind.mind.pk)}


def test_bind_mind_stamps_every_row_of_the_span_even_those_written_before(mind):
    with span("tests.late") as sp:
        sp.input({"before": True})
        current_span().bind_mind(mind.mind)
        sp.output({"after": True})

    assert set(LogEntry.objects.filter(span_id=sp.span_id).values_list("mind_id", flat=True)) == {mind.mind.pk}


def test_current_span_outside_any_span_is_a_noop_that_writes_nothing():
    assert current_span() is NOOP_SPAN
    current_span().db_write({"table": "x"})
    current_span().bind_mind("m_nothing")
    assert LogEntry.objects.count() == 0


def test_logging_off_makes_span_a_noop(settings):
    settings.PIPELINE_LOG_ENABLED = False
    with span("tests.off") as sp:
        sp.input({"x": 1})
        assert current_span() is NOOP_SPAN
    assert LogEntry.objects.count() == 0


def test_a_span_without_turn_id_gets_a_new_one_and_exposes_it():
    with span("tests.turn") as sp:
        assert current_turn_id() == sp.turn_id
    assert len(sp.turn_id) == 36
    assert current_turn_id() is None


@pytest.mark.django_db(transaction=True)  # each thread writes on its own connection
def test_two_concurrent_jobs_in_threads_get_distinct_spans_and_never_mix_rows():
    barrier = threading.Barrier(2)
    seen: dict[str, object] = {}

    def job(name: str) -> None:
        try:
            with span(f"tests.job.{name}") as sp:
                seen[name] = sp
                barrier.wait()  # both spans are open at the same time from here on
                for step in range(20):
                    current_span().calculation({"job": name, "step": step})
                    if step == 10:
                        barrier.wait()  # interleave the two jobs' rows
        finally:
            connection.close()

    threads = [threading.Thread(target=job, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    a, b = seen["a"], seen["b"]
    assert a.span_id != b.span_id
    assert a.turn_id != b.turn_id
    for name, sp in (("a", a), ("b", b)):
        rows = LogEntry.objects.filter(span_id=sp.span_id, kind="calculation")
        assert rows.count() == 20
        assert {r.content["job"] for r in rows} == {name}
        assert set(rows.values_list("node", flat=True)) == {f"tests.job.{name}"}
