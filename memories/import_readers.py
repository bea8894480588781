"""The file formats `manage.py import_memories` reads: one small reader per format, each turning a
file into memory rows (the memory object of the export, as dicts) and, for our own export, the
long-term net's sections. Adding a format (another memory tool's export) is one more reader in
READERS; validation, order and writing stay in the command and the import service.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from memories.services.transfer import EXPORT_FORMAT_VERSION
from memoryproject.contributions import contributed_section_names


class UnreadableFile(Exception):
    """The file is not of the format asked for; the message says what is wrong and where."""


@dataclass(frozen=True)
class SourceRow:
    """One memory of the file: where it is (`place`, for messages) and its fields as written.
    `problem` is set instead of `data` when the row could not be read at all."""

    place: str
    data: Any = None
    problem: str = ""

    @property
    def source_id(self) -> str | None:
        """The row's id in the file: how the file's knots name it."""
        value = self.data.get("id") if isinstance(self.data, dict) else None
        return value if isinstance(value, str) and value else None


@dataclass
class ReadFile:
    rows: list[SourceRow]
    # The export's sections beyond `memories` that the net reads (knots, edges, …), as written.
    net_sections: dict[str, Any] = field(default_factory=dict)
    # The mind the file was exported from, if it says (its id on the exporting server).
    mind_id: str | None = None


# Top-level fields of the export the memories part of the import reads or accepts.
_EXPORT_FIELDS = ("format_version", "exported_at", "mind", "memories")


def read_export(stream: TextIO) -> ReadFile:
    """Our json export (`GET /mind/export?format=json`, docs/export-format.md)."""
    try:
        document = json.load(stream)
    except json.JSONDecodeError as error:
        raise UnreadableFile(f"Not JSON: {error.msg} at line {error.lineno}, column {error.colno}.") from None
    if not isinstance(document, dict) or not isinstance(document.get("memories"), list):
        raise UnreadableFile('Not an export: a JSON object with "format_version" and a "memories" list.')
    if document.get("format_version") != EXPORT_FORMAT_VERSION:
        raise UnreadableFile(
            f"This server reads export format_version {EXPORT_FORMAT_VERSION}; "
            f"the file has {document.get('format_version')!r}."
        )
    net_names = contributed_section_names()
    unknown = sorted(set(document) - {*_EXPORT_FIELDS, *net_names})
    if unknown:
        raise UnreadableFile(f"Unknown top-level field {unknown[0]!r} in the export.")
    mind = document.get("mind")
    return ReadFile(
        rows=[SourceRow(place=f"memories.{index}", data=row) for index, row in enumerate(document["memories"])],
        net_sections={name: document[name] for name in net_names if document.get(name)},
        mind_id=mind.get("id") if isinstance(mind, dict) and isinstance(mind.get("id"), str) else None,
    )


def read_jsonl(stream: TextIO) -> ReadFile:
    """One memory object a line (the memory JSON of the API and the export); blank lines skipped."""
    rows = []
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            rows.append(SourceRow(place=f"line {number}", data=json.loads(line)))
        except json.JSONDecodeError as error:
            rows.append(SourceRow(place=f"line {number}", problem=f"not JSON: {error.msg}"))
    return ReadFile(rows=rows)


# Each format by the name `--format` takes.
READERS: dict[str, Callable[[TextIO], ReadFile]] = {"export": read_export, "jsonl": read_jsonl}
# File name endings that say JSONL when `--format` is not given; anything else is read as an export.
JSONL_SUFFIXES = (".jsonl", ".ndjson")


def format_guess(path: str) -> str:
    return "jsonl" if path.lower().endswith(JSONL_SUFFIXES) else "export"
