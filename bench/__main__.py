"""`python -m bench`: build a throw-away database, time the hot endpoints, print and save the results."""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time
from datetime import UTC, datetime

from bench.database import BENCH_DATABASE, database_create, database_drop, django_setup, server_versions
from bench.saving import result_save, started_at

# Defaults of a run (requests are timed after the warm-up requests).
DEFAULT_REQUESTS = 200
DEFAULT_WARMUP = 30
DEFAULT_MEMORIES = 1000
DEFAULT_OTHER_MINDS = 2
DEFAULT_SEED = 20261130
# Nearest neighbours compared in the HNSW recall check (the search's candidate count).
RECALL_CHECK_K = 50
# `python -m bench <name> …`: benchmarks of their own, each a module with main(argv).
SUBCOMMANDS = {
    "embedder-cost": "bench.embedder_cost",
    "filtered-search": "bench.filtered_search",
    "latency": "bench.latency",
    "minilm-reference": "bench.minilm_reference",
    "resonance-profile": "bench.resonance_profile",
    "plots": "bench.plots",
    "text-index": "bench.text_index",
    "locomo-fulltext": "bench.locomo_fulltext",
    "locomo": "bench.locomo.cli",
    "locomo-why": "bench.locomo.why",
    "load": "bench.load",
    "decay": "bench.decay",
    "net-picture": "bench.net_picture",
    "promotion": "bench.promotion",
    "suite": "bench.suite",
    "webhooks": "bench.webhooks",
    "screenshots": "bench.screenshots",
}


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--requests", type=int, default=DEFAULT_REQUESTS, help="timed requests per scenario")
    parser.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="untimed requests before timing")
    parser.add_argument("--memories", type=int, default=DEFAULT_MEMORIES, help="memories in the benchmarked mind")
    parser.add_argument(
        "--other-minds", type=int, default=DEFAULT_OTHER_MINDS, help="other minds of the same size in the database"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the generated contents")
    parser.add_argument("--only", nargs="+", metavar="SCENARIO", help="run only these scenarios / comparisons")
    parser.add_argument("--profile", metavar="SCENARIO", help="print a cProfile of this scenario instead of timing")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/*.json")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.warmup < 0 or args.memories < 1 or args.other_minds < 0:
        parser.error("--requests and --memories must be at least 1; --warmup and --other-minds at least 0.")
    return args


def _machine() -> dict:
    import django

    return {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "django": django.get_version(),
        # Other work on the machine skews latencies; the 1-minute load average says how much.
        "load_average_1m": round(os.getloadavg()[0], 2),
        **server_versions(),
    }


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _verdict(passed: bool | None) -> str:
    return {True: "PASS", False: "FAIL", None: "—"}[passed]


def _table(timings: list[dict], comparisons: list[dict]) -> str:
    header = (
        f"{'scenario':<34} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'mean ms':>8} {'target p95':>10}  result"
    )
    lines = [header, "-" * len(header)]

    def row(timing: dict) -> str:
        target = f"≤ {timing['target_p95_ms']:g}" if timing["target_p95_ms"] is not None else "—"
        errors = f"  ({timing['errors']} errors: {timing['first_error']})" if timing["errors"] else ""
        numbers = " ".join(f"{_fmt(timing[name]):>8}" for name in ("p50_ms", "p95_ms", "p99_ms", "mean_ms"))
        return f"{timing['name']:<34} {timing['n']:>5} {numbers} {target:>10}  {_verdict(timing['passed'])}{errors}"

    lines += [row(timing) for timing in timings]
    for result in comparisons:
        lines += [row({**result["on"], "target_p95_ms": None, "passed": None})]
        lines += [row({**result["off"], "target_p95_ms": None, "passed": None})]
        target = f"< {result['target_overhead_pct']:g} %" if result["target_overhead_pct"] is not None else "—"
        label = f"{result['name']} overhead at p95"
        rounds = ", ".join(f"{value:+.1f}" for value in result["round_overheads_pct"])
        lines.append(
            f"{label:<34} {result['overhead_p95_pct']:>+40.1f} % {target:>10}  {_verdict(result['passed'])}"
            f"  (median of rounds {rounds})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in SUBCOMMANDS:
        return importlib.import_module(SUBCOMMANDS[argv[0]]).main(argv[1:])
    args = _arguments(argv)
    django_setup()
    from rest_framework.test import APIClient

    from bench.checks import hnsw_recall
    from bench.fixture import fixture_build
    from bench.runner import comparison_run, scenario_profile, scenario_run
    from bench.scenarios import COMPARISONS, SCENARIOS, Context

    wanted = set(args.only or [*SCENARIOS, *COMPARISONS])
    unknown = wanted - set(SCENARIOS) - set(COMPARISONS)
    if args.profile and args.profile not in SCENARIOS:
        unknown.add(args.profile)
    if unknown:
        print(f"Unknown scenario(s): {', '.join(sorted(unknown))}. Known: {', '.join([*SCENARIOS, *COMPARISONS])}.")
        return 2

    started = datetime.now(UTC)
    print(f"Creating database {BENCH_DATABASE} …", flush=True)
    database_create()
    try:
        clock = time.perf_counter()
        bench_mind = fixture_build(memories=args.memories, other_minds=args.other_minds, seed=args.seed)
        print(
            f"Fixture: {args.memories} memories in the benchmarked mind, {args.other_minds} other minds "
            f"of the same size ({time.perf_counter() - clock:.1f} s).",
            flush=True,
        )
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {bench_mind.key}")
        ctx = Context(
            client=client, mind_id=bench_mind.mind_id, seed=args.seed, requests=args.requests, warmup=args.warmup
        )
        if args.profile:
            print(scenario_profile(SCENARIOS[args.profile], ctx))
            return 0
        timings, comparisons = [], []
        reads = [name for name, spec in SCENARIOS.items() if name in wanted and not spec.writes]
        writes = [name for name, spec in SCENARIOS.items() if name in wanted and spec.writes]
        for name in reads:
            print(f"… {name}", flush=True)
            timings.append(scenario_run(SCENARIOS[name], ctx).as_dict())
        for name, spec in COMPARISONS.items():
            if name in wanted:
                print(f"… {name}", flush=True)
                comparisons.append(comparison_run(spec, SCENARIOS[spec.scenario], ctx).as_dict())
        print("… HNSW recall check", flush=True)
        recall_check = hnsw_recall(mind_id=bench_mind.mind_id, seed=args.seed, k=RECALL_CHECK_K)
        # Last: writes change the data every other measurement should see as built.
        for name in writes:
            print(f"… {name}", flush=True)
            timings.append(scenario_run(SCENARIOS[name], ctx).as_dict())
        machine = _machine()
    finally:
        database_drop()

    print()
    print(_table(timings, comparisons))
    print()
    print(
        f"HNSW recall@{recall_check['k']} of the vector candidates (filtered by mind) against an exact scan: "
        + ", ".join(f"ef_search {ef}: {value}" for ef, value in recall_check["recall_by_ef_search"].items())
        + "; HNSW index used: "
        + ", ".join(f"{ef}: {used}" for ef, used in recall_check["hnsw_index_used_by_ef_search"].items())
    )
    print(f"Machine: {machine['cpu_count']} CPUs, Python {machine['python']}, PostgreSQL {machine['postgres']}, "
          f"pgvector {machine['pgvector']}, load average {machine['load_average_1m']}")  # fmt: skip
    result = {
        "started_at": started_at(started),
        "machine": machine,
        "config": {
            "requests": args.requests,
            "warmup": args.warmup,
            "memories": args.memories,
            "other_minds": args.other_minds,
            "seed": args.seed,
            "embedder": "hashing",
        },
        "scenarios": timings,
        "comparisons": comparisons,
        "checks": {"hnsw_recall": recall_check},
    }
    if not args.no_save:
        result_save("endpoints", result, started=started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
