"""`make run` end to end: `manage.py serve` started twice on one database, and `make run` on a
fresh var/ (the one test of the suite that migrates a database from zero through `make run`).

Starts real processes (PostgreSQL, the django-q2 cluster, gunicorn) in a data directory of
its own, so it neither touches the developer's var/ nor the test database.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest

from memoryproject.embedded.port import free_port as _free_port
from memoryproject.embedded.port import listen_problem
from tests.processes import ExitedEarly, wait_for
from tests.servers import server_env

ROOT = Path(__file__).resolve().parent.parent
# The promise: a fresh start answers /health within a minute.
HEALTH_DEADLINE_SECONDS = 60

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="make run's embedded database is the subject"),
]


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
            return _request(f"{self.base}/health")[0] == 200
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


def test_make_run_starts_healthy_prints_a_working_key_and_reuses_the_database(migrated_var_dir):
    var_dir = migrated_var_dir  # migrated once per run: the test below migrates from zero
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


# --- make run: PORT, Ctrl-C, a busy port, a bad setting, manage.py on the embedded server -----


def _make_env(var_dir: Path, **overrides: str) -> dict[str, str]:
    """The environment of a user's shell: no DEBUG, no SECRET_KEY, not inside another make."""
    return server_env(var_dir, **overrides)


def _own_lines(output: str) -> list[str]:
    """Output lines without make's own closing `make: *** [...] Error 2`."""
    return [line for line in output.splitlines() if line.strip() and not line.startswith("make: ***")]


def _process_tree(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def _still_running(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            continue
    return alive


def _admin_login(base: str, email: str, password: str) -> tuple[str, str]:
    """Log in through the admin's own form; the final URL and page after its redirect."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    login_url = f"{base}/admin/login/?next=/admin/"
    with opener.open(login_url, timeout=10) as response:
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.read().decode()).group(1)
    form = urllib.parse.urlencode(
        {"username": email, "password": password, "csrfmiddlewaretoken": token, "next": "/admin/"}
    ).encode()
    with opener.open(urllib.request.Request(login_url, data=form), timeout=10) as response:
        return response.geturl(), response.read().decode()


def test_make_run_listens_on_port_lets_the_demo_account_into_the_admin_and_stops_everything_on_ctrl_c(var_dir):
    port = _free_port()
    served = Served(var_dir, port, command=["make", "--no-print-directory", "run", f"PORT={port}"])
    try:
        served.wait_healthy()
        tree = _process_tree(served.process.pid)
        assert any("qcluster" in " ".join(p.cmdline()) for p in tree), "serve runs a worker cluster"
        password = re.search(r"Password:\s+(\S+)", served.output).group(1)
        final_url, page = _admin_login(served.base, "demo@example.com", password)
        assert final_url == f"{served.base}/admin/"
        assert "Site administration" in page
    finally:
        served.stop()
    assert _still_running(tree) == []
    assert served.output.count("has stopped.") == 1, served.output  # the cluster is stopped once
    assert listen_problem("127.0.0.1", port) is None

    # The README's manage.py commands, as written: no DEBUG, no SECRET_KEY, on the embedded server.
    result = subprocess.run(
        [sys.executable, "manage.py", "sync_schedules"],
        cwd=ROOT,
        env=_make_env(var_dir),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "kept synapse:" in result.stdout


def test_make_run_on_a_busy_port_says_so_in_one_line_and_starts_nothing(var_dir):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run(
            ["make", "--no-print-directory", "run", f"PORT={port}"],
            cwd=ROOT,
            env=_make_env(var_dir),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode != 0
    lines = _own_lines(result.stdout + result.stderr)
    assert len(lines) == 1, lines
    assert f"Port {port} on 127.0.0.1 is already in use" in lines[0]
    assert not (var_dir / "pgdata").exists()  # not even the database was started


@pytest.mark.parametrize(
    ("command", "expected_status"),
    [
        (["make", "--no-print-directory", "run", "PORT={free_port}"], 2),  # make's status for a failed recipe
        ([sys.executable, "manage.py", "sync_schedules"], 2),
        ([sys.executable, "-c", "import memoryproject.wsgi"], 4),  # gunicorn's "app failed to load"
    ],
    ids=["make run", "manage.py", "wsgi"],
)
def test_a_bad_setting_stops_with_one_line_naming_the_variable(var_dir, command, expected_status):
    command = [part.format(free_port=_free_port()) for part in command]
    result = subprocess.run(
        command, cwd=ROOT, env=_make_env(var_dir, DEBUG="maybe"), capture_output=True, text=True, timeout=60
    )
    lines = _own_lines(result.stdout + result.stderr)
    assert result.returncode == expected_status
    assert len(lines) == 1, lines
    assert "DEBUG='maybe' is not a boolean" in lines[0]


def test_secret_key_stays_required_with_a_configured_database_and_debug_off(var_dir):
    env = _make_env(var_dir, DATABASE_URL="postgres://nobody@127.0.0.1:1/nothing")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert _own_lines(result.stderr) == [
        "Configuration error: SECRET_KEY is required when DEBUG is off and DATABASE_URL is set. "
        "Set SECRET_KEY, or DEBUG=true for local use."
    ]
