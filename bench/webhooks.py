"""`python -m bench webhooks`: POST /memory's latency with a webhook at a dead and at a slow receiver, beside none.

A throw-away database gets three minds of one user: one without webhooks, one whose webhook
(`*`) points at a loopback port where nothing listens, one whose webhook points at a loopback
receiver (an `http.server` thread) that sleeps `--slow-seconds` before it answers. The three
store `--requests` new memories each through the whole stack in-process (middleware, Mind Key
authentication, the pipeline log), in turns (none, dead, slow, none, …) so a change of load
falls on all three alike, after `--warmup` untimed stores each. No worker runs: the deliveries
are recorded and enqueued, never made. Reported per scenario: p50 / p95 / max in ms, the SQL
statements of one store (load-independent), and the requests the receivers got during the
stores (0: the write calls nobody).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench.database import database_create, database_drop, django_setup, server_versions
from bench.saving import result_save, started_at

WEBHOOKS_DATABASE = "bench_synapse_webhooks"
DEFAULT_REQUESTS = 200
DEFAULT_WARMUP = 20
# How long the slow receiver waits before it answers (s): longer than the delivery timeout.
DEFAULT_SLOW_SECONDS = 10.0
SCENARIOS = ("no webhook", "dead receiver", "slow receiver")


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench webhooks", description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=DEFAULT_REQUESTS, help="timed stores per scenario")
    parser.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="untimed stores per scenario first")
    parser.add_argument("--slow-seconds", type=float, default=DEFAULT_SLOW_SECONDS)
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/*.json")
    parser.add_argument("--database", default=WEBHOOKS_DATABASE, help="the throw-away database's name")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.warmup < 0 or args.slow_seconds < 0:
        parser.error("--requests must be at least 1; --warmup and --slow-seconds at least 0")
    return args


class _SlowHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.server.hits += 1  # type: ignore[attr-defined]
        time.sleep(self.server.delay)  # type: ignore[attr-defined]
        self.send_response(200)
        self.end_headers()

    def log_message(self, format, *args) -> None:
        pass


def _slow_receiver(delay: float) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    server.daemon_threads = True
    server.hits, server.delay = 0, delay  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


def _percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def stores_measure(*, requests: int, warmup: int, slow_seconds: float) -> tuple[dict[str, dict], int]:
    """Per scenario: ms samples summarised and statements per store; and the receivers' hits."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from minds.services import mind_create, user_register
    from webhooks.models import WebhookDelivery
    from webhooks.services.hooks import webhook_create

    slow = _slow_receiver(slow_seconds)
    owner = user_register(email="bench-webhooks@example.com", password="bench webhooks password 42")
    clients: dict[str, APIClient] = {}
    minds: dict[str, str] = {}
    for name in SCENARIOS:
        mind, issued = mind_create(owner=owner, name=name)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.plaintext}")
        clients[name], minds[name] = client, mind.pk
    webhook_create(mind_id=minds["dead receiver"], url=_dead_url(), events="*")
    webhook_create(mind_id=minds["slow receiver"], url=f"http://127.0.0.1:{slow.server_address[1]}/hook", events="*")

    def store(name: str, index: int) -> float:
        body = {"category": "fact", "key": f"k{index}", "content": f"Bench memory {index} of {name}: likes tea."}
        clock = time.perf_counter()
        response = clients[name].post("/memory", body, format="json")
        elapsed = (time.perf_counter() - clock) * 1000
        if response.status_code != 201:
            raise RuntimeError(f"{name}: store answered {response.status_code}: {response.content[:200]!r}")
        return elapsed

    for index in range(warmup):
        for name in SCENARIOS:
            store(name, index)
    statements = {}
    for name in SCENARIOS:
        with CaptureQueriesContext(connection) as captured:
            store(name, warmup)
        statements[name] = len(captured.captured_queries)
    samples: dict[str, list[float]] = {name: [] for name in SCENARIOS}
    for index in range(warmup + 1, warmup + 1 + requests):
        for name in SCENARIOS:
            samples[name].append(store(name, index))
    hits = slow.hits  # type: ignore[attr-defined]
    slow.shutdown()
    slow.server_close()
    recorded = {name: WebhookDelivery.objects.filter(webhook__mind_id=minds[name]).count() for name in SCENARIOS}
    results = {
        name: {
            "requests": len(values),
            "p50_ms": round(statistics.median(values), 2),
            "p95_ms": round(_percentile(values, 0.95), 2),
            "max_ms": round(max(values), 2),
            "statements_per_store": statements[name],
            "deliveries_recorded": recorded[name],
        }
        for name, values in samples.items()
    }
    return results, hits


def table(results: dict[str, dict]) -> str:
    lines = [
        "| POST /memory | p50 ms | p95 ms | max ms | SQL statements per store | deliveries recorded |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in results.items():
        lines.append(
            f"| {name} | {row['p50_ms']:.1f} | {row['p95_ms']:.1f} | {row['max_ms']:.1f} | "
            f"{row['statements_per_store']} | {row['deliveries_recorded']} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    started = datetime.now(UTC)
    os.environ["SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK"] = "true"  # the receivers are on this machine
    django_setup()
    print(f"Creating database {args.database} …", flush=True)
    database_create(args.database)
    try:
        results, hits = stores_measure(requests=args.requests, warmup=args.warmup, slow_seconds=args.slow_seconds)
        machine = {"cpu_count": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2), **server_versions()}
    finally:
        database_drop(args.database)
    print()
    print(table(results))
    print(f"Requests the receivers got during the stores: {hits}")
    print(f"Load average {machine['load_average_1m']}, PostgreSQL {machine['postgres']}")
    result = {
        "started_at": started_at(started),
        "machine": machine,
        "config": {"requests": args.requests, "warmup": args.warmup, "slow_seconds": args.slow_seconds},
        "scenarios": results,
        "receiver_hits_during_stores": hits,
    }
    if not args.no_save:
        result_save("webhooks", result, started=started)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
