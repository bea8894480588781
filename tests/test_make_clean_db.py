"""`make clean-db` (stop the embedded PostgreSQL, remove its data) prints nothing but its own lines,
even where XDG_RUNTIME_DIR is unset (platformdirs warned about it once)."""

from __future__ import annotations

import subprocess

import pytest

from tests.servers import ROOT, server_env

pytestmark = pytest.mark.slow  # runs make


def test_make_clean_db_prints_no_platformdirs_warning_without_xdg_runtime_dir(var_dir):
    env = server_env(var_dir)
    env.pop("XDG_RUNTIME_DIR", None)
    result = subprocess.run(
        ["make", "--no-print-directory", "clean-db"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stderr == ""
    assert "arning" not in result.stdout
