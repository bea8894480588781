"""The README as written: `make run PORT=…`, then every marked `sh` block through bash, in order.

A block runs when the line before it is `<!-- test: run … -->`; the marker may add
`expect "text"` (the block's output must contain it) and `input "line"` (a line on its
standard input, for the prompts of `manage.py changepassword`). The placeholders the README
asks the reader to fill in from `make run`'s output (`KEY=mk_...`, `PASSWORD=...`, `MIND=m_...`)
get the printed values, and `localhost:8000` the test server's port; nothing else is changed.
Variables set by one block are there for the next, as in one terminal.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from memoryproject.embedded.port import free_port, listen_problem
from tests.processes import process_tree, still_running
from tests.servers import ROOT, Served, own_lines, server_env
from tests.shell_blocks import BLOCK_TIMEOUT_SECONDS, PLACEHOLDERS, block_filled, block_run

README = ROOT / "README.md"
MARKER = re.compile(r"^<!-- test: (?P<words>run\b.*?) -->\n```sh\n(?P<body>.*?)^```$", re.M | re.S)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(os.environ.get("DATABASE_URL")), reason="the README's fresh make run uses the embedded database"
    ),
]


@dataclass
class Block:
    body: str
    expected: list[str] = field(default_factory=list)
    stdin_lines: list[str] = field(default_factory=list)


def readme_blocks(text: str) -> list[Block]:
    blocks = []
    for match in MARKER.finditer(text):
        words = shlex.split(match["words"])[1:]
        block = Block(body=match["body"])
        for verb, value in zip(words[::2], words[1::2], strict=True):
            {"expect": block.expected, "input": block.stdin_lines}[verb].append(value)
        blocks.append(block)
    return blocks


def test_the_readme_marks_the_human_side_for_running():
    bodies = "".join(block.body for block in readme_blocks(README.read_text()))
    for step in ("/login", "/token/refresh", "X-Mind", "?mind=", "/verify", "/keys", "/share", "/register"):
        assert step in bodies, step
    assert "manage.py changepassword" in bodies


def test_a_marker_reads_its_expectations_and_input_lines():
    text = '<!-- test: run expect "a b" input "x" expect 401 -->\n```sh\necho hi\n```\n'
    assert readme_blocks(text) == [Block(body="echo hi\n", expected=["a b", "401"], stdin_lines=["x"])]


def test_every_marked_readme_block_runs_as_written_against_make_run_with_port(migrated_var_dir):
    var_dir = migrated_var_dir
    port = free_port()
    env = server_env(var_dir)
    served = Served(var_dir, port, command=["make", "--no-print-directory", "run", f"PORT={port}"])
    try:
        served.wait_healthy()
        tree = process_tree(served.process.pid)
        values = {}
        for name, pattern in PLACEHOLDERS.values():
            match = re.search(pattern, served.output)
            assert match, (name, served.output)
            values[name] = match.group(1)
        blocks = readme_blocks(README.read_text())
        assert len(blocks) >= 7
        state = var_dir / "readme-shell-state.sh"
        for index, block in enumerate(blocks):
            result = block_run(block_filled(block.body, values, port), block.stdin_lines, state, env)
            shown = f"block {index}:\n{block.body}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
            assert result.returncode == 0, shown
            for expected in block.expected:
                assert expected in result.stdout, f"{expected!r} missing from {shown}"
            assert '"error":' not in result.stdout, shown

        # The password set by `manage.py changepassword` is the one that logs in now.
        login = subprocess.run(
            [
                "curl",
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-X",
                "POST",
                f"localhost:{port}/login",
                "-H",
                "Content-Type: application/json",
                "-d",
                '{"email": "ada@example.com", "password": "Babbage-difference-1822"}',
            ],
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_SECONDS,
        )
        assert login.stdout == "200"
    finally:
        served.stop()  # Ctrl-C: make itself ends by the signal, as in a terminal
    assert still_running(tree) == [], served.output  # serve stopped everything it started
    assert served.output.count("has stopped.") == 1
    assert listen_problem("127.0.0.1", port) is None


def test_sync_schedules_on_a_checkout_never_migrated_says_in_one_line_to_migrate_first(var_dir):
    result = subprocess.run(
        [sys.executable, "manage.py", "sync_schedules"],
        cwd=ROOT,
        env=server_env(var_dir),
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_SECONDS,
    )
    assert result.returncode == 1
    assert own_lines(result.stdout + result.stderr) == [
        "CommandError: The worker's tables do not exist yet: "
        "run `make run` (or `.venv/bin/python manage.py migrate`) first."
    ]
