"""The load benchmark's client levels: their table and their plot (bench/load.py, bench/plots.py)."""

from __future__ import annotations

import json

import pytest

from bench.load import levels_table
from bench.plots import main as plots_main


def _level(clients: int, rate: float, store_p95: float | None) -> dict:
    store = {"count": 10, "per_second": rate / 2, "p50_ms": 5.0, "p95_ms": store_p95}
    other = {"count": 5, "per_second": rate / 4, "p50_ms": 6.0, "p95_ms": 12.0}
    return {
        "embedder": "hashing",
        "configuration": "gthread 2×8 (serve)",
        "clients": clients,
        "agent_requests_per_second": rate,
        "operations": {"store": store, "recall": other, "search": other, "sync": {"count": 0}},
        "errors": 0,
        "acknowledged_writes": 1234,
        "lost_writes": 0,
    }


def test_the_levels_table_has_a_row_per_client_level_with_its_rate_and_p95s():
    table = levels_table([_level(1, 40.0, 9.4), _level(50, 96.0, None)]).splitlines()

    assert table[2] == "| hashing | 1 | 40.0 | 20.0 · 9 | 10.0 · 12 | 10.0 · 12 | 0 | 1,234 / 0 |"
    # A level where no store finished shows a dash, not a zero.
    assert table[3] == "| hashing | 50 | 96.0 | — | 24.0 · 12 | 24.0 · 12 | 0 | 1,234 / 0 |"


def test_the_throughput_plot_is_drawn_only_from_a_load_result_with_levels(tmp_path):
    pytest.importorskip("matplotlib")
    load = tmp_path / "load.json"
    missing = tmp_path / "none.json"
    load.write_text(json.dumps({"started_at": "2026-12-01T20:00:00Z", "levels": []}))

    plots_main(["--latency", str(missing), "--locomo", str(missing), "--load", str(load), "--out", str(tmp_path)])
    assert not (tmp_path / "bench-throughput.png").exists()

    levels = [_level(1, 40.0, 9.4), _level(4, 80.0, 20.0), _level(16, 95.0, 60.0)]
    load.write_text(json.dumps({"started_at": "2026-12-01T20:00:00Z", "levels": levels}))
    plots_main(["--latency", str(missing), "--locomo", str(missing), "--load", str(load), "--out", str(tmp_path)])
    assert (tmp_path / "bench-throughput.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
