"""The previous embedded server (PostgreSQL 16 through pgserver) for the tests that upgrade from it
or check against it: its start, the app's environment on a data directory, and a var/ whose
servers of either major are stopped at the end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryproject.embedded.upgrade import (
    NEW_MAJOR,
    OLD_MAJOR,
    data_dir_major,
    new_bin_dir,
    pgserver_bin_dir,
    server_stop_if_running,
)
from tests.servers import ROOT


def app_env(var_dir: Path, **extra: str) -> dict[str, str]:
    """The app with its real settings on `var_dir`, DEBUG on, without the DATABASE_URL of the tests."""
    env = {**os.environ, "SYNAPSE_VAR_DIR": str(var_dir), "DEBUG": "true", "PIPELINE_LOG_SYNC": "true"}
    env["DJANGO_SETTINGS_MODULE"] = "memoryproject.settings"  # the real settings, as `make run` uses
    env.pop("SECRET_KEY", None)  # generated once into var_dir, so both servers see the same key pepper
    env.pop("DATABASE_URL", None)
    env.update(extra)
    return env


def pgserver_start(pgdata: Path) -> str:
    """Start a PostgreSQL 16 server with pgserver in its own process; it keeps running afterwards,
    as pgserver's servers did for `make run`. Returns its URI."""
    code = (
        "import pathlib, sys, pgserver; "
        "print(pgserver.get_server(pathlib.Path(sys.argv[1]), cleanup_mode=None).get_uri())"
    )
    completed = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code, str(pgdata)], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip().splitlines()[-1]


@pytest.fixture(name="var_dir")
def old_postgres_var_dir_fixture() -> Iterator[Path]:
    """A var/ under the checkout for servers of both majors; every one left running is stopped after."""
    # Under the checkout, not /tmp/pytest-of-root: PostgreSQL runs as its own system user and
    # must be able to enter every parent folder of its data directory.
    path = ROOT / "var" / "tmp" / f"upgrade-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    yield path
    # Stop every server this test may have left on any directory in it, each with its own binaries.
    for candidate in [path / "pgdata", *path.glob("pgdata-*"), *path.glob("pgdata-*/pgdata")]:
        major = data_dir_major(candidate)
        if major == OLD_MAJOR:
            server_stop_if_running(pgserver_bin_dir(), candidate)
        elif major == NEW_MAJOR:
            server_stop_if_running(new_bin_dir(), candidate)
    shutil.rmtree(path, ignore_errors=True)
