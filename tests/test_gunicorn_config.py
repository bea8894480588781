"""gunicorn's configuration as `serve` starts it (memoryproject/gunicorn_conf.py), read back by
gunicorn itself: no control socket shared by every checkout of the user, request lines of any
length, threaded workers beside long requests."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.servers import ROOT

pytestmark = pytest.mark.slow  # starts gunicorn to print its configuration


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
