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
from pathlib import Path

import pytest

from memoryproject.core.converters import MindIdConverter
from memoryproject.embedded.port import listen_problem
from tests.test_make_run import (
    ROOT,
    Served,
    _free_port,
    _make_env,
    _own_lines,
    _process_tree,
    _still_running,
)

README = ROOT / "README.md"
MARKER = re.compile(r"^<!-- test: (?P<words>run\b.*?) -->\n```sh\n(?P<body>.*?)^```$", re.M | re.S)
# The README's placeholders, filled from what the first `make run` printed.
PLACEHOLDERS = {
    "KEY=mk_...": ("KEY", r"Mind Key:\s+(mk_\S+)"),
    "PASSWORD=...": ("PASSWORD", r"Password:\s+(\S+)"),
    "MIND=m_...": ("MIND", rf"Mind:\s+.*\(({MindIdConverter.regex})\)"),  # an id may hold - and _
}
BLOCK_TIMEOUT_SECONDS = 60

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


def _filled(body: str, values: dict[str, str], port: int) -> str:
    for placeholder, (name, _) in PLACEHOLDERS.items():
        body = body.replace(placeholder, f"{name}={shlex.quote(values[name])}")
    return body.replace("localhost:8000", f"localhost:{port}")


def _run_block(
    body: str, stdin_lines: list[str], state: Path, env: dict[str, str], *, timeout: float = BLOCK_TIMEOUT_SECONDS
) -> subprocess.CompletedProcess:
    names = sorted(set(re.findall(r"^\s*([A-Z_]+)=", body, re.M)))
    # One terminal: what earlier blocks set is sourced, what this block sets is saved for the next.
    script = f"set -o pipefail\n[ -f {state} ] && . {state}\n{body}\nstatus=$?\n"
    if names:
        script += f"declare -p {' '.join(names)} >> {state} 2>/dev/null\n"
    script += "exit $status\n"
    return subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env=env,
        input="".join(f"{line}\n" for line in stdin_lines),
        capture_output=True,
        text=True,
        timeout=timeout,
        start_new_session=True,  # no terminal: getpass reads the prompts' answers from stdin
    )


def test_every_marked_readme_block_runs_as_written_against_make_run_with_port(migrated_var_dir):
    var_dir = migrated_var_dir
    port = _free_port()
    env = _make_env(var_dir)
    served = Served(var_dir, port, command=["make", "--no-print-directory", "run", f"PORT={port}"])
    try:
        served.wait_healthy()
        tree = _process_tree(served.process.pid)
        values = {}
        for name, pattern in PLACEHOLDERS.values():
            match = re.search(pattern, served.output)
            assert match, (name, served.output)
            values[name] = match.group(1)
        blocks = readme_blocks(README.read_text())
        assert len(blocks) >= 7
        state = var_dir / "readme-shell-state.sh"
        for index, block in enumerate(blocks):
            result = _run_block(_filled(block.body, values, port), block.stdin_lines, state, env)
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
    assert _still_running(tree) == [], served.output  # serve stopped everything it started
    assert served.output.count("has stopped.") == 1
    assert listen_problem("127.0.0.1", port) is None


def test_sync_schedules_on_a_checkout_never_migrated_says_in_one_line_to_migrate_first(var_dir):
    result = subprocess.run(
        [sys.executable, "manage.py", "sync_schedules"],
        cwd=ROOT,
        env=_make_env(var_dir),
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_SECONDS,
    )
    assert result.returncode == 1
    assert _own_lines(result.stdout + result.stderr) == [
        "CommandError: The worker's tables do not exist yet: "
        "run `make run` (or `.venv/bin/python manage.py migrate`) first."
    ]
