"""Timing requests and summarising the samples."""

from __future__ import annotations

import cProfile
import io
import pstats
import re
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import numpy as np

from bench.scenarios import Comparison, Context, Scenario

# Lines of a profile printed when a scenario is profiled (functions, by cumulative time).
PROFILE_TOP_FUNCTIONS = 35
# Characters of a statement that name it in the statement table of a profile.
STATEMENT_LABEL_CHARS = 90
# Django names each savepoint anew ("s1398…_x17"): one label for all of them.
_SAVEPOINT_NAME = re.compile(r'"s\d+_x\d+"')


@dataclass(frozen=True)
class Timing:
    name: str
    method: str
    path: str
    n: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    target_p95_ms: float | None
    errors: int  # responses with an unexpected status
    first_error: str | None

    @property
    def passed(self) -> bool | None:
        if self.target_p95_ms is None:
            return None
        return self.errors == 0 and self.p95_ms <= self.target_p95_ms

    def as_dict(self) -> dict:
        return {**asdict(self), "passed": self.passed}


def summarise(scenario: Scenario, name: str, samples_ms: list[float], errors: list[str]) -> Timing:
    values = np.asarray(samples_ms, dtype=float)
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return Timing(
        name=name,
        method=scenario.method,
        path=scenario.path,
        n=len(values),
        p50_ms=round(float(p50), 2),
        p95_ms=round(float(p95), 2),
        p99_ms=round(float(p99), 2),
        mean_ms=round(float(values.mean()), 2),
        target_p95_ms=scenario.target_p95_ms,
        errors=len(errors),
        first_error=errors[0] if errors else None,
    )


def _timed(request, index: int, expect: tuple[int, ...], errors: list[str]) -> float:
    started = time.perf_counter()
    response = request(index)
    elapsed_ms = (time.perf_counter() - started) * 1000
    if response.status_code not in expect:
        errors.append(f"HTTP {response.status_code}: {response.content[:300]!r}")
    return elapsed_ms


def scenario_run(scenario: Scenario, ctx: Context) -> Timing:
    request = scenario.make(ctx)
    warm_errors: list[str] = []
    for index in range(ctx.warmup):
        _timed(request, index, scenario.expect_status, warm_errors)
    errors: list[str] = []
    samples = [
        _timed(request, index, scenario.expect_status, errors) for index in range(ctx.warmup, ctx.warmup + ctx.requests)
    ]
    return summarise(scenario, scenario.name, samples, warm_errors + errors)


# Rounds of a comparison: each round interleaves its requests on/off and yields one p95 ratio; the
# verdict takes the median round, so one noisy round cannot flip it (a single ratio swung from
# -7 % to +10 % between runs of the same code).
COMPARISON_ROUNDS = 5


@dataclass(frozen=True)
class ComparisonResult:
    name: str
    on: Timing
    off: Timing
    overhead_p95_pct: float  # the median of the rounds' overheads
    round_overheads_pct: list[float]
    target_overhead_pct: float | None

    @property
    def passed(self) -> bool | None:
        if self.target_overhead_pct is None:
            return None
        return self.overhead_p95_pct < self.target_overhead_pct

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "on": self.on.as_dict(),
            "off": self.off.as_dict(),
            "overhead_p95_pct": self.overhead_p95_pct,
            "round_overheads_pct": self.round_overheads_pct,
            "target_overhead_pct": self.target_overhead_pct,
            "passed": self.passed,
        }


def overhead_pct(on_ms: list[float], off_ms: list[float]) -> float:
    """How much the `on` samples' p95 exceeds the `off` samples' (percent)."""
    on_p95, off_p95 = np.percentile(np.asarray(on_ms), 95), np.percentile(np.asarray(off_ms), 95)
    return float((on_p95 - off_p95) / off_p95 * 100) if off_p95 else 0.0


def comparison_run(comparison: Comparison, scenario: Scenario, ctx: Context, *, rounds: int = COMPARISON_ROUNDS):
    """Alternate on/off request by request (which goes first alternates too), so both see the same
    caches, data size and machine load; `rounds` rounds of `ctx.requests` pairs each, one p95
    overhead per round, the median of them reported."""
    from django.test import override_settings

    request = scenario.make(ctx)
    off = override_settings(**comparison.off_settings)
    errors_on: list[str] = []
    errors_off: list[str] = []
    samples_on: list[float] = []
    samples_off: list[float] = []
    overheads = []
    index = 0
    for _ in range(ctx.warmup):
        _timed(request, index, scenario.expect_status, errors_on)
        with off:
            _timed(request, index + 1, scenario.expect_status, errors_off)
        index += 2
    for _ in range(rounds):
        round_on, round_off = [], []
        for pair in range(ctx.requests):
            if pair % 2:
                with off:
                    round_off.append(_timed(request, index, scenario.expect_status, errors_off))
                round_on.append(_timed(request, index + 1, scenario.expect_status, errors_on))
            else:
                round_on.append(_timed(request, index, scenario.expect_status, errors_on))
                with off:
                    round_off.append(_timed(request, index + 1, scenario.expect_status, errors_off))
            index += 2
        overheads.append(round(overhead_pct(round_on, round_off), 1))
        samples_on += round_on
        samples_off += round_off
    on_timing = summarise(scenario, f"{scenario.name} (on)", samples_on, errors_on)
    off_timing = summarise(scenario, f"{scenario.name} ({_describe(comparison.off_settings)})", samples_off, errors_off)
    median = round(float(np.median(overheads)), 1)
    return ComparisonResult(comparison.name, on_timing, off_timing, median, overheads, comparison.target_overhead_pct)


def _describe(settings_change: dict) -> str:
    return ", ".join(f"{name}={value}" for name, value in settings_change.items())


class StatementClock:
    """Wall time of every SQL statement and commit, grouped by the statement's first characters.

    cProfile sees a statement only as time spent waiting in psycopg; this says which one.
    """

    def __init__(self) -> None:
        self.totals: dict[str, list[float]] = {}  # label -> [count, seconds]

    def _add(self, label: str, seconds: float) -> None:
        entry = self.totals.setdefault(label, [0, 0.0])
        entry[0] += 1
        entry[1] += seconds

    def __call__(self, execute, sql, params, many, context):
        clock = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self._add(
                _SAVEPOINT_NAME.sub('"…"', " ".join(sql.split()))[:STATEMENT_LABEL_CHARS], time.perf_counter() - clock
            )

    @contextmanager
    def installed(self):
        """Time statements (execute_wrapper) and commits (the connection's commit) of the default connection."""
        from django.db import connection

        connection.ensure_connection()
        raw = connection.connection
        commit = raw.commit

        def timed_commit():
            clock = time.perf_counter()
            try:
                return commit()
            finally:
                self._add("COMMIT", time.perf_counter() - clock)

        raw.commit = timed_commit
        try:
            with connection.execute_wrapper(self):
                yield self
        finally:
            raw.commit = commit

    def table(self, requests: int) -> str:
        lines = [f"{'statement':<{STATEMENT_LABEL_CHARS}} {'per request':>11} {'ms each':>8} {'ms/request':>10}"]
        for label, (count, seconds) in sorted(self.totals.items(), key=lambda item: -item[1][1]):
            lines.append(
                f"{label:<{STATEMENT_LABEL_CHARS}} {count / requests:>11.2f} {seconds * 1000 / count:>8.2f}"
                f" {seconds * 1000 / requests:>10.2f}"
            )
        total = sum(seconds for _, seconds in self.totals.values())
        lines.append(
            f"{'all statements and commits':<{STATEMENT_LABEL_CHARS}} {'':>11} {'':>8} {total * 1000 / requests:>10.2f}"
        )
        return "\n".join(lines)


def scenario_profile(scenario: Scenario, ctx: Context) -> str:
    """The statements of `ctx.requests` requests (after the warm-up) with their wall time, then a
    cProfile of the same number of requests: the top functions by cumulative and by own time."""
    request = scenario.make(ctx)
    for index in range(ctx.warmup):
        request(index)
    clock = StatementClock()
    started = time.perf_counter()
    with clock.installed():
        for index in range(ctx.warmup, ctx.warmup + ctx.requests):
            request(index)
    wall_ms = (time.perf_counter() - started) * 1000 / ctx.requests
    profiler = cProfile.Profile()
    profiler.enable()
    for index in range(ctx.warmup + ctx.requests, ctx.warmup + 2 * ctx.requests):
        request(index)
    profiler.disable()
    out = io.StringIO()
    out.write(f"{ctx.requests} requests without the profiler: {wall_ms:.2f} ms each; their statements:\n")
    out.write(clock.table(ctx.requests) + "\n\n")
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(PROFILE_TOP_FUNCTIONS)
    stats.sort_stats("tottime").print_stats(PROFILE_TOP_FUNCTIONS)
    return out.getvalue()
