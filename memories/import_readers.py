"""The file formats `manage.py import_memories` reads: one small reader per format, each turning a
file into memory rows (the memory object of the export, as dicts) and, for our own export, the
long-term net's sections. Adding a format (another memory tool's export) is one more reader in
READERS; validation, order and writing stay in the command and the import service.

Another tool's rows (`dump`, `mem0`) become memory objects here, each with a key that is its
source-id mapping (docs/export-format.md, "Dumps of other tools"): `<origin>:<the row's id>`, or
for a row without an id `<origin>:<hash of the row>`. The import matches memories by category and
key, so the same row imported again is the same memory, and a later version of it (the same id,
a later `updated_at`) updates it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from memories.services.transfer import EXPORT_FORMAT_VERSION
from memories.services.validation import KEY_PATTERN, MEMORY_FIELD_RULES
from memoryproject.core.contributions import contributed_section_names
from memoryproject.core.jsonbounds import JSONTooDeep, loads_bounded


class UnreadableFile(Exception):
    """The file is not of the format asked for; the message says what is wrong and where."""


@dataclass(frozen=True)
class SourceRow:
    """One memory of the file: where it is (`place`, for messages) and its fields as written.
    `problem` is set instead of `data` when the row could not be read at all."""

    place: str
    data: Any = None
    problem: str = ""
    # The user the row belongs to in the tool it came from (`user_id` of a dump): picks the mind
    # under `--mind-per-user`.
    user_id: str | None = None

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
        document = loads_bounded(stream.read())
    except json.JSONDecodeError as error:
        raise UnreadableFile(f"Not JSON: {error.msg} at line {error.lineno}, column {error.colno}.") from None
    except JSONTooDeep as error:
        raise UnreadableFile(str(error)) from None
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
            rows.append(SourceRow(place=f"line {number}", data=loads_bounded(line)))
        except json.JSONDecodeError as error:
            rows.append(SourceRow(place=f"line {number}", problem=f"not JSON: {error.msg}"))
        except JSONTooDeep as error:
            rows.append(SourceRow(place=f"line {number}", problem=str(error)))
    return ReadFile(rows=rows)


# --- dumps of other tools ----------------------------------------------------------------------

# The names a dump may give a memory's text; a row gives exactly one of them.
CONTENT_ALIASES = ("content", "memory", "text")
# Fields of a generic dump's row besides the memory object's writable ones.
DUMP_FIELDS = ("id", "metadata", "user_id", "created_at", "updated_at", "verified", "verified_at")
# The category of a dump row that names none (the memory object requires one).
DUMP_DEFAULT_CATEGORY = "note"
# mem0 stores facts it extracted from conversations: what our `fact` category holds.
MEM0_CATEGORY = "fact"
# Fields of a mem0 row that become fields of the memory. The others (`id`, `hash`, `user_id`,
# `agent_id`, `app_id`, `run_id`, `actor_id`, `role`, and whatever a later mem0 adds) say where it
# came from: they are kept under `attributes.mem0`, so nothing of the row is lost.
MEM0_MAPPED_FIELDS = ("memory", "metadata", "categories", "created_at", "updated_at")
# mem0's `role` of the speaker (OpenAI message roles) → our `speaker`.
MEM0_SPEAKERS = {"user": "user", "assistant": "agent"}
# Top-level list fields a JSON dump may hold its rows in (mem0's get_all answers `results`).
DUMP_LIST_FIELDS = ("results", "memories", "data")
# A row's id is used in its key as it is when it is a key's characters and not longer than this.
MAX_ID_IN_KEY = 100
# Hex digits of the sha256 that stands for an id too long or odd for a key, or for a row without id.
SOURCE_HASH_HEX = 24
_KEY_SAFE = re.compile(KEY_PATTERN)


def _source_key(origin: str, row: dict) -> str:
    """The key that maps a row of another tool onto one memory, the same on every import: its id,
    else a hash of the whole row (canonical JSON), so that an id-less row is stable too."""
    given = row.get("id")
    if isinstance(given, int | str) and not isinstance(given, bool) and str(given).strip():
        given = str(given).strip()
        if len(given) <= MAX_ID_IN_KEY and _KEY_SAFE.match(given):
            return f"{origin}:{given}"
        return f"{origin}:{hashlib.sha256(given.encode()).hexdigest()[:SOURCE_HASH_HEX]}"
    canonical = json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{origin}:{hashlib.sha256(canonical.encode()).hexdigest()[:SOURCE_HASH_HEX]}"


def _user_id(row: dict) -> tuple[str | None, str]:
    value = row.get("user_id")
    if value is None:
        return None, ""
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
        return None, "user_id: must be a non-empty string (or a number)."
    return str(value).strip(), ""


def _times(row: dict) -> dict:
    # A null time is a time the tool did not record: the import's default (now; created_at).
    return {name: row[name] for name in ("created_at", "updated_at") if row.get(name) is not None}


def dump_row(row: Any) -> tuple[dict | None, str | None, str]:
    """A generic dump's row as a memory object: (memory, user_id, problem). The text is in one of
    CONTENT_ALIASES; `metadata` (an object) joins `attributes`; the memory object's own fields are
    taken as they are; any other field is a problem, named (a typo must not vanish)."""
    if not isinstance(row, dict):
        return None, None, f"a row must be a JSON object, not {type(row).__name__}."
    known = {*MEMORY_FIELD_RULES, *CONTENT_ALIASES, *DUMP_FIELDS}
    unknown = sorted(set(row) - known)
    if unknown:
        return None, None, f"unknown field {unknown[0]!r}; a dump row has {', '.join(sorted(known))}."
    texts = [name for name in CONTENT_ALIASES if name in row]
    if len(texts) != 1:
        return None, None, f"give the text in exactly one of {', '.join(CONTENT_ALIASES)} (the row has {len(texts)})."
    metadata = row.get("metadata") or {}
    if not isinstance(metadata, dict) or not isinstance(row.get("attributes", {}), dict):
        return None, None, "metadata and attributes must be JSON objects."
    user_id, problem = _user_id(row)
    if problem:
        return None, None, problem
    memory = {name: row[name] for name in MEMORY_FIELD_RULES if name in row and name != "content"}
    memory.setdefault("category", DUMP_DEFAULT_CATEGORY)
    memory["content"] = row[texts[0]]
    memory.setdefault("key", _source_key("import", row))
    origin = {name: row[name] for name in ("id", "user_id") if row.get(name) is not None}
    memory["attributes"] = {**metadata, **row.get("attributes", {}), **({"import": origin} if origin else {})}
    memory.update(_times(row))
    memory.update({name: row[name] for name in ("verified", "verified_at") if name in row})
    return memory, user_id, ""


def mem0_row(row: Any) -> tuple[dict | None, str | None, str]:
    """A mem0 memory `{id, memory, hash, metadata, created_at, updated_at, user_id, …}` as a memory
    object: (memory, user_id, problem). `memory` is the content, `metadata` the attributes, the
    platform's `categories` the tags, `role` the speaker; the ids it came with stay in
    `attributes.mem0`, with any field this reader does not map."""
    if not isinstance(row, dict):
        return None, None, f"a row must be a JSON object, not {type(row).__name__}."
    if not isinstance(row.get("memory"), str):
        return None, None, 'memory: a mem0 row holds its text in "memory" (a string).'
    metadata = row.get("metadata") or {}
    if not isinstance(metadata, dict):
        return None, None, "metadata: must be a JSON object."
    user_id, problem = _user_id(row)
    if problem:
        return None, None, problem
    categories = row.get("categories") or []
    if not isinstance(categories, list) or not all(isinstance(name, str) for name in categories):
        return None, None, "categories: must be a list of strings."
    origin = {name: value for name, value in row.items() if value is not None and name not in MEM0_MAPPED_FIELDS}
    memory = {
        "category": MEM0_CATEGORY,
        "key": _source_key("mem0", row),
        "content": row["memory"],
        "attributes": {**metadata, "mem0": origin},
        **_times(row),
    }
    if categories:
        memory["tags"] = categories
    if row.get("role") in MEM0_SPEAKERS:
        memory["speaker"] = MEM0_SPEAKERS[row["role"]]
    return memory, user_id, ""


def _dump_documents(stream: TextIO) -> list[tuple[str, Any]]:
    """The raw rows of a dump, JSON or JSONL, each with its place: a JSON array of rows, an object
    holding them under one of DUMP_LIST_FIELDS, or one row a line."""
    text = stream.read()
    try:
        document = loads_bounded(text)
    except json.JSONDecodeError:
        document = None  # JSONL, or broken JSON: read line by line, each broken line reported
    except JSONTooDeep as error:
        raise UnreadableFile(str(error)) from None
    else:
        if isinstance(document, dict):
            lists = [name for name in DUMP_LIST_FIELDS if isinstance(document.get(name), list)]
            if not lists:
                return [("row 0", document)]  # a single row as a file (or a one-line JSONL file)
            return [(f"{lists[0]}.{index}", row) for index, row in enumerate(document[lists[0]])]
        if isinstance(document, list):
            return [(f"row {index}", row) for index, row in enumerate(document)]
        raise UnreadableFile("A dump is a JSON array of rows, an object with a list of them, or JSONL.")
    rows: list[tuple[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((f"line {number}", loads_bounded(line)))
        except json.JSONDecodeError as error:
            rows.append((f"line {number}", _Broken(f"not JSON: {error.msg}")))
        except JSONTooDeep as error:
            rows.append((f"line {number}", _Broken(str(error))))
    return rows


@dataclass(frozen=True)
class _Broken:
    problem: str


def _reader_of(convert: Callable[[Any], tuple[dict | None, str | None, str]]) -> Callable[[TextIO], ReadFile]:
    def read(stream: TextIO) -> ReadFile:
        rows = []
        for place, raw in _dump_documents(stream):
            if isinstance(raw, _Broken):
                rows.append(SourceRow(place=place, problem=raw.problem))
                continue
            memory, user_id, problem = convert(raw)
            rows.append(SourceRow(place=place, data=memory, problem=problem, user_id=user_id))
        return ReadFile(rows=rows)

    return read


# A generic dump of memories (JSON or JSONL): rows with `content`/`memory`/`text`, `created_at`,
# `metadata`, `user_id`, and any field of the memory object.
read_dump = _reader_of(dump_row)
# mem0's memories: `get_all()`'s `{"results": [...]}`, a list of them, or JSONL.
read_mem0 = _reader_of(mem0_row)

# Each format by the name `--format` takes.
READERS: dict[str, Callable[[TextIO], ReadFile]] = {
    "export": read_export,
    "jsonl": read_jsonl,
    "dump": read_dump,
    "mem0": read_mem0,
}
# File name endings that say JSONL when `--format` is not given; anything else is read as an export.
JSONL_SUFFIXES = (".jsonl", ".ndjson")


def format_guess(path: str) -> str:
    return "jsonl" if path.lower().endswith(JSONL_SUFFIXES) else "export"
