"""The tests that start servers (`make run`, `manage.py serve`): their data directories, their
environment, one served process with its output, and JSON requests to it.

A test that starts `make run` or `manage.py serve` gets a var/ of its own under the checkout
(PostgreSQL runs as its own system user and must be able to enter every parent folder of its
data directory, which /tmp/pytest-of-root does not allow). A fresh one costs an initdb and every
migration from zero, tens of seconds on a loaded 2-core machine; the one test that is about
that start (tests/test_make_run.py) takes `var_dir`. The others take `migrated_var_dir`: a copy
of one var/ migrated once per run (by the first worker that needs it, under a lock) with its
server stopped, so they start on a database that only needs its demo account.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.processes import ExitedEarly, wait_for

ROOT = Path(__file__).resolve().parent.parent
# One id per test run, shared by pytest-xdist's workers (they inherit the environment).
RUN_ID_VARIABLE = "SYNAPSE_TEST_RUN_ID"
# How long the migration of the template may take on a loaded machine (seconds).
TEMPLATE_MIGRATE_SECONDS = 300
# How long its server may take to stop once the migrating process exited (seconds).
TEMPLATE_STOP_SECONDS = 60
# The promise of `make run`: a fresh start answers /health within a minute (seconds).
HEALTH_DEADLINE_SECONDS = 60


def template_path() -> Path:
    return ROOT / "var" / "tmp" / f"template-{os.environ[RUN_ID_VARIABLE]}"


def server_env(var_dir: Path, **overrides: str) -> dict[str, str]:
    """The environment of a user's shell on `var_dir`: no DEBUG, no SECRET_KEY, not inside another make."""
    env = {**os.environ, "SYNAPSE_VAR_DIR": str(var_dir), "WORKER_PROCESSES": "1", "WEB_WORKERS": "1"}
    # pytest-django exports DJANGO_SETTINGS_MODULE=tests.settings (a fixed SECRET_KEY among them).
    for name in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
        env.pop(name, None)
    return {**env, **overrides}


def _migrated_template() -> Path:
    """The run's migrated var/ (its server stopped), made by the first process that asks."""
    template = template_path()
    ready = template.with_name(template.name + ".ready")
    template.parent.mkdir(parents=True, exist_ok=True)
    with open(template.with_name(template.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if ready.exists():
            return template
        shutil.rmtree(template, ignore_errors=True)
        template.mkdir()
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
            cwd=ROOT,
            env={key: value for key, value in server_env(template, DEBUG="true").items() if key != "SYNAPSE_PGDATA"},
            capture_output=True,
            text=True,
            timeout=TEMPLATE_MIGRATE_SECONDS,
        )
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        # The migrating process was the server's only client: it stopped the server at its exit.
        stopped = wait_for(lambda: not (template / "pgdata" / "postmaster.pid").exists(), seconds=TEMPLATE_STOP_SECONDS)
        assert stopped, f"the template's server in {template} did not stop"
        ready.touch()
    return template


def var_dir_made(prefix: str, *, migrated: bool) -> Path:
    path = ROOT / "var" / "tmp" / f"{prefix}-{uuid.uuid4().hex[:8]}"
    if migrated and not os.environ.get("DATABASE_URL"):  # over DATABASE_URL no embedded server starts
        path.parent.mkdir(parents=True, exist_ok=True)
        # `cp -a` keeps the owner (the server's own system user when we are root) and the modes
        # PostgreSQL insists on.
        subprocess.run(["cp", "-a", str(_migrated_template()), str(path)], check=True, timeout=120)
    else:
        path.mkdir(parents=True)
    return path


def var_dir_removed(path: Path) -> None:
    from memoryproject.embedded.server import stop_embedded_server

    # The processes under test stop the server they started; this is for a test that failed half-way.
    stop_embedded_server(path / "pgdata")
    shutil.rmtree(path, ignore_errors=True)


def request_json(url: str, *, method: str = "GET", token: str | None = None, body: dict | None = None):
    """`method` `url` with a JSON body and a bearer token; the status and the decoded JSON answer."""
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

    def __init__(
        self,
        var_dir: Path,
        port: int,
        *,
        args: tuple[str, ...] = (),
        command: list[str] | None = None,
        env: dict[str, str] | None = None,
    ):
        environment = {**os.environ, "SYNAPSE_VAR_DIR": str(var_dir), "DEBUG": "true", "WORKER_PROCESSES": "1"}
        environment.pop("SECRET_KEY", None)
        environment.pop("DJANGO_SETTINGS_MODULE", None)  # pytest-django's tests.settings; serve runs the real ones
        environment.update(env or {})
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            command or [sys.executable, "manage.py", "serve", "--port", str(port), "--web-workers", "1", *args],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # A process group of its own, as a shell gives a foreground job: stop() is Ctrl-C.
            start_new_session=True,
        )
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def healthy(self) -> bool:
        try:
            return request_json(f"{self.base}/health")[0] == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    def wait_healthy(self, deadline_seconds: float = HEALTH_DEADLINE_SECONDS) -> float:
        started = time.monotonic()
        try:
            healthy = wait_for(self.healthy, seconds=deadline_seconds, every=0.2, process=self.process)
        except ExitedEarly:
            pytest.fail(f"serve exited early with {self.process.returncode}:\n{self.output}")
        if not healthy:
            pytest.fail(f"/health did not answer 200 within {deadline_seconds} s:\n{self.output}")
        return time.monotonic() - started

    def stop(self) -> int:
        """Ctrl-C as a terminal sends it: SIGINT to every process of the foreground group."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
        return self.process.wait(timeout=60)


def own_lines(output: str) -> list[str]:
    """Output lines without make's own closing `make: *** [...] Error 2`."""
    return [line for line in output.splitlines() if line.strip() and not line.startswith("make: ***")]
