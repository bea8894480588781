"""`make run` end to end: `manage.py serve` started twice on one database, and `make run` on a
fresh var/ (the one test of the suite that migrates a database from zero through `make run`).

Starts real processes (PostgreSQL, the django-q2 cluster, gunicorn) in a data directory of
its own, so it neither touches the developer's var/ nor the test database.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest

from memoryproject.embedded.port import free_port, listen_problem
from tests.processes import process_tree, still_running
from tests.servers import ROOT, Served, own_lines, request_json, server_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="make run's embedded database is the subject"),
]


def test_make_run_starts_healthy_prints_a_working_key_and_reuses_the_database(migrated_var_dir):
    var_dir = migrated_var_dir  # migrated once per run: the test below migrates from zero
    port = free_port()
    first = Served(var_dir, port)
    try:
        first.wait_healthy()
        match = re.search(r"Mind Key:\s+(mk_\S+)", first.output)
        assert match, first.output
        key = match.group(1)
        status, stored = request_json(
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
        status, fetched = request_json(f"{second.base}/memory/{stored['id']}", token=key)
        assert (status, fetched["content"]) == (200, "Kept across restarts")
    finally:
        assert second.stop() == 0


# --- make run: PORT, Ctrl-C, a busy port, a bad setting, manage.py on the embedded server -----


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
    port = free_port()
    served = Served(var_dir, port, command=["make", "--no-print-directory", "run", f"PORT={port}"])
    try:
        served.wait_healthy()
        tree = process_tree(served.process.pid)
        assert any("qcluster" in " ".join(p.cmdline()) for p in tree), "serve runs a worker cluster"
        password = re.search(r"Password:\s+(\S+)", served.output).group(1)
        final_url, page = _admin_login(served.base, "demo@example.com", password)
        assert final_url == f"{served.base}/admin/"
        assert "Site administration" in page
    finally:
        served.stop()
    assert still_running(tree) == []
    assert served.output.count("has stopped.") == 1, served.output  # the cluster is stopped once
    assert listen_problem("127.0.0.1", port) is None

    # The README's manage.py commands, as written: no DEBUG, no SECRET_KEY, on the embedded server.
    result = subprocess.run(
        [sys.executable, "manage.py", "sync_schedules"],
        cwd=ROOT,
        env=server_env(var_dir),
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
            env=server_env(var_dir),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode != 0
    lines = own_lines(result.stdout + result.stderr)
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
    command = [part.format(free_port=free_port()) for part in command]
    result = subprocess.run(
        command, cwd=ROOT, env=server_env(var_dir, DEBUG="maybe"), capture_output=True, text=True, timeout=60
    )
    lines = own_lines(result.stdout + result.stderr)
    assert result.returncode == expected_status
    assert len(lines) == 1, lines
    assert "DEBUG='maybe' is not a boolean" in lines[0]


def test_secret_key_stays_required_with_a_configured_database_and_debug_off(var_dir):
    env = server_env(var_dir, DATABASE_URL="postgres://nobody@127.0.0.1:1/nothing")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert own_lines(result.stderr) == [
        "Configuration error: SECRET_KEY is required when DEBUG is off and DATABASE_URL is set. "
        "Set SECRET_KEY, or DEBUG=true for local use."
    ]
