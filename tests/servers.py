"""Data directories for the tests that start servers (`make run`, `manage.py serve`).

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
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

from tests.processes import wait_for

ROOT = Path(__file__).resolve().parent.parent
# One id per test run, shared by pytest-xdist's workers (they inherit the environment).
RUN_ID_VARIABLE = "SYNAPSE_TEST_RUN_ID"
# How long the migration of the template may take on a loaded machine (seconds).
TEMPLATE_MIGRATE_SECONDS = 300
# How long its server may take to stop once the migrating process exited (seconds).
TEMPLATE_STOP_SECONDS = 60


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
