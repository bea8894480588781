"""`make run` keeps its embedded PostgreSQL: real processes, real signals.

`make stop-db` refuses while serve runs and names it; a `kill -9` of the postmaster is repaired
by serve, without a person, and `/health` answers 200 again within 30 s; Ctrl-C then stops the
restarted server as it stops the one it started. First the parts alone: the back-off, and the
lock that a killed serve does not leave held.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from memoryproject.embedded.port import free_port
from memoryproject.embedded.server import embedded_database_url
from memoryproject.embedded.watch import (
    RESTART_MAX_DELAY_SECONDS,
    STABLE_SECONDS,
    DatabaseWatch,
    RestartDelay,
    serving_pids,
)
from tests.processes import wait_for
from tests.servers import ROOT, Served, request_json, server_env, var_dir_made, var_dir_removed

# The promise: after a kill -9 of PostgreSQL, /health answers 200 again within this many
# seconds, with nobody acting.
HEALTHY_AGAIN_DEADLINE_SECONDS = 30
# How long the killed postmaster may take to be gone from the process table (seconds).
KILLED_DEADLINE_SECONDS = 10
# How long Ctrl-C may take to stop everything, the server included (seconds).
STOPPED_DEADLINE_SECONDS = 60

# How long the watch may take to try, fail and try again (seconds): waits of 1, 2 and 4 s, the
# starts themselves, and the killed postmaster's reaping by its parent.
WATCH_DEADLINE_SECONDS = 40
# How long a killed child process may take to be reaped (seconds).
HOLDER_EXIT_SECONDS = 30


def make_run_test(test):
    test = pytest.mark.slow(test)
    test = pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="make run's embedded database")(test)
    # The tests share one `make run` (the module's fixture): one pytest-xdist worker runs them.
    return pytest.mark.xdist_group("supervised-database")(test)


def test_the_restart_waits_one_two_four_seconds_up_to_its_cap_and_one_again_after_a_stable_run():
    delay = RestartDelay()
    assert [delay.after_death(0) for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    assert RESTART_MAX_DELAY_SECONDS == 30
    assert delay.after_death(STABLE_SECONDS) == 1
    assert delay.after_death(STABLE_SECONDS - 1) == 2


# Holds the serve lock of the data directory in argv[1] until killed.
_HOLDER = """
import sys, time
from pathlib import Path
from memoryproject.embedded.watch import serving
with serving(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(600)
"""


@pytest.mark.slow
def test_the_serve_lock_names_a_live_holder_and_goes_with_a_killed_one(tmp_path):
    data_dir = tmp_path / "pgdata"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(data_dir)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "held\n"
        assert serving_pids(data_dir) == [holder.pid]
    finally:
        holder.kill()  # SIGKILL: no exit hook runs; the kernel drops the lock
        holder.wait(timeout=HOLDER_EXIT_SECONDS)

    assert serving_pids(data_dir) == []
    assert list(tmp_path.iterdir()) == []  # the dead holder's file was removed on the way


@dataclass
class Run:
    served: Served
    var_dir: Path

    @property
    def pgdata(self) -> Path:
        return self.var_dir / "pgdata"


@pytest.fixture(scope="module")
def run() -> Iterator[Run]:
    var_dir = var_dir_made("supervised", migrated=True)
    port = free_port()
    served = Served(var_dir, port, command=["make", "--no-print-directory", "run", f"PORT={port}"])
    try:
        served.wait_healthy()
        yield Run(served, var_dir)
    finally:
        served.stop()
        var_dir_removed(var_dir)


def _postmaster(pgdata: Path) -> psutil.Process:
    return psutil.Process(int((pgdata / "postmaster.pid").read_text().split()[0]))


def _serve_pid(served: Served) -> int:
    # make runs the recipe through a shell, whose command line names serve too.
    (serve,) = [
        process
        for process in psutil.Process(served.process.pid).children(recursive=True)
        if process.cmdline()[1:3] == ["manage.py", "serve"]
    ]
    return serve.pid


@pytest.mark.slow
@pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="the embedded server is the subject")
def test_the_watch_says_a_start_that_failed_and_tries_again_later():
    var_dir = var_dir_made("watch", migrated=False)
    data_dir = var_dir / "pgdata"
    said: list[str] = []
    try:
        embedded_database_url(data_dir, shared_buffers_mb=128)  # started by a Synapse process: this one
        watch = DatabaseWatch.of(data_dir, said.append)
        assert watch is not None, said
        # The server's next start fails: `pg_ctl restart` starts it with this command line.
        options = data_dir / "postmaster.opts"
        as_it_ran = options.read_text()
        options.write_text(as_it_ran.rstrip("\n") + ' "-c" "no_such_setting=1"\n')
        killed = watch.postmaster.pid
        watch.postmaster.kill()

        def said_after_look(words: str) -> bool:
            watch.look()
            return any(words in line for line in said)

        assert wait_for(lambda: said_after_look("Could not restart"), seconds=WATCH_DEADLINE_SECONDS), said
        options.write_text(as_it_ran)
        assert wait_for(lambda: said_after_look("runs again"), seconds=WATCH_DEADLINE_SECONDS), said
        assert said[0] == (
            f"The embedded PostgreSQL stopped (its postmaster, pid {killed}, is gone); starting it again in 1 s."
        )
        failures = [line for line in said if line.startswith("The embedded PostgreSQL did not start (")]
        # Each failure waits longer than the one before: 2 s, 4 s …
        assert [re.search(r"trying again in (\d+) s\.$", line)[1] for line in failures] == [
            str(2**n) for n in range(1, len(failures) + 1)
        ]
        assert watch.postmaster.is_running() and watch.postmaster.pid != killed
    finally:
        var_dir_removed(var_dir)


@make_run_test
def test_make_stop_db_refuses_while_make_run_runs_and_names_it(run):
    postmaster = _postmaster(run.pgdata)

    result = subprocess.run(
        ["make", "--no-print-directory", "stop-db"],
        cwd=ROOT,
        env=server_env(run.var_dir),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode != 0, result.stdout
    message = result.stderr.splitlines()[0]
    assert f"`manage.py serve` (pid {_serve_pid(run.served)}) runs on it" in message, result.stderr
    assert message.endswith("stop make run first (Ctrl-C).")
    assert postmaster.is_running()  # not stopped, not even for a moment
    assert run.served.healthy()


@make_run_test
def test_a_killed_postgres_is_restarted_by_serve_and_health_is_ok_again_within_30_s(run):
    served, pgdata = run.served, run.pgdata
    old = _postmaster(pgdata)
    lines_before = len(served.lines)

    old.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    assert wait_for(lambda: not served.healthy(), seconds=KILLED_DEADLINE_SECONDS)  # the outage is real

    def healthy_on_a_new_postmaster() -> bool:
        try:
            return _postmaster(pgdata).pid != old.pid and served.healthy()
        except (OSError, ValueError, psutil.Error):  # postmaster.pid absent or half written
            return False

    assert wait_for(healthy_on_a_new_postmaster, seconds=HEALTHY_AGAIN_DEADLINE_SECONDS), served.output[-3000:]
    took = time.monotonic() - killed_at
    print(f"/health answered 200 again {took:.1f} s after the kill -9")  # shown with pytest -s
    assert took <= HEALTHY_AGAIN_DEADLINE_SECONDS
    said = "".join(served.lines[lines_before:])
    assert f"The embedded PostgreSQL stopped (its postmaster, pid {old.pid}, is gone)" in said
    assert re.search(r"The embedded PostgreSQL runs again \(postmaster pid \d+\)\.", said)
    assert "Traceback" not in said

    # The API works: the restarted server has the data.
    status, body = request_json(f"{served.base}/health")
    assert (status, body["database"], body["worker"]) == (200, "ok", "ok")

    # Ctrl-C stops the restarted server too: serve recorded it as one a Synapse process started.
    restarted = _postmaster(pgdata)
    served.stop()
    assert wait_for(lambda: not restarted.is_running(), seconds=STOPPED_DEADLINE_SECONDS)
    assert serving_pids(pgdata) == []
