"""Export and import of a mind (docs/export-format.md).

Export streams: a mind of any size leaves in chunks, never all rows in memory at once. Import
takes the json export format, at most IMPORT_MAX_MEMORIES memories a call, validated up front
(memories.services.validation.import_items_clean), written in one transaction. The
long-term net's sections (knots, edges, entities, goals) are written and read by the net's app
through `memoryproject.core.contributions`; this module never imports it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memories.keys import key_given_or_derived
from memories.lifecycle import MemoryEvent, memories_changed
from memories.models import AuditAction, Memory, MemoryAudit
from memories.selectors.knots import memories_knot_ids_attach
from memories.selectors.memory import memories_of
from memories.services.memory import (
    PLAIN_FIELDS,
    SALIENCE_BY_PRIORITY,
    audit_row,
    embed_all,
    memories_for_write,
    memories_insert,
    memory_build,
    memory_model_check,
)
from memories.services.provenance import import_downgrades, import_provenance, import_verified
from memories.services.sync import SYNC_UPDATE_BATCH
from memoryproject.core.contributions import (
    ImportedSection,
    contributed_export_sections,
    contributed_import,
    contributed_section_names,
)
from memoryproject.core.domain import ValidationFailed, validation_error_fields
from minds.access import Caller
from minds.models import Mind
from pipelinelog.spans import current_span

# The export format this server writes and reads (docs/export-format.md); bump on any change
# an older reader could misread.
EXPORT_FORMAT_VERSION = 1
# Memories one POST /mind/import takes; larger exports go in several calls.
IMPORT_MAX_MEMORIES = 1000
# Rows fetched per round trip while streaming an export.
EXPORT_CHUNK_ROWS = 500
# Joins tags and entities inside one CSV cell.
CSV_LIST_SEPARATOR = ";"
# Columns of the CSV export, in order (one row per memory).
CSV_COLUMNS = (
    "id", "category", "key", "content", "tags", "priority", "source", "speaker", "verified", "verified_at",
    "verified_by", "confidence", "salience", "expires_at", "expired", "entities", "event_time", "event_precision",
    "emotion", "attributes", "turn_id", "created_at", "updated_at", "promoted_at",
)  # fmt: skip


# --- export -----------------------------------------------------------------------------------


def _export_rows(mind: Mind) -> Iterator[Memory]:
    return memories_of(mind.pk).order_by("created_at", "pk").iterator(chunk_size=EXPORT_CHUNK_ROWS)


def _export_chunks(mind: Mind) -> Iterator[list[Memory]]:
    """The rows EXPORT_CHUNK_ROWS at a time, each chunk's `knot_id`s looked up in one query."""
    chunk: list[Memory] = []
    for memory in _export_rows(mind):
        chunk.append(memory)
        if len(chunk) == EXPORT_CHUNK_ROWS:
            memories_knot_ids_attach(chunk)
            yield chunk
            chunk = []
    if chunk:
        memories_knot_ids_attach(chunk)
        yield chunk


def _json_list(rows: Iterable[dict]) -> Iterator[str]:
    yield "["
    for position, row in enumerate(rows):
        yield ("," if position else "") + "\n" + json.dumps(row, ensure_ascii=False)
    yield "\n]"


def mind_export_json(
    *, mind: Mind, represent: Callable[[Memory], dict], represent_time: Callable[[datetime], str]
) -> Iterator[str]:
    """The mind as one JSON document, in pieces: `format_version`, `exported_at`, `mind`,
    `memories` (`represent(memory)` of each, oldest first), then the long-term net's sections
    (`knots`, `edges`, `entities`, `goals`), which the net's app streams through
    `memoryproject.core.contributions`. Times are written by `represent_time`, the API's format."""
    head = {
        "format_version": EXPORT_FORMAT_VERSION,
        "exported_at": represent_time(timezone.now()),
        "mind": {
            "id": mind.pk,
            "name": mind.name,
            "description": mind.description,
            "created_at": represent_time(mind.created_at),
        },
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "memories": '
    yield from _json_list(represent(memory) for chunk in _export_chunks(mind) for memory in chunk)
    written = set()
    for name, rows in contributed_export_sections(mind.pk, represent_time):
        written.add(name)
        yield f", {json.dumps(name)}: "
        yield from _json_list(rows)
    # Every section the import reads is in the file, even one whose rows nobody streamed.
    yield "".join(f", {json.dumps(name)}: []" for name in contributed_section_names() if name not in written) + "}\n"


class _Echo:
    """A file-like object csv.writer can write to; each write returns the line instead."""

    def write(self, value: str) -> str:
        return value


def _csv_cell(name: str, value) -> str:
    if value is None:
        return ""
    if name in ("tags", "entities"):
        return CSV_LIST_SEPARATOR.join(value)
    if name == "attributes":
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def mind_export_csv(*, mind: Mind, represent: Callable[[Memory], dict]) -> Iterator[str]:
    """One row per memory (oldest first) under a header row: the CSV_COLUMNS of `represent(memory)`;
    RFC 4180 quoting (csv module)."""
    writer = csv.writer(_Echo(), lineterminator="\r\n")
    yield writer.writerow(CSV_COLUMNS)
    for chunk in _export_chunks(mind):
        for memory in chunk:
            data = represent(memory)
            yield writer.writerow([_csv_cell(name, data[name]) for name in CSV_COLUMNS])


# --- import -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportOutcome:
    index: int
    id: str
    status: str  # created, updated or skipped


@dataclass(frozen=True)
class ImportResult:
    outcomes: list[ImportOutcome]
    downgraded: int  # memories a Mind Key imported that claimed a human's source or verification
    # What became of the net's sections of the file (`knots`, `links`, `edges`, …), by name.
    net: dict[str, ImportedSection] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(outcome.status == status for outcome in self.outcomes)


# Fields whose change an import reports in its audit row, besides the ones a write copies as given.
_COMPARED = ("content", "source", "verified", "event_time", "event_precision", "created_at", "updated_at")
# Every column an import's replacement writes, in one bulk UPDATE per SYNC_UPDATE_BATCH rows. A
# replaced memory always has new content (same content is skipped), so its vector is new too.
_IMPORT_UPDATE_FIELDS = sorted(
    {*PLAIN_FIELDS, *_COMPARED}
    | {"content_hash", "embedding", "embedding_model", "verified_at", "verified_by", "turn_id", "changed_at"}
    | {"salience_given"}
)


def _imported_memory(*, mind: Mind, fields: dict, times: dict, caller: Caller, now: datetime, turn_id: str) -> Memory:
    """The memory the file describes, with the store's defaults for what it leaves out.

    Raises Django's ValidationError({field: [...]}) for an event_time that cannot be parsed.
    A Mind Key's import carries no human authority: `source: user` becomes `agent` (the speaker
    stays `user`, whose words they are) and `verified` is false.
    """
    provenance = import_provenance(caller, source=fields.get("source"), speaker=fields.get("speaker"))
    created_at = times.get("created_at") or now
    updated_at = times.get("updated_at") or created_at
    memory = memory_build(
        mind=mind,
        fields=fields,
        key=key_given_or_derived(fields),
        source=provenance.source,
        speaker=provenance.speaker,
        turn_id=turn_id,
        created_at=created_at,
        updated_at=updated_at,
    )
    # An export writes every salience, the defaults too: only one that differs from its
    # priority's default was chosen by someone (and stays when the priority changes).
    memory.salience_given = memory.salience != SALIENCE_BY_PRIORITY[memory.priority]
    if import_verified(caller, source=provenance.source, verified=times.get("verified")):
        memory.verified = True
        memory.verified_at = times.get("verified_at") or updated_at
        memory.verified_by = caller.user  # the importing human vouches; the file's email may name nobody here
    return memory


def _changes(stored: Memory, incoming: Memory) -> list[str]:
    return [name for name in (*PLAIN_FIELDS, *_COMPARED) if getattr(stored, name) != getattr(incoming, name)]


def _replace(stored: Memory, incoming: Memory, changed: list[str]) -> None:
    for name in changed:
        setattr(stored, name, getattr(incoming, name))
    stored.content_hash = incoming.content_hash
    stored.salience_given = incoming.salience_given
    stored.verified_at, stored.verified_by = incoming.verified_at, incoming.verified_by
    stored.turn_id = incoming.turn_id


@transaction.atomic
def mind_import(
    *,
    mind: Mind,
    items: list[dict],
    caller: Caller,
    turn_id: str = "",
    source_ids: Sequence[str | None] = (),
    net_sections: Mapping[str, object] | None = None,
) -> ImportResult:
    """POST /mind/import: `items` are `{"fields", "times"}` from import_items_clean.

    `source_ids` are the file's ids of the items (in their order), `net_sections` the file's
    knots, edges, entities and goals: the net's app reads them after the memories, naming the
    memories by those ids (`mind_net_import`).

    Matches by (category, key). A memory the mind does not have is created with the file's
    times; one with the same content is skipped; one with different content is replaced by the
    file's version only when the file's `updated_at` is later, else skipped. So importing the
    same file twice changes nothing. Audit action `imported`; the lifecycle hears of what was
    written, oldest first. Nothing is written when any item fails.
    """
    now = timezone.now()
    incoming: list[Memory] = []
    errors: dict[int, dict] = {}
    for index, item in enumerate(items):
        try:
            memory = _imported_memory(
                mind=mind, fields=item["fields"], times=item["times"], caller=caller, now=now, turn_id=turn_id
            )
            # The field rules held (import_items_clean); this is the model's last word before any write.
            memory_model_check(memory)
        except ValidationError as error:
            errors[index] = validation_error_fields(error)
            continue
        incoming.append(memory)
    if errors:
        raise ValidationFailed({"memories": errors})

    keys = {memory.key for memory in incoming}
    locked = memories_for_write(mind.pk).filter(key__in=keys)
    stored = {(memory.category, memory.key): memory for memory in locked}
    outcomes: list[ImportOutcome] = []
    to_create: list[Memory] = []
    to_update: list[tuple[Memory, list[str]]] = []
    for index, memory in enumerate(incoming):
        existing = stored.get((memory.category, memory.key))
        if existing is None:
            to_create.append(memory)
            outcomes.append(ImportOutcome(index, memory.pk, "created"))
        elif existing.content_hash == memory.content_hash or memory.updated_at <= existing.updated_at:
            outcomes.append(ImportOutcome(index, existing.pk, "skipped"))
        else:
            changed = _changes(existing, memory)
            _replace(existing, memory, changed)
            to_update.append((existing, changed))
            outcomes.append(ImportOutcome(index, existing.pk, "updated"))

    written = to_create + [memory for memory, _ in to_update]
    embed_all(written)
    memories_insert(
        to_create,
        conflict_message="Another write stored a memory with the same category and key while this import ran. "
        "Send the import again: it is idempotent.",
    )
    for memory, _ in to_update:
        memory.changed_at = now  # the file's times stay; this marks the write for /memory/diff
    Memory.objects.bulk_update([memory for memory, _ in to_update], _IMPORT_UPDATE_FIELDS, batch_size=SYNC_UPDATE_BATCH)
    audited = [(memory, []) for memory in to_create] + to_update
    MemoryAudit.objects.bulk_create(
        audit_row(memory, action=AuditAction.IMPORTED, caller=caller, changed=changed, turn_id=turn_id, now=now)
        for memory, changed in audited
    )
    oldest_first = sorted(written, key=lambda memory: (memory.created_at, memory.pk))
    memories_changed(event=MemoryEvent.IMPORTED, mind_id=mind.pk, memory_ids=[memory.pk for memory in oldest_first])
    downgraded = sum(
        import_downgrades(caller, source=item["fields"].get("source"), verified=item["times"].get("verified"))
        for item in items
    )
    net = mind_net_import(mind=mind, sections=net_sections or {}, memory_ids=imported_ids(source_ids, outcomes))
    result = ImportResult(outcomes=outcomes, downgraded=downgraded, net=net)
    current_span().db_write(
        {
            "table": Memory._meta.db_table,
            "operation": "import",
            "created": [memory.pk for memory in to_create],
            "updated": [memory.pk for memory, _ in to_update],
            "skipped": result.count("skipped"),
        }
    )
    return result


def imported_ids(source_ids: Sequence[str | None], outcomes: Sequence[ImportOutcome]) -> dict[str, str]:
    """The file's memory id → the id the memory has in the mind (created, updated or skipped)."""
    return {
        source_id: outcome.id
        for source_id, outcome in zip(source_ids, outcomes, strict=False)
        if isinstance(source_id, str) and source_id
    }


def mind_net_import(
    *, mind: Mind, sections: Mapping[str, object], memory_ids: Mapping[str, str]
) -> dict[str, ImportedSection]:
    """The long-term net's sections of an export file into the mind, by the net's app
    (`memoryproject.core.contributions`), in one transaction; `memory_ids` maps the file's memory ids
    to the mind's. No statement at all when every section is empty. Idempotent."""
    if not any(sections.get(name) for name in contributed_section_names()):
        return contributed_import(mind.pk, {}, memory_ids)
    with transaction.atomic():
        return contributed_import(mind.pk, sections, memory_ids)
