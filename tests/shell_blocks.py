"""Shell blocks of the documents run as written: the placeholders a reader fills in from `make
run`'s output, and one block run through bash as the next command of one terminal."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from memoryproject.core.converters import MindIdConverter
from tests.servers import ROOT

# The README's placeholders, filled from what the first `make run` printed.
PLACEHOLDERS = {
    "KEY=mk_...": ("KEY", r"Mind Key:\s+(mk_\S+)"),
    "PASSWORD=...": ("PASSWORD", r"Password:\s+(\S+)"),
    "MIND=m_...": ("MIND", rf"Mind:\s+.*\(({MindIdConverter.regex})\)"),  # an id may hold - and _
}
BLOCK_TIMEOUT_SECONDS = 60


def block_filled(body: str, values: dict[str, str], port: int) -> str:
    """`body` with the placeholders set to `values` and `localhost:8000` on `port`."""
    for placeholder, (name, _) in PLACEHOLDERS.items():
        body = body.replace(placeholder, f"{name}={shlex.quote(values[name])}")
    return body.replace("localhost:8000", f"localhost:{port}")


def block_run(
    body: str, stdin_lines: list[str], state: Path, env: dict[str, str], *, timeout: float = BLOCK_TIMEOUT_SECONDS
) -> subprocess.CompletedProcess:
    """Run `body` through bash in the checkout, as the next command of one terminal whose variables live in `state`."""
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
