"""Load: many agents at once over HTTP, serve's gunicorn beside two sync workers, interleaved.

    .venv/bin/python -m bench load [--agents 50] [--seconds 60] [--rounds 1] [--embedder hashing …]

A throw-away database (`bench_load`) on the checkout's PostgreSQL; gunicorn started on loopback
as `serve` configures it (bench/serving_capacity.py), once with serve's default gthread workers
and once with two sync workers (the configuration before), scenario after scenario, so load
from other processes on the machine falls on both. This process is the load generator: one
thread and keep-alive connection per agent, each agent with a mind of its own, storing,
recalling and searching in turn. Two scenarios:

- `agents`: the agents alone;
- `agents + 2 syncs`: the same agents while two more clients post 1,000-item syncs back to back.
  The agents' recall p95 there against `agents` says how much two long requests slow the rest
  (goal: within RECALL_SLOWDOWN_GOAL).

Then, on serve's configuration and the first embedder only, the client levels (`--clients`, default 1, 2, 4, 8, 16 and
50 agents, `--level-seconds` each, one server for the sweep): throughput and p95 per operation
at each level — where adding clients stops adding throughput and only adds waiting.

Every acknowledged write (a 201 store, every id of a 200 sync) is looked up in the database
afterwards: a missing one is a lost write. Any answer that is not a 2xx, or a broken
connection, is an error. The semantic embedder (sentence-transformers) is measured too when it
is installed. Prints a table; writes bench/results/load-<time>.json and load-latest.json.
Results and method: docs/benchmarks.md → Load.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import secrets
import threading
import time
import urllib.parse
from datetime import UTC, datetime

import numpy as np

from bench.database import database_create, database_drop, django_setup
from bench.saving import result_save, started_at
from bench.serving_capacity import (
    SYNC_ITEMS,
    Client,
    _free_port,
    _mind_keys,
    _start_server,
    _stop_server,
    sync_items,
)

LOAD_DATABASE = "bench_load"  # the throw-away database of a run
DEFAULT_AGENTS = 50
DEFAULT_SECONDS = 60.0  # length of each scenario
SYNCING_CLIENTS = 2  # clients posting 1,000-item syncs in the second scenario
# Goal: the agents' recall p95 while the syncs run, at most this many times its value without them.
RECALL_SLOWDOWN_GOAL = 3.0
SEMANTIC_EMBEDDER = "sentence-transformers"
OPERATIONS = ("store", "recall", "search", "sync")
# One agent's turn of requests, repeated: writes are half of them, as an agent storing while it works.
AGENT_CYCLE = ("store", "recall", "store", "search")
SEARCH_WORDS = ("deploy", "database", "release notes", "customer call", "backup")
ERRORS_KEPT = 5  # examples of errors kept in the results
# The client levels of the throughput sweep (agents at once) and the length of each level (s).
DEFAULT_CLIENT_LEVELS = (1, 2, 4, 8, 16, 50)
DEFAULT_LEVEL_SECONDS = 10.0


def _configurations() -> list[tuple[str, str, int, int]]:
    """(label, worker class, processes, threads): serve's default, then the configuration before."""
    import memoryproject.gunicorn_conf as gunicorn_conf

    return [
        (
            f"gthread {gunicorn_conf.workers}×{gunicorn_conf.threads} (serve)",
            "gthread",
            gunicorn_conf.workers,
            gunicorn_conf.threads,
        ),
        ("sync ×2 (before)", "sync", 2, 1),
    ]


class Tally:
    """What the clients of one scenario saw: latencies per operation, errors, acknowledged ids."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = {operation: [] for operation in OPERATIONS}
        self.errors = 0
        self.error_examples: list[str] = []
        self.acknowledged: set[str] = set()

    def error(self, what: str) -> None:
        with self.lock:
            self.errors += 1
            if len(self.error_examples) < ERRORS_KEPT:
                self.error_examples.append(what)


def _agent(port: int, key: str, index: int, stop: threading.Event, tally: Tally) -> None:
    client = Client(port, key)
    turn = 0
    while not stop.is_set():
        operation = AGENT_CYCLE[turn % len(AGENT_CYCLE)]
        turn += 1
        body = None
        if operation == "store":
            method, path = "POST", "/memory"
            body = {"category": "fact", "content": f"Agent {index}, note {turn}: the deploy ran at step {turn % 97}."}
        elif operation == "recall":
            method, path = "GET", "/memory/recall?limit=20"
        else:
            words = urllib.parse.quote(SEARCH_WORDS[turn % len(SEARCH_WORDS)])
            method, path = "GET", f"/memory/search?q={words}&limit=10"
        started = time.perf_counter()
        try:
            status, answer = client.call(method, path, body)
        except OSError as error:
            tally.error(f"{operation}: {error!r}")
            client = Client(port, key)
            continue
        elapsed = time.perf_counter() - started
        if not 200 <= status < 300:
            tally.error(f"{operation}: {status} {answer[:200]!r}")
            continue
        if operation == "store":
            with tally.lock:  # acknowledged, whether or not the scenario is over
                tally.acknowledged.add(json.loads(answer)["id"])
        if not stop.is_set():
            tally.latencies[operation].append(elapsed)


def _syncer(port: int, key: str, stop: threading.Event, tally: Tally) -> None:
    client = Client(port, key)
    round_number = 0
    while not stop.is_set():
        round_number += 1
        items = sync_items(round_number)
        started = time.perf_counter()
        try:
            status, answer = client.call("POST", "/memory/sync", {"memories": items})
        except OSError as error:
            tally.error(f"sync: {error!r}")
            client = Client(port, key)
            continue
        elapsed = time.perf_counter() - started
        if status != 200:
            tally.error(f"sync: {status} {answer[:200]!r}")
            continue
        with tally.lock:
            tally.acknowledged.update(result["id"] for result in json.loads(answer)["results"])
        tally.latencies["sync"].append(elapsed)


def _percentile_ms(values: list[float], q: int) -> float | None:
    return round(float(np.percentile(values, q)) * 1000, 1) if values else None


def _lost_writes(ids: set[str]) -> int:
    from memories.models import Memory

    ordered = sorted(ids)
    found = 0
    for start in range(0, len(ordered), 1000):
        found += Memory.objects.filter(pk__in=ordered[start : start + 1000]).count()
    return len(ids) - found


def _run_scenario(port: int, agent_keys: list[str], sync_keys: list[str], seconds: float) -> dict:
    stop = threading.Event()
    tally = Tally()
    threads = [
        threading.Thread(target=_agent, args=(port, key, index, stop, tally)) for index, key in enumerate(agent_keys)
    ]
    threads += [threading.Thread(target=_syncer, args=(port, key, stop, tally)) for key in sync_keys]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    operations = {
        operation: {
            "count": len(values),
            "per_second": round(len(values) / seconds, 1),
            "p50_ms": _percentile_ms(values, 50),
            "p95_ms": _percentile_ms(values, 95),
        }
        for operation, values in tally.latencies.items()
        if values or operation != "sync"
    }
    agent_requests = sum(len(tally.latencies[operation]) for operation in ("store", "recall", "search"))
    return {
        "agent_requests_per_second": round(agent_requests / seconds, 1),
        "operations": operations,
        "errors": tally.errors,
        "error_examples": tally.error_examples,
        "acknowledged_writes": len(tally.acknowledged),
        "lost_writes": _lost_writes(tally.acknowledged),
    }


def _server_env(embedder: str, database_url: str, secret_key: str) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url,
        "DEBUG": "false",  # DEBUG keeps every query of a request in memory
        "SECRET_KEY": secret_key,  # one for the whole run: the Mind Keys' digests depend on it
        "SYNAPSE_EMBEDDER": embedder,
    }


def _run_embedder(embedder: str, options: argparse.Namespace, database_url: str) -> list[dict]:
    configurations = _configurations()
    env = _server_env(embedder, database_url, "bench-load-" + secrets.token_urlsafe(40))
    port = _free_port()
    _, worker_class, workers, threads = configurations[0]
    server = _start_server(port, worker_class, workers, threads, env)
    try:
        keys = _mind_keys(port, options.agents + SYNCING_CLIENTS)
    finally:
        _stop_server(server)
    agent_keys, sync_keys = keys[: options.agents], keys[options.agents :]
    scenarios = [(f"{options.agents} agents", []), (f"{options.agents} agents + {SYNCING_CLIENTS} syncs", sync_keys)]
    results = []
    for round_index in range(options.rounds):
        for scenario, syncers in scenarios:
            for label, worker_class, workers, threads in configurations:
                server = _start_server(port, worker_class, workers, threads, env)
                try:
                    result = _run_scenario(port, agent_keys, syncers, options.seconds)
                finally:
                    _stop_server(server)
                result = {
                    "embedder": embedder,
                    "configuration": label,
                    "scenario": scenario,
                    "round": round_index + 1,
                    **result,
                }
                results.append(result)
                print(
                    f"{embedder} round {round_index + 1} {label:22} {scenario:20} "
                    f"{result['agent_requests_per_second']} req/s, {result['errors']} errors, "
                    f"{result['acknowledged_writes']} acknowledged, {result['lost_writes']} lost",
                    flush=True,
                )
    return results


def _run_levels(embedder: str, options: argparse.Namespace, database_url: str) -> list[dict]:
    """The throughput sweep: serve's configuration, one server, each client level in turn."""
    label, worker_class, workers, threads = _configurations()[0]
    env = _server_env(embedder, database_url, "bench-levels-" + secrets.token_urlsafe(40))
    port = _free_port()
    server = _start_server(port, worker_class, workers, threads, env)
    levels = []
    try:
        keys = _mind_keys(port, max(options.clients))
        for clients in options.clients:
            result = _run_scenario(port, keys[:clients], [], options.level_seconds)
            levels.append({"embedder": embedder, "configuration": label, "clients": clients, **result})
            print(
                f"{embedder} {label} {clients:>3} clients: {result['agent_requests_per_second']} req/s, "
                f"{result['errors']} errors, {result['lost_writes']} lost",
                flush=True,
            )
    finally:
        _stop_server(server)
    return levels


def levels_table(levels: list[dict]) -> str:
    lines = [
        "| embedder | clients | req/s | store /s · p95 ms | recall /s · p95 ms | search /s · p95 ms "
        "| errors | writes acknowledged / lost |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for level in levels:
        operations = level["operations"]
        lines.append(
            f"| {level['embedder']} | {level['clients']} | {level['agent_requests_per_second']} "
            f"| {_cell(operations['store'])} | {_cell(operations['recall'])} | {_cell(operations['search'])} "
            f"| {level['errors']} | {level['acknowledged_writes']:,} / {level['lost_writes']} |"
        )
    return "\n".join(lines)


def _slowdowns(results: list[dict]) -> list[dict]:
    """The agents' recall p95 with the syncs against without them, per embedder, configuration, round."""
    by_key = {(r["embedder"], r["configuration"], r["round"], bool(r["operations"].get("sync"))): r for r in results}
    slowdowns = []
    for (embedder, configuration, round_number, with_syncs), result in by_key.items():
        alone = by_key.get((embedder, configuration, round_number, False))
        if not with_syncs or alone is None:
            continue
        before, during = alone["operations"]["recall"]["p95_ms"], result["operations"]["recall"]["p95_ms"]
        ratio = round(during / before, 2) if before and during else None
        slowdowns.append(
            {
                "embedder": embedder,
                "configuration": configuration,
                "round": round_number,
                "recall_p95_ms_alone": before,
                "recall_p95_ms_beside_syncs": during,
                "ratio": ratio,
                "within_goal": ratio is not None and ratio <= RECALL_SLOWDOWN_GOAL,
            }
        )
    return slowdowns


def _cell(operation: dict | None) -> str:
    if not operation or operation["p95_ms"] is None:
        return "—"
    return f"{operation['per_second']} · {operation['p95_ms']:,.0f}"


def _table(results: list[dict], slowdowns: list[dict]) -> str:
    lines = [
        "| embedder | configuration | scenario | agent req/s | store /s · p95 ms | recall /s · p95 ms "
        "| search /s · p95 ms | syncs (p95 s) | errors | writes acknowledged / lost |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        operations = r["operations"]
        sync = operations.get("sync")
        syncs = f"{sync['count']} ({sync['p95_ms'] / 1000:.1f})" if sync else "—"
        lines.append(
            f"| {r['embedder']} | {r['configuration']} | {r['scenario']} | {r['agent_requests_per_second']} "
            f"| {_cell(operations['store'])} | {_cell(operations['recall'])} | {_cell(operations['search'])} "
            f"| {syncs} | {r['errors']} | {r['acknowledged_writes']:,} / {r['lost_writes']} |"
        )
    lines += [
        "",
        "| embedder | configuration | recall p95 alone → beside the syncs (ms) "
        f"| ratio (goal ≤ {RECALL_SLOWDOWN_GOAL:g}×) |",
        "|---|---|---|---|",
    ]

    def ms(value: float | None) -> str:
        return "—" if value is None else f"{value:,.0f}"

    for s in slowdowns:
        alone, beside = s["recall_p95_ms_alone"], s["recall_p95_ms_beside_syncs"]
        # A short scenario on a slow embedder may finish no recall at all: nothing to compare.
        verdict = "no recall finished" if None in (alone, beside) else "within" if s["within_goal"] else "OVER"
        lines.append(
            f"| {s['embedder']} | {s['configuration']} | {ms(alone)} → {ms(beside)} | {s['ratio']}× ({verdict}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench load", description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=DEFAULT_AGENTS, help="agents, each with its own mind")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="length of each scenario")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of both scenarios on both configurations")
    parser.add_argument(
        "--embedder",
        action="append",
        help="SYNAPSE_EMBEDDER values (default: hashing, and sentence-transformers when installed)",
    )
    parser.add_argument(
        "--clients",
        type=int,
        nargs="*",
        default=list(DEFAULT_CLIENT_LEVELS),
        help="client levels of the throughput sweep (none: no sweep)",
    )
    parser.add_argument("--level-seconds", type=float, default=DEFAULT_LEVEL_SECONDS, help="length of each level")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/load-*.json")
    options = parser.parse_args(argv)
    if options.agents < 1 or options.seconds <= 0 or options.rounds < 1:
        parser.error("--agents and --rounds must be at least 1, --seconds more than 0.")
    if any(clients < 1 for clients in options.clients) or options.level_seconds <= 0:
        parser.error("--clients must be at least 1 each, --level-seconds more than 0.")
    embedders = options.embedder or ["hashing"]
    semantic_installed = importlib.util.find_spec("sentence_transformers") is not None
    if not options.embedder and semantic_installed:
        embedders.append(SEMANTIC_EMBEDDER)
    elif not options.embedder:
        print(f"{SEMANTIC_EMBEDDER} is not installed (requirements-semantic.txt): measuring hashing only.")

    django_setup()
    from django.conf import settings

    started = datetime.now(UTC)
    print(f"Creating database {LOAD_DATABASE} …", flush=True)
    database_create(LOAD_DATABASE)
    database_url = urllib.parse.urlunsplit(
        urllib.parse.urlsplit(settings.DATABASE_URL)._replace(path=f"/{LOAD_DATABASE}")
    )
    load_before = os.getloadavg()
    try:
        results = [result for embedder in embedders for result in _run_embedder(embedder, options, database_url)]
        # The sweep with the first embedder only: it measures the server's capacity, and the
        # semantic embedder's cost already shows in the scenarios above.
        levels = _run_levels(embedders[0], options, database_url) if options.clients else []
    finally:
        database_drop(LOAD_DATABASE)
    slowdowns = _slowdowns(results)
    load_after = os.getloadavg()
    print()
    print(_table(results, slowdowns))
    if levels:
        print()
        print(levels_table(levels))
    print(
        f"\nMachine: {os.cpu_count()} CPUs; load average (1, 5, 15 min) before "
        f"{', '.join(f'{v:.2f}' for v in load_before)}, after {', '.join(f'{v:.2f}' for v in load_after)}"
    )
    report = {
        "started_at": started_at(started),
        "config": {
            "agents": options.agents,
            "seconds": options.seconds,
            "rounds": options.rounds,
            "syncing_clients": SYNCING_CLIENTS,
            "sync_items": SYNC_ITEMS,
            "agent_cycle": list(AGENT_CYCLE),
            "embedders": embedders,
            "semantic_installed": semantic_installed,
            "client_levels": options.clients,
            "level_seconds": options.level_seconds,
        },
        "machine": {"cpu_count": os.cpu_count(), "load_average_before": load_before, "load_average_after": load_after},
        "results": results,
        "recall_slowdown": slowdowns,
        "levels": levels,
    }
    if not options.no_save:
        result_save("load", report, started=started)
    failed = any(r["errors"] or r["lost_writes"] for r in results + levels)
    return 1 if failed else 0
