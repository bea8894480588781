"""Which gunicorn worker/thread counts serve best here? Over HTTP on loopback, configurations interleaved.

    .venv/bin/python -m bench.serving_capacity [--seconds 8] [--rounds 2]

Starts gunicorn (as `serve` does, from memoryproject/gunicorn_conf.py, with the worker class and
counts overridden on its command line) on the checkout's database, one configuration at a time
and round after round, so load from other processes on the machine spreads over all of them.
This process is the load generator: one thread and one keep-alive connection per client, each
client with a mind of its own, storing and recalling. The last scenario adds two clients that
post 1,000-item syncs back to back while 8 others recall. Results: docs/operations.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np

from memoryproject.embedded.port import free_port as _free_port

ROOT = Path(__file__).resolve().parent.parent
# (label, worker class, processes, threads per process)
CONFIGURATIONS = [
    ("sync ×2", "sync", 2, 1),
    ("gthread 2×4", "gthread", 2, 4),
    ("gthread 2×8", "gthread", 2, 8),
    ("gthread 4×4", "gthread", 4, 4),
]
# (label, clients storing and recalling, clients posting 1,000-item syncs)
SCENARIOS = [("2 clients", 2, 0), ("8 clients", 8, 0), ("50 clients", 50, 0), ("8 + 2 syncs", 8, 2)]
SYNC_ITEMS = 1000  # items per sync request: the API's maximum
REQUEST_TIMEOUT_SECONDS = 120
SERVER_START_DEADLINE_SECONDS = 60


class Client:
    def __init__(self, port: int, token: str | None = None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_SECONDS)
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.read()


def _start_server(
    port: int, worker_class: str, workers: int, threads: int, extra_env: dict[str, str] | None = None
) -> subprocess.Popen:
    """gunicorn as `serve` configures it; `extra_env` overrides the environment (bench/load.py: its database)."""
    env = {**os.environ, "DEBUG": "true", "THROTTLE_MIND_KEY": "100000000/min", "THROTTLE_REGISTER_IP": "1000/hour"}
    env.update(extra_env or {})
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:memoryproject.gunicorn_conf"]
    argv += ["--bind", f"127.0.0.1:{port}", "-k", worker_class, "--workers", str(workers)]
    argv += ["--threads", str(threads), "--access-logfile", "/dev/null", "memoryproject.wsgi"]
    server = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + SERVER_START_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        try:
            if Client(port).call("GET", "/health")[0] in (200, 503):
                return server
        except OSError:
            time.sleep(0.3)
    raise SystemExit("gunicorn did not answer /health in time")


def _stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    server.wait(timeout=60)


def _mind_keys(port: int, count: int) -> list[str]:
    email = f"bench-{uuid.uuid4().hex[:8]}@example.com"
    status, body = Client(port).call("POST", "/register", {"email": email, "password": "bench-" + uuid.uuid4().hex})
    assert status == 201, body
    human = Client(port, json.loads(body)["access"])
    keys = []
    for index in range(count):
        status, body = human.call("POST", "/minds", {"name": f"bench mind {index}"})
        assert status == 201, body
        keys.append(json.loads(body)["mind_key"])
    return keys


def _agent(port, key, stop, samples, errors):
    client = Client(port, key)
    counter = 0
    while not stop.is_set():
        counter += 1
        if counter % 2:
            kind, method, path = "store", "POST", "/memory"
            body = {"category": "fact", "content": f"Load note {counter}: the deploy ran at step {counter % 97}."}
        else:
            kind, method, path, body = "recall", "GET", "/memory/recall?limit=20", None
        started = time.perf_counter()
        try:
            status, _ = client.call(method, path, body)
        except OSError as error:
            errors.append(repr(error))
            client = Client(port, key)
            continue
        elapsed = time.perf_counter() - started
        if status >= 300:
            errors.append(status)
        elif not stop.is_set():
            samples[kind].append(elapsed)


def sync_items(round_number: int) -> list[dict]:
    """One 1,000-item sync body: the same keys every round (so it rewrites them), new content."""
    return [
        {"category": "fact", "key": f"sync-{index}", "content": f"Synced item {index}, round {round_number}."}
        for index in range(SYNC_ITEMS)
    ]


def _syncer(port, key, stop, samples, errors):
    client = Client(port, key)
    round_number = 0
    while not stop.is_set():
        round_number += 1
        items = sync_items(round_number)
        started = time.perf_counter()
        status, body = client.call("POST", "/memory/sync", {"memories": items})
        if status != 200:
            errors.append(status)
        samples["sync"].append(time.perf_counter() - started)


def _run_scenario(port, keys, agents, syncers, seconds) -> dict:
    stop = threading.Event()
    samples = {"store": [], "recall": [], "sync": []}
    errors: list = []
    threads = [threading.Thread(target=_agent, args=(port, keys[i], stop, samples, errors)) for i in range(agents)]
    threads += [
        threading.Thread(target=_syncer, args=(port, keys[-1 - i], stop, samples, errors)) for i in range(syncers)
    ]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()

    def p(kind, q):
        return round(float(np.percentile(samples[kind], q)) * 1000, 1) if samples[kind] else None

    return {
        "rps": round((len(samples["store"]) + len(samples["recall"])) / seconds, 1),
        "store_p50": p("store", 50),
        "store_p95": p("store", 95),
        "recall_p50": p("recall", 50),
        "recall_p95": p("recall", 95),
        "syncs": len(samples["sync"]),
        "sync_p50": p("sync", 50),
        "errors": len(errors),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    options = parser.parse_args()
    port = _free_port()
    max_clients = max(agents + syncers for _, agents, syncers in SCENARIOS)
    server = _start_server(port, "sync", 1, 1)
    try:
        keys = _mind_keys(port, max_clients)
    finally:
        _stop_server(server)
    results: dict[tuple[str, str], list[dict]] = {}
    for round_index in range(options.rounds):
        for label, worker_class, workers, threads in CONFIGURATIONS:
            server = _start_server(port, worker_class, workers, threads)
            try:
                for scenario, agents, syncers in SCENARIOS:
                    result = _run_scenario(port, keys, agents, syncers, options.seconds)
                    results.setdefault((label, scenario), []).append(result)
                    print(f"round {round_index + 1} {label:12} {scenario:12} {result}", flush=True)
            finally:
                _stop_server(server)
    print("\n| configuration | scenario | req/s | store p50/p95 ms | recall p50/p95 ms | syncs (p50 s) | errors |")
    print("|---|---|---|---|---|---|---|")
    for (label, scenario), runs in results.items():
        cells = []
        for field in ("rps",):
            cells.append(" / ".join(str(run[field]) for run in runs))
        store = " · ".join(f"{run['store_p50']}/{run['store_p95']}" for run in runs)
        recall = " · ".join(f"{run['recall_p50']}/{run['recall_p95']}" for run in runs)
        syncs = " · ".join(f"{run['syncs']} ({(run['sync_p50'] or 0) / 1000:.1f})" for run in runs)
        errors = sum(run["errors"] for run in runs)
        print(f"| {label} | {scenario} | {cells[0]} | {store} | {recall} | {syncs} | {errors} |")


if __name__ == "__main__":
    main()
