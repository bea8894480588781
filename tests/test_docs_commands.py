"""Every command of the newcomer documents (docs/api.md, agents.md, operations.md, scaling.md),
run as written against a live server.

The convention, in those four documents:

- A fenced `sh` (`bash`, `shell`, `console`) block is a command block. The line before it is a
  marker: `<!-- test: run … -->` (run by this test) or `<!-- test: not run: <why> -->` (a
  production install, a remote `pg_dump`: they cannot run here; the test counts them, so a new
  one is a decision). An unmarked command block fails the test.
- A run marker may add `expect "text"` (the block's output must contain it) and `errors` (the
  block shows an error answer on purpose; otherwise an `"error":` in its output fails it).
- A ```json or ```text block right after a run block (nothing but blank lines between) is the
  output it shows. JSON: the block's output must be one JSON document with that shape (every key
  shown is there, recursively, with a value of the same JSON type; a list's first item stands for
  all). Text: every shown line is there, in order, digits standing for any number and `…` for
  anything.
- Placeholders as in the README (tests/test_readme.py): `KEY=mk_...`, `PASSWORD=...`,
  `MIND=m_...` get what the server printed at its first start, `localhost:8000` the test server's
  port. Every document runs in a shell state of its own (a fresh terminal), its blocks in order;
  what one block sets is there for the next.
"""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from dataclasses import dataclass, field

import pytest

from memoryproject.embedded.port import free_port
from tests.servers import ROOT, Served, server_env
from tests.shell_blocks import PLACEHOLDERS, block_filled, block_run

DOCS = ("api.md", "agents.md", "operations.md", "scaling.md")
# Fence languages that hold commands for a shell.
COMMAND_LANGUAGES = {"sh", "bash", "shell", "console"}
# Fence languages of a block that shows a command's output.
OUTPUT_LANGUAGES = {"json", "text"}
# The command blocks of each document that cannot run in a test, each marked with its reason.
NOT_RUN = {"api.md": 0, "agents.md": 0, "operations.md": 7, "scaling.md": 2}
# A block may run several `manage.py` commands, each about 10 s on a loaded 2-core machine.
BLOCK_TIMEOUT_SECONDS = 300
# Files the documents' commands write into the checkout (and remove again); removed after a failure too.
LEFT_BEHIND = ("grace-export.json", "backup-of-mind.json", "synapse-backup.dump")

# A fenced block, also indented inside a list item (its body is dedented).
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<language>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
MARKER = re.compile(r"^<!-- test: (?P<words>.*?) -->$")


@dataclass
class Command:
    document: str
    line: int
    body: str
    run: bool
    reason: str = ""
    expected: list[str] = field(default_factory=list)
    errors_shown: bool = False
    shown: str | None = None
    shown_language: str | None = None

    @property
    def where(self) -> str:
        return f"docs/{self.document}, line {self.line}"


def _marker_read(command: Command, words: str) -> None:
    if words.startswith("not run:") and words[len("not run:") :].strip():
        command.run, command.reason = False, words[len("not run:") :].strip()
        return
    parts = shlex.split(words)
    if not parts or parts[0] != "run":
        raise ValueError(f"{command.where}: a marker is `run …` or `not run: <why>`, not {words!r}")
    rest = parts[1:]
    while rest:
        word = rest.pop(0)
        if word == "errors":
            command.errors_shown = True
        elif word == "expect" and rest:
            command.expected.append(rest.pop(0))
        else:
            raise ValueError(f"{command.where}: unknown marker word {word!r}")


def doc_commands(document: str, text: str) -> list[Command]:
    """The command blocks of a document with their markers and shown output. ValueError for a
    command block without a marker, or a marker that does not parse."""
    fences = list(FENCE.finditer(text))
    commands = []
    for index, fence in enumerate(fences):
        if fence["language"] not in COMMAND_LANGUAGES:
            continue
        line = text.count("\n", 0, fence.start()) + 1
        command = Command(document=document, line=line, body=textwrap.dedent(fence["body"]), run=True)
        before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        marker = MARKER.match(before)
        if marker is None:
            raise ValueError(
                f"{command.where}: a command block needs `<!-- test: run -->` or `<!-- test: not run: … -->`"
            )
        _marker_read(command, marker["words"].strip())
        following = fences[index + 1] if index + 1 < len(fences) else None
        if (
            command.run
            and following is not None
            and following["language"] in OUTPUT_LANGUAGES
            and not text[fence.end() : following.start()].strip()
        ):
            command.shown, command.shown_language = textwrap.dedent(following["body"]), following["language"]
        commands.append(command)
    return commands


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def shape_problems(shown, actual, path: str = "$") -> list[str]:
    """Where `actual` does not have the shape of `shown` (empty: it has): every key shown is in
    actual with a value of the same JSON type, recursively; a list's first item stands for all.
    A null shown stands for any value (a time not set yet, set later)."""
    if shown is None:
        return []
    if _json_type(shown) != _json_type(actual):
        return [f"{path}: shown a {_json_type(shown)}, got a {_json_type(actual)} ({actual!r:.80})"]
    if isinstance(shown, dict):
        problems = []
        for name, value in shown.items():
            if name not in actual:
                problems.append(f"{path}.{name}: shown, missing")
            else:
                problems += shape_problems(value, actual[name], f"{path}.{name}")
        return problems
    if isinstance(shown, list) and shown:
        if not actual:
            return [f"{path}: shown items, got an empty list"]
        return shape_problems(shown[0], actual[0], f"{path}[0]")
    return []


def _line_pattern(line: str) -> re.Pattern:
    """A shown line as a pattern: a run of digits stands for any number, `…` for anything."""
    parts = re.split(r"(\d+|…)", line)
    return re.compile("".join(r"\d+" if part.isdigit() else ".*" if part == "…" else re.escape(part) for part in parts))


def text_problems(shown: str, actual: str) -> list[str]:
    """The shown lines that are not in `actual`, in order (digits match any number, `…` anything)."""
    lines = actual.splitlines()
    position = 0
    missing = []
    for wanted in (line for line in shown.splitlines() if line.strip()):
        pattern = _line_pattern(wanted)
        for offset, line in enumerate(lines[position:]):
            if pattern.fullmatch(line):
                position += offset + 1
                break
        else:
            missing.append(wanted)
    return missing


def output_problems(command: Command, stdout: str) -> list[str]:
    problems = [f"{expected!r} missing from the output" for expected in command.expected if expected not in stdout]
    if not command.errors_shown and '"error":' in stdout:
        problems.append("the output holds an error answer")
    if command.shown_language == "json":
        try:
            actual = json.loads(stdout)
        except json.JSONDecodeError as error:
            return [*problems, f"the output is not one JSON document ({error})"]
        problems += shape_problems(json.loads(command.shown), actual)
    elif command.shown_language == "text":
        problems += [f"shown line {line!r} not in the output" for line in text_problems(command.shown, stdout)]
    return problems


def all_commands() -> list[Command]:
    return [command for name in DOCS for command in doc_commands(name, (ROOT / "docs" / name).read_text())]


# --- the convention itself ------------------------------------------------------------------------


def test_every_command_block_of_the_four_documents_is_marked_and_the_few_not_run_say_why():
    commands = all_commands()
    counted = {name: sum(not command.run for command in commands if command.document == name) for name in DOCS}
    assert counted == NOT_RUN
    assert all(command.reason for command in commands if not command.run)
    assert sum(command.run for command in commands) >= 30


def test_an_unmarked_command_block_is_refused_and_a_marker_reads_its_words():
    with pytest.raises(ValueError, match="docs/x.md, line 1: a command block needs"):
        doc_commands("x.md", "```sh\necho hi\n```\n")
    text = (
        '<!-- test: run errors expect "a b" -->\n```sh\necho hi\n```\n\n```json\n{"a": 1}\n```\n'
        "<!-- test: not run: a production host -->\n```sh\nsystemctl restart synapse\n```\n"
    )
    run, not_run = doc_commands("x.md", text)
    assert (run.run, run.errors_shown, run.expected, run.shown, run.shown_language) == (
        True, True, ["a b"], '{"a": 1}\n', "json",
    )  # fmt: skip
    assert (not_run.run, not_run.reason, not_run.shown) == (False, "a production host", None)
    with pytest.raises(ValueError, match="unknown marker word 'expekt'"):
        doc_commands("x.md", '<!-- test: run expekt "a" -->\n```sh\necho\n```\n')


def test_a_json_answer_has_the_shape_shown_when_every_shown_key_is_there_with_its_type():
    shown = {"id": "mem_x", "tags": [], "knots": [{"id": 1, "weight": 0.5}], "verified_at": None, "ok": True}
    same = {
        "id": "mem_y",
        "tags": ["t"],
        "knots": [{"id": 9, "weight": 2, "more": 1}],
        "verified_at": "2026",
        "ok": False,
    }
    assert shape_problems(shown, {**same, "extra": 1}) == []
    assert shape_problems(shown, {**same, "ok": "true"}) == ["$.ok: shown a boolean, got a string ('true')"]
    assert shape_problems(shown, {key: value for key, value in same.items() if key != "id"}) == ["$.id: shown, missing"]
    assert shape_problems(shown, {**same, "knots": [{"id": 9}]}) == ["$.knots[0].weight: shown, missing"]
    assert shape_problems(shown, {**same, "knots": []}) == ["$.knots: shown items, got an empty list"]


def test_a_text_answer_has_the_lines_shown_in_order_with_any_numbers():
    actual = "Mind: Grace\nMemories: 12 total (3 verified, 9 unverified)\n\n[001] identity (CRITICAL)\n  The user\n"
    assert (
        text_problems("Mind: Grace\nMemories: 3 total (0 verified, 3 unverified)\n[002] identity (CRITICAL)", actual)
        == []
    )
    assert text_problems("Mind: …\n  The user", actual) == []
    assert text_problems("[001] identity (CRITICAL)\nMind: Grace", actual) == ["Mind: Grace"]
    assert text_problems("Memories: 3 total (0 verified)", actual) == ["Memories: 3 total (0 verified)"]


# --- the documents, run -------------------------------------------------------------------------------


@pytest.mark.slow
def test_every_command_of_the_four_documents_runs_as_written_against_a_live_server(migrated_var_dir):
    var_dir = migrated_var_dir
    port = free_port()
    env = server_env(var_dir)
    if "DATABASE_URL" in env:
        # CI's second run points everything at an external server; a person doing so sets SECRET_KEY
        # or DEBUG (the settings refuse neither), and the commands must reach the server's database.
        env["DEBUG"] = "true"
    served = Served(var_dir, port)
    ran = 0
    try:
        served.wait_healthy()
        values = {}
        for name, pattern in PLACEHOLDERS.values():
            match = re.search(pattern, served.output)
            assert match, (name, served.output)
            values[name] = match.group(1)
        for document in DOCS:
            state = var_dir / f"shell-state-{document}.sh"
            for command in doc_commands(document, (ROOT / "docs" / document).read_text()):
                if not command.run:
                    continue
                result = block_run(
                    block_filled(command.body, values, port), [], state, env, timeout=BLOCK_TIMEOUT_SECONDS
                )
                shown = f"{command.where}:\n{command.body}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
                assert result.returncode == 0, shown
                assert output_problems(command, result.stdout) == [], shown
                ran += 1
    finally:
        served.stop()
        for name in LEFT_BEHIND:
            (ROOT / name).unlink(missing_ok=True)
    assert ran == sum(command.run for command in all_commands())
    assert all(not (ROOT / name).exists() for name in LEFT_BEHIND)
