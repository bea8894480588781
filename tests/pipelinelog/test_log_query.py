"""`manage.py log_query NAME`: the forensic queries of docs/pipeline-log.md, printed readably."""

from __future__ import annotations

import uuid
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.pipelinelog.factories import log_row

pytestmark = pytest.mark.django_db


def run(*args: str) -> list[str]:
    out = StringIO()
    call_command("log_query", *args, stdout=out)
    return out.getvalue().splitlines()


def test_outputs_prints_the_last_outputs_of_a_node_newest_first():
    now = timezone.now()
    for n in range(4):
        log_row(node="memories.recall", kind="output", content={"n": n}, created_at=now - timedelta(minutes=4 - n))
    log_row(node="memories.recall", kind="input", content={"n": 99})
    log_row(node="memories.store", kind="output", content={"n": 98})

    lines = run("outputs", "memories.recall", "--limit", "2")

    assert lines[-1] == "(2 rows)"
    assert '{"n":3}' in lines[0] and '{"n":2}' in lines[1]
    assert all("memories.recall" in line and "output" in line for line in lines[:2])


def test_turn_and_span_print_their_rows_oldest_first():
    span_id = uuid.uuid4()
    now = timezone.now()
    log_row(turn_id="T-q", span_id=span_id, kind="span_start", created_at=now)
    log_row(turn_id="T-q", span_id=span_id, kind="span_end", content={"status": "ok"}, created_at=now + timedelta(1))
    log_row(turn_id="T-other", kind="note")

    turn = run("turn", "T-q")
    span = run("span", str(span_id))

    assert len(turn) == 3 and turn[-1] == "(2 rows)"
    assert "span_start" in turn[0] and "span_end" not in turn[0]
    assert "span_end" in turn[1] and "span_start" not in turn[1]
    assert str(span_id)[:8] in turn[0]
    assert len(span) == 3 and "span_start" in span[0]


def test_counts_groups_the_last_24_hours_by_node_and_kind():
    log_row(node="a", kind="note")
    log_row(node="a", kind="note")
    log_row(node="b", kind="error")
    log_row(node="old", kind="note", created_at=timezone.now() - timedelta(hours=25))

    lines = run("counts")

    assert lines[0].split() == ["rows", "node", "kind"]
    assert lines[1].split() == ["2", "a", "note"]
    assert lines[2].split() == ["1", "b", "error"]
    assert len(lines) == 3


def test_errors_lists_only_errors_of_the_window():
    log_row(node="synapses.decay", kind="error", content={"type": "DataError"})
    log_row(node="synapses.decay", kind="error", created_at=timezone.now() - timedelta(days=2))
    log_row(node="synapses.decay", kind="note")

    lines = run("errors")

    assert lines[-1] == "(1 rows)"
    assert "DataError" in lines[0]


def test_decisions_and_tokens_sum_up_the_window():
    log_row(node="gv", kind="decision", content={"outcome": "workshop"})
    log_row(node="gv", kind="decision", content={"outcome": "workshop"})
    log_row(node="gv", kind="decision", content={"outcome": "ember"})
    log_row(kind="token", content={"input_tokens": 900, "output_tokens": 100, "cost_usd": 0.25})
    log_row(kind="token", content={"input_tokens": 100, "output_tokens": 50, "cost_usd": 0.5})

    decisions = run("decisions", "gv")
    tokens = run("tokens")

    assert [line.split() for line in decisions[1:]] == [["2", "workshop"], ["1", "ember"]]
    assert tokens[1].split()[:3] == ["2", "1000", "150"]
    assert float(tokens[1].split()[3]) == 0.75


def test_a_query_missing_its_argument_says_what_it_needs():
    with pytest.raises(CommandError, match="needs a node"):
        run("outputs")
    with pytest.raises(CommandError, match="not a span id"):
        run("span", "nope")


def test_a_query_with_no_rows_says_so():
    assert run("turn", "nothing-here") == ["no rows"]
