"""`make run` end to end: `manage.py serve` on a fresh embedded database, twice.

Starts real processes (PostgreSQL, the django-q2 cluster, gunicorn) in a data directory of
its own, so it neither touches the developer's var/ nor the test database.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The promise: a fresh start answers /health within a minute.
HEALTH_DEADLINE_SECONDS = 60

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="make run's embedded database is the subject"),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _request(url: str, *, method: str = "GET", token: str | None = None, body: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Served:
    """One `manage.py serve` process with its output collected in the background."""

    def __init__(self, var_dir: Path, port: int):
        env = {**os.environ, "SYNAPSE_VAR_DIR": str(var_dir), "DEBUG": "true", "WORKER_PROCESSES": "1"}
        env.pop("SECRET_KEY", None)
        self.base = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--web-workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_healthy(self) -> float:
        started = time.monotonic()
        while time.monotonic() - started < HEALTH_DEADLINE_SECONDS:
            if self.process.poll() is not None:
                pytest.fail(f"serve exited early with {self.process.returncode}:\n{self.output}")
            try:
                status, _ = _request(f"{self.base}/health")
                if status == 200:
                    return time.monotonic() - started
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.5)
        pytest.fail(f"/health did not answer 200 within {HEALTH_DEADLINE_SECONDS} s:\n{self.output}")

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=30)


@pytest.fixture
def var_dir():
    # Under the checkout, not /tmp/pytest-of-root: PostgreSQL runs as its own system user and
    # must be able to enter every parent folder of its data directory.
    path = ROOT / "var" / "tmp" / f"serve-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    yield path
    from memoryproject.embedded_db import stop_embedded_server

    # serve's Ctrl-C has stopped the server it started; this is for a test that failed half-way.
    stop_embedded_server(path / "pgdata")
    shutil.rmtree(path, ignore_errors=True)


def test_make_run_starts_healthy_prints_a_working_key_and_reuses_the_database(var_dir):
    port = _free_port()
    first = Served(var_dir, port)
    try:
        first.wait_healthy()
        match = re.search(r"Mind Key:\s+(mk_\S+)", first.output)
        assert match, first.output
        key = match.group(1)
        status, stored = _request(
            f"{first.base}/memory",
            method="POST",
            token=key,
            body={"category": "fact", "content": "Kept across restarts"},
        )
        assert status == 201
    finally:
        assert first.stop() == 0

    second = Served(var_dir, port)
    try:
        second.wait_healthy()
        assert "Reusing the existing database" in second.output
        assert "Mind Key:" not in second.output
        status, fetched = _request(f"{second.base}/memory/{stored['id']}", token=key)
        assert (status, fetched["content"]) == (200, "Kept across restarts")
    finally:
        assert second.stop() == 0
