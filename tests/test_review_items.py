"""Review items of the first-contact and reliability reports that no other test file covers.

The table of every item and where it is fixed or decided: docs/operations.md → Review items.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.servers import ROOT, server_env

pytestmark = pytest.mark.slow


def _gunicorn_config() -> dict[str, str]:
    """gunicorn's own reading of the configuration serve starts it with."""
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--print-config", "-c", "python:memoryproject.gunicorn_conf",
         "memoryproject.wsgi"],
        cwd=ROOT, env={**os.environ, "DEBUG": "true"}, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    settings = {}
    for line in result.stdout.splitlines():
        name, _, value = line.partition("=")
        settings[name.strip()] = value.strip()
    return settings


def test_gunicorn_opens_no_control_socket_shared_by_every_checkout_of_the_user():
    assert _gunicorn_config()["control_socket_disable"] == "True"


def test_gunicorn_takes_request_lines_of_any_length_and_threads_beside_long_requests():
    config = _gunicorn_config()
    assert config["limit_request_line"] == "0"
    assert config["worker_class"] == "gthread"
    assert int(config["threads"]) > 1


def test_make_clean_db_prints_no_platformdirs_warning_without_xdg_runtime_dir(var_dir):
    env = server_env(var_dir)
    env.pop("XDG_RUNTIME_DIR", None)
    result = subprocess.run(
        ["make", "--no-print-directory", "clean-db"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stderr == ""
    assert "arning" not in result.stdout
