"""`manage.py import_memories FILE [--mind ID] [--format export|jsonl]`: a file of memories into a
mind, oldest first, idempotent, with a progress bar and a summary (docs/export-format.md,
"Importing a file from the command line").

Every row is checked as `POST /mind/import` checks it; the valid ones are written by the same
import service, IMPORT_MAX_MEMORIES at a time in creation order, so promotion meets them (and
forms their edges) in the order they were lived. The export's net sections follow, once every
memory they name is in.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from rest_framework import serializers
from tqdm import tqdm

from memories.api.overview_serializers import ImportRequestSerializer
from memories.import_readers import READERS, ReadFile, SourceRow, UnreadableFile, format_guess
from memories.keys import derived_key
from memories.services.transfer import IMPORT_MAX_MEMORIES, imported_ids, mind_import, mind_net_import
from memoryproject.domain import Conflict, ValidationFailed
from minds.access import caller_of
from minds.models import Mind


@dataclass(frozen=True)
class _Valid:
    row: SourceRow
    item: dict  # {"fields", "times"} as the import service takes it
    position: int  # in the file, to keep the file's order among equal creation times


def _messages(detail, prefix: str = "") -> list[str]:
    """A DRF error detail as `field: message` lines (nested fields dotted: `tags.1`)."""
    if isinstance(detail, dict):
        return [line for name, inner in detail.items() for line in _messages(inner, f"{prefix}{name}.")]
    if isinstance(detail, list):
        return [line for inner in detail for line in _messages(inner, prefix)]
    return [f"{prefix.rstrip('.')}: {detail}" if prefix else str(detail)]


def _checked(rows: list[SourceRow]) -> tuple[list[_Valid], list[tuple[str, str]]]:
    """The rows the import takes and, for the others, why not: (place, reason)."""
    validator = ImportRequestSerializer()  # one for all rows: building one per row costs more than checking
    valid: list[_Valid] = []
    invalid: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], str] = {}
    for start in range(0, len(rows), IMPORT_MAX_MEMORIES):
        chunk = list(enumerate(rows[start : start + IMPORT_MAX_MEMORIES], start=start))
        invalid += [(row.place, row.problem) for _, row in chunk if row.problem]
        readable = [(position, row) for position, row in chunk if not row.problem]
        try:
            items = validator.validate_memories([row.data for _, row in readable])
        except serializers.ValidationError as error:
            wrong = {int(index): detail for index, detail in error.detail.items()}
            invalid += [(readable[index][1].place, "; ".join(_messages(detail))) for index, detail in wrong.items()]
            readable = [pair for index, pair in enumerate(readable) if index not in wrong]
            items = validator.validate_memories([row.data for _, row in readable])
        for (position, row), item in zip(readable, items, strict=True):
            fields = item["fields"]
            where = (fields["category"], fields.get("key") or derived_key(fields["category"], fields["content"]))
            if where in seen:  # within one chunk the validator said so already; this is across chunks
                invalid.append((row.place, f"key: {seen[where]} has the same category and key; the first one counts."))
                continue
            seen[where] = row.place
            valid.append(_Valid(row=row, item=item, position=position))
    return valid, invalid


def _chronological(valid: list[_Valid], now: datetime) -> list[_Valid]:
    """Oldest creation first; a row without `created_at` is created now, so after every dated one."""
    return sorted(valid, key=lambda entry: (entry.item["times"].get("created_at") or now, entry.position))


class Command(BaseCommand):
    help = (
        "Import memories from a file into a mind: our json export (memories and the net) or JSONL, "
        "one memory object a line. Oldest first; importing the same file again creates nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the file to read (UTF-8)")
        parser.add_argument("--mind", help="id of the mind to import into (default: the export's own mind, if here)")
        parser.add_argument(
            "--format",
            choices=sorted(READERS),
            help="the file's format (default: jsonl for .jsonl/.ndjson files, else export)",
        )

    def handle(self, *args, **options) -> None:
        path = options["file"]
        reader = READERS[options["format"] or format_guess(path)]
        try:
            with open(path, encoding="utf-8") as stream:
                read = reader(stream)
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"Cannot read {path}: {error}") from None
        except UnreadableFile as error:
            raise CommandError(f"{path}: {error}") from None
        mind = self._mind(options["mind"], read)
        valid, invalid = _checked(read.rows)
        counts, memory_ids = self._write(mind, _chronological(valid, timezone.now()))
        self.stdout.write(
            f"{mind.pk} ({mind.name}): {counts['created'] + counts['updated']} imported "
            f"({counts['created']} created, {counts['updated']} updated), {counts['skipped']} skipped "
            f"(already there, or the mind's version is newer), {len(invalid)} invalid."
        )
        for place, reason in invalid:
            self.stdout.write(f"  invalid {place}: {reason}")
        if read.net_sections:
            self._write_net(mind, read, memory_ids)

    def _mind(self, mind_id: str | None, read: ReadFile) -> Mind:
        if mind_id:
            mind = Mind.objects.select_related("owner").filter(pk=mind_id).first()
            if mind is None:
                raise CommandError(f"No mind with id {mind_id!r}.")
            return mind
        mind = Mind.objects.select_related("owner").filter(pk=read.mind_id).first() if read.mind_id else None
        if mind is None:
            raise CommandError("Name the mind to import into with --mind (the file names none that is here).")
        return mind

    def _write(self, mind: Mind, valid: list[_Valid]) -> tuple[dict[str, int], dict[str, str]]:
        # The owner imports: the file's sources and verifications stay (docs/export-format.md).
        caller = caller_of(mind.owner)
        counts = dict.fromkeys(("created", "updated", "skipped"), 0)
        memory_ids: dict[str, str] = {}
        # On a terminal only (disable=None): a log gets the summary, not a redrawn bar.
        with tqdm(total=len(valid), unit="memories", disable=None, file=sys.stderr) as bar:
            for start in range(0, len(valid), IMPORT_MAX_MEMORIES):
                chunk = valid[start : start + IMPORT_MAX_MEMORIES]
                source_ids = [entry.row.source_id for entry in chunk]
                try:
                    result = mind_import(mind=mind, items=[entry.item for entry in chunk], caller=caller,
                                         source_ids=source_ids)  # fmt: skip
                except Conflict as error:
                    raise CommandError(error.message) from None
                for status in counts:
                    counts[status] += result.count(status)
                memory_ids.update(imported_ids(source_ids, result.outcomes))
                bar.update(len(chunk))
        return counts, memory_ids

    def _write_net(self, mind: Mind, read: ReadFile, memory_ids: dict[str, str]) -> None:
        try:
            done = mind_net_import(mind=mind, sections=read.net_sections, memory_ids=memory_ids)
        except ValidationFailed as error:
            for line in _messages(error.fields):
                self.stdout.write(f"  invalid {line}")
            raise CommandError(
                "The net's rows above are wrong, so none of the net was imported (the memories were). "
                "Fix them and run the command again: it creates nothing twice."
            ) from None
        parts = [f"{name} {section.created} created / {section.skipped} skipped" for name, section in done.items()]
        self.stdout.write("Net: " + ", ".join(parts) + ".")
