"""`manage.py import_memories FILE [--mind ID] [--format export|jsonl|dump|mem0] [--mind-per-user
--owner EMAIL]`: a file of memories into a mind (or, for dumps of other tools, one mind per
`user_id`), oldest first, idempotent, with a progress bar and a summary (docs/export-format.md,
"Importing a file from the command line").

Every row is checked as `POST /mind/import` checks it; the valid ones are written by the same
import service, IMPORT_MAX_MEMORIES at a time in creation order, so promotion meets them (and
forms their edges) in the order they were lived. The export's net sections follow, once every
memory they name is in.

One mind's memories and net are written in one transaction: the worker sees none of the
memories before their knots, links, edges, entities and goals are in, so it cannot promote a
restored memory first (new knots with new times and reset presence, then `IntegrityError …
knot_unique_memory_version` when the file's knots follow), and wrong net rows leave nothing
written. The memories the file names that the mind already has stay row-locked until the commit,
and promotion passes over locked rows (SKIP LOCKED).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone
from tqdm import tqdm

from memories.import_readers import READERS, ReadFile, SourceRow, UnreadableFile, format_guess
from memories.keys import key_given_or_derived
from memories.services.transfer import IMPORT_MAX_MEMORIES, imported_ids, mind_import, mind_net_import
from memories.services.validation import import_items_clean
from memoryproject.core.domain import Conflict, ValidationFailed
from minds.access import caller_of
from minds.models import Mind
from minds.services import mind_create


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
    valid: list[_Valid] = []
    invalid: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], str] = {}
    for start in range(0, len(rows), IMPORT_MAX_MEMORIES):
        chunk = list(enumerate(rows[start : start + IMPORT_MAX_MEMORIES], start=start))
        invalid += [(row.place, row.problem) for _, row in chunk if row.problem]
        readable = [(position, row) for position, row in chunk if not row.problem]
        try:
            items = import_items_clean([row.data for _, row in readable])
        except ValidationFailed as error:
            wrong = {int(index): detail for index, detail in error.fields.items()}
            invalid += [(readable[index][1].place, "; ".join(_messages(detail))) for index, detail in wrong.items()]
            readable = [pair for index, pair in enumerate(readable) if index not in wrong]
            items = import_items_clean([row.data for _, row in readable])
        for (position, row), item in zip(readable, items, strict=True):
            fields = item["fields"]
            where = (fields["category"], key_given_or_derived(fields))
            if where in seen:  # within one chunk the validator said so already; this is across chunks
                invalid.append((row.place, f"key: {seen[where]} has the same category and key; the first one counts."))
                continue
            seen[where] = row.place
            valid.append(_Valid(row=row, item=item, position=position))
    return valid, invalid


def _chronological(valid: list[_Valid], now: datetime) -> list[_Valid]:
    """Oldest creation first; a row without `created_at` is created now, so after every dated one."""
    return sorted(valid, key=lambda entry: (entry.item["times"].get("created_at") or now, entry.position))


def _by_user(rows: list[SourceRow]) -> Iterator[tuple[str | None, list[SourceRow]]]:
    """The rows by their `user_id`, in the order each user first appears; rows without one first."""
    groups: dict[str | None, list[SourceRow]] = {None: []}
    for row in rows:
        groups.setdefault(row.user_id, []).append(row)
    if not groups[None]:
        del groups[None]
    yield from groups.items()


class Command(BaseCommand):
    help = (
        "Import memories from a file into a mind: our json export (memories and the net), JSONL (one "
        "memory object a line), another tool's JSON/JSONL dump, or mem0's memories (one mind per user_id "
        "with --mind-per-user). Oldest first; importing the same file again creates nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the file to read (UTF-8)")
        parser.add_argument("--mind", help="id of the mind to import into (default: the export's own mind, if here)")
        parser.add_argument(
            "--format",
            choices=sorted(READERS),
            help="the file's format: export (ours), jsonl (our memory objects), dump (another tool's JSON or "
            "JSONL rows), mem0 (mem0's get_all or export); default: jsonl for .jsonl/.ndjson files, else export",
        )
        parser.add_argument(
            "--mind-per-user",
            action="store_true",
            help="each user_id of the rows into its own mind, named after it and owned by --owner (found by "
            "that name, else created); rows without user_id go to --mind",
        )
        parser.add_argument("--owner", help="email of the account that owns the minds --mind-per-user picks")

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
        if not options["mind_per_user"]:
            mind = self._mind(options["mind"], read)
            with transaction.atomic():  # the memories and their net become visible together
                memory_ids = self._import(mind, read.rows)
                if read.net_sections:
                    self._write_net(mind, read, memory_ids)
            return
        if read.net_sections:
            raise CommandError("An export holds one mind, with its net: import it with --mind, not --mind-per-user.")
        owner = self._owner(options["owner"])
        for user_id, rows in _by_user(read.rows):
            valid_rows = [row for row in rows if not row.problem]
            if user_id is None and not options["mind"]:
                for row in rows:
                    reason = row.problem or "no user_id to pick its mind by (name a mind for such rows with --mind)."
                    self.stdout.write(f"  invalid {row.place}: {reason}")
                continue
            if user_id is None:
                mind = self._mind(options["mind"], read)
            elif not valid_rows:
                for row in rows:
                    self.stdout.write(f"  invalid {row.place}: {row.problem}")
                continue
            else:
                mind = self._user_mind(owner, user_id)
            with transaction.atomic():  # one mind's rows at once, as with --mind
                self._import(mind, rows)

    def _import(self, mind: Mind, rows: list[SourceRow]) -> dict[str, str]:
        """The rows into `mind`, oldest first, and its summary; the file's memory ids → the mind's."""
        valid, invalid = _checked(rows)
        counts, memory_ids = self._write(mind, _chronological(valid, timezone.now()))
        self.stdout.write(
            f"{mind.pk} ({mind.name}): {counts['created'] + counts['updated']} imported "
            f"({counts['created']} created, {counts['updated']} updated), {counts['skipped']} skipped "
            f"(already there, or the mind's version is newer), {len(invalid)} invalid."
        )
        for place, reason in invalid:
            self.stdout.write(f"  invalid {place}: {reason}")
        return memory_ids

    def _owner(self, email: str | None):
        if not email:
            raise CommandError("--mind-per-user needs --owner EMAIL: the account the minds belong to.")
        owner = get_user_model().objects.filter(email__iexact=email.strip()).first()
        if owner is None:
            raise CommandError(f"No account with the email {email!r}.")
        return owner

    def _user_mind(self, owner, user_id: str) -> Mind:
        """The owner's mind named `user_id` (the oldest, if several), else a new one."""
        name = user_id[: Mind._meta.get_field("name").max_length]
        mind = Mind.objects.select_related("owner").filter(owner=owner, name=name).order_by("created_at").first()
        if mind is None:
            mind = mind_create(owner=owner, name=name, description=f"Imported: the memories of user_id {user_id!r}.")[0]
            self.stdout.write(f"Created mind {mind.pk} ({mind.name}) for user_id {user_id!r}.")
        return mind

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
                "The net's rows above are wrong, so nothing was imported (neither the memories nor the net). "
                "Fix them and run the command again."
            ) from None
        parts = [f"{name} {section.created} created / {section.skipped} skipped" for name, section in done.items()]
        self.stdout.write("Net: " + ", ".join(parts) + ".")
