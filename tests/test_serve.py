"""`manage.py serve` supervises its children: real processes, real signals.

And /health counts only live worker clusters: heartbeats written as django-q2 writes them.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from datetime import timedelta

import psutil
import pytest
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.signing import SignedPackage
from django_q.status import Stat, Status

from memories.selectors.system import CLUSTER_HEARTBEAT_STALE_SECONDS, live_clusters
from memoryproject.embedded.port import free_port
from tests.processes import process_tree, still_running, wait_for
from tests.servers import ROOT, Served, own_lines, request_json, server_env

# The promise: a killed cluster is replaced within this many seconds.
CLUSTER_REPLACED_DEADLINE_SECONDS = 10
# search documents `q` up to this many characters.
SEARCH_Q_MAX_CHARS = 5000

embedded_only = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")), reason="serve on its own embedded database is the subject"
)


# --- /health: live clusters only ------------------------------------------------------------


def _heartbeat(pid: int, *, host: str | None = None, age_seconds: float = 0) -> Status:
    """Save a cluster heartbeat into the shared cache the way django-q2's guard does."""
    status = Status(pid=pid, cluster_id=uuid.uuid4())
    status.host = host or socket.gethostname()
    status.timestamp = timezone.now() - timedelta(seconds=age_seconds)
    get_broker().set_stat(Stat.get_key(status.cluster_id), SignedPackage.dumps(status, True), 3)
    return status


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.mark.django_db
def test_health_counts_a_cluster_whose_main_process_runs_on_this_host(api):
    alive = _heartbeat(os.getpid())
    assert [stat.cluster_id for stat in live_clusters()] == [alive.cluster_id]
    assert api.get("/health").json()["worker"] == "ok"


@pytest.mark.slow
@pytest.mark.django_db
def test_health_does_not_count_a_heartbeat_in_the_name_of_a_main_process_that_is_gone(api):
    # What a killed qcluster leaves: its sentinel still saves heartbeats naming the dead pid.
    _heartbeat(_dead_pid())
    assert live_clusters() == []
    assert api.get("/health").json()["worker"] == "down"


@pytest.mark.django_db
def test_health_does_not_count_a_stale_heartbeat(api):
    _heartbeat(os.getpid(), age_seconds=CLUSTER_HEARTBEAT_STALE_SECONDS + 5)
    assert live_clusters() == []
    assert api.get("/health").json()["worker"] == "down"


@pytest.mark.django_db
def test_health_trusts_a_fresh_heartbeat_from_another_host_whose_processes_it_cannot_see():
    other = _heartbeat(_dead_pid(), host="another-host.invalid")
    assert [stat.cluster_id for stat in live_clusters()] == [other.cluster_id]


# --- serve with real processes --------------------------------------------------------------


def _children_named(served: Served, word: str) -> list[psutil.Process]:
    named = []
    for child in psutil.Process(served.process.pid).children():
        try:
            if word in " ".join(child.cmdline()):
                named.append(child)
        except psutil.Error:  # a killed child that serve has not reaped yet (a zombie), or gone
            pass
    return named


def _worker_ok(base: str) -> bool:
    try:
        return request_json(f"{base}/health")[1]["worker"] == "ok"
    except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
        return False


class Prober:
    """Lists memories over and over in a thread, keeping every status (or the error) it got."""

    def __init__(self, base: str, key: str):
        self.answers: list[int | str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(f"{base}/memory", key), daemon=True)
        self._thread.start()

    def _run(self, url: str, key: str) -> None:
        while not self._stop.is_set():
            try:
                self.answers.append(request_json(url, token=key)[0])
            except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
                self.answers.append(repr(error))
            time.sleep(0.05)

    def stop(self) -> list[int | str]:
        self._stop.set()
        self._thread.join()
        return self.answers


@pytest.mark.slow
@embedded_only
def test_a_killed_worker_cluster_is_replaced_within_10_s_while_the_api_keeps_answering(migrated_var_dir):
    var_dir = migrated_var_dir
    port = free_port()
    served = Served(var_dir, port, args=("--host", "0.0.0.0"))  # noqa: S104 - the warning is the subject
    try:
        served.wait_healthy()
        assert re.search(r"^Warning: listening on every interface, but ALLOWED_HOSTS is ", served.output, re.M)
        key = re.search(r"Mind Key:\s+(mk_\S+)", served.output).group(1)

        # A q of the 5,000 characters search allows reaches the API (gunicorn would answer HTML 414).
        status, body = request_json(f"{served.base}/memory/search?q={'a' * SEARCH_Q_MAX_CHARS}", token=key)
        assert status == 200
        assert body["results"] == []

        # A second serve on the same port: one line, no second cluster.
        second = subprocess.run(
            [sys.executable, "manage.py", "serve", "--port", str(port)],
            cwd=ROOT,
            env=server_env(var_dir),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        assert own_lines(second.stdout + second.stderr) == [
            f"Port {port} on 127.0.0.1 is already in use: stop what listens there, "
            f"or pick another port (make run PORT={port + 10})."
        ]

        (old_cluster,) = _children_named(served, "qcluster")
        old_tree = [old_cluster, *old_cluster.children(recursive=True)]
        assert len(old_tree) >= 3  # main, sentinel, at least a worker
        prober = Prober(served.base, key)
        old_cluster.kill()  # SIGKILL: its sentinel and workers are orphaned at once

        def replacement() -> psutil.Process | None:
            replacements = [c for c in _children_named(served, "qcluster") if c.pid != old_cluster.pid]
            return replacements[0] if replacements and _worker_ok(served.base) else None

        new_cluster = wait_for(replacement, seconds=CLUSTER_REPLACED_DEADLINE_SECONDS, every=0.2)
        answers = prober.stop()
        assert new_cluster is not None, served.output
        assert answers and set(answers) == {200}, answers
        assert still_running(old_tree) == []  # the orphans were stopped, not left taking tasks
        assert "The worker cluster stopped (killed by SIGKILL;" in served.output
        tree = process_tree(served.process.pid)
    finally:
        status = served.stop()
    assert status == 0
    assert still_running(tree) == []


@pytest.mark.slow
@embedded_only
def test_serve_stops_the_cluster_and_exits_non_zero_when_gunicorn_dies(migrated_var_dir):
    var_dir = migrated_var_dir
    served = Served(var_dir, free_port())
    try:
        served.wait_healthy()
        tree = process_tree(served.process.pid)
        (gunicorn,) = _children_named(served, "gunicorn")
        gunicorn.kill()
        status = served.process.wait(timeout=60)
    finally:
        if served.process.poll() is None:
            served.stop()
    assert status == 1
    assert "The web server (gunicorn) stopped (killed by SIGKILL); stopping the worker cluster and exiting." in (
        served.output
    )
    assert still_running(tree) == []
