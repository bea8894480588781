"""The benchmark harness itself: the corpus, the comparison's median, the latency table's parts.

Speed is never asserted here (benchmarks measure it); these tests check that the harness
measures what it says: distinct contents, interleaved on/off requests, the captured SQL replayed
and rolled back, and the table's goal flag.
"""

from __future__ import annotations

import numpy as np
import psycopg
import pytest
from django.conf import settings
from django.db import connection

from bench.corpus import memory_specs
from bench.latency import Operation, operation_measure, table
from bench.peer import peer_table
from bench.runner import comparison_run, overhead_pct
from bench.scenarios import Comparison, Context, Scenario
from bench.vector_truth import exact_top
from memories.models import Memory


def test_the_corpus_holds_no_two_identical_contents_and_the_seed_decides_it():
    specs = memory_specs(20_000, seed=7)
    contents = [spec.content for spec in specs]

    assert len(set(contents)) == len(contents)
    assert [spec.content for spec in memory_specs(50, seed=7)] == contents[:50]
    assert [spec.content for spec in memory_specs(50, seed=8)] != contents[:50]


def test_overhead_is_the_difference_of_the_p95s_in_percent():
    assert overhead_pct([10.0] * 20, [5.0] * 20) == pytest.approx(100.0)
    assert overhead_pct([4.0] * 20, [5.0] * 20) == pytest.approx(-20.0)


def test_a_comparison_alternates_on_and_off_and_reports_the_median_of_its_rounds():
    seen = []

    class Response:
        status_code = 200

    def make(ctx):
        def request(index):
            seen.append(settings.PIPELINE_LOG_ENABLED)
            return Response()

        return request

    scenario = Scenario("probe", "GET", "/probe", None, (200,), make)
    spec = Comparison("probe: log", scenario="probe", off_settings={"PIPELINE_LOG_ENABLED": False})
    ctx = Context(client=None, mind_id="", seed=1, requests=6, warmup=2)

    result = comparison_run(spec, scenario, ctx, rounds=3)

    assert seen.count(True) == seen.count(False) == 2 + 3 * 6
    assert len(result.round_overheads_pct) == 3
    assert result.overhead_p95_pct == pytest.approx(float(np.median(result.round_overheads_pct)), abs=0.05)
    assert result.on.n == result.off.n == 18


def test_the_exact_top_keeps_every_row_tied_with_the_kth():
    distances = np.array([0.5, 0.1, 0.2, 0.2, 0.9])

    assert exact_top(distances, np.arange(5), 2) == {1, 2, 3}
    assert exact_top(distances, np.array([0, 4]), 5) == {0, 4}


def _row(ratio: float) -> dict:
    part = {"p50_ms": 1.0, "p95_ms": 2.0, "p99_ms": 3.0}
    return {
        "operation": "search",
        "size": 1000,
        "statements": 6,
        "in_process": part,
        "bare_sql": part,
        "bare_hnsw": part,
        "floor_in_process": part,
        "p95_ratios": {"in_process_vs_sql": ratio, "in_process_vs_hnsw": 1.0},
        "vector_recall": 0.97,
    }


def test_the_latency_table_flags_the_goal_measures_resonance_and_says_where_promotion_is_measured():
    from bench.latency import operations

    lines = table([_row(1.5), _row(2.5)], unfiltered={1000: 0.99}).splitlines()

    assert lines[2].endswith("met") and not lines[2].endswith("not met")
    assert lines[3].endswith("not met")
    assert "promotion" in lines[-1] and "python -m bench promotion" in lines[-1]
    resonance = next(op for op in operations() if op.name == "resonance")
    assert (resonance.path, resonance.vector_k) == ("/synapses/resonance", 10)


def test_without_mem0_the_peer_table_is_one_line_saying_why():
    assert peer_table({"skipped": "mem0ai is not installed"}, []) == "Peer (mem0): skipped — mem0ai is not installed."


@pytest.mark.django_db(transaction=True)
def test_a_measured_store_replays_its_captured_sql_rolled_back_and_commits_only_the_timed_stores(mind):
    from rest_framework.test import APIClient

    from bench.latency import BenchMind

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {mind.key}")
    bench_mind = BenchMind(size=0, mind_id=mind.mind.pk, key=mind.key, rows=np.arange(0))
    raw = psycopg.connect(**{**connection.get_connection_params(), "prepare_threshold": None})
    try:
        row = operation_measure(
            Operation("store", "POST", "/memory", None),
            bench_mind,
            client=client,
            http_client=None,
            raw=raw,
            seed=3,
            requests=4,
            warmup=1,
        )
    finally:
        raw.close()

    # The capture (40 inputs) and every replay were rolled back: only the 5 in-process stores remain.
    assert Memory.objects.filter(mind=mind.mind).count() == 5
    assert not Memory.objects.filter(mind=mind.mind, key__startswith="bench_capture_").exists()
    assert row["statements"] > 0
    assert {"in_process", "bare_sql", "bare_hnsw", "floor_in_process"} <= set(row)
    assert "http" not in row
