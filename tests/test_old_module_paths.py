"""The database plumbing moved into memoryproject/embedded/; the old paths that an operator's script
may still name keep working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_old_stop_command_still_stops_by_data_directory(tmp_path):
    # No server in an empty directory: the answer proves the old `-m` path reaches the new code.
    data_dir = tmp_path / "pgdata"
    data_dir.mkdir()
    completed = subprocess.run(
        [sys.executable, "-m", "memoryproject.embedded_db", "stop", str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == f"No embedded PostgreSQL is running in {data_dir}.\n"
