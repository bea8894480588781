"""The forms of the human UI's memory pages: the list's filters, a memory to create or edit, bulk
verify, a file to import and a compaction to run.

A memory form parses what a browser sends (tags and entities as comma-separated text) and then
validates it with the memory field rules the API, the admin and import share
(`memories.services.validation`), so a page accepts exactly what `POST /memory` and
`PATCH /memory/{id}` accept, with the same messages under each field.
"""

from __future__ import annotations

import io
import re

from django import forms
from django.conf import settings

from memories.import_readers import READERS, ReadFile, UnreadableFile, format_guess
from memories.limits import (
    COMPACT_DEFAULT_OLDER_THAN,
    COMPACT_MAX_CLUSTERS,
    COMPACT_MAX_MIN_CLUSTER_SIZE,
    COMPACT_MIN_CLUSTER_SIZE,
    MAX_CONTENT_CHARS,
    MAX_KEY_CHARS,
    MAX_TAG_CHARS,
)
from memories.models import Category, Priority, Source
from memories.selectors.memory import MemoryListFilters
from memories.services.compact import COMPACT_DEFAULT_MAX_CLUSTERS, COMPACT_DEFAULT_MIN_CLUSTER_SIZE
from memories.services.transfer import IMPORT_MAX_MEMORIES
from memories.services.validation import KEY_HELP, memory_fields_clean
from memoryproject.core.converters import MemoryIdConverter
from memoryproject.core.domain import ValidationFailed
from memoryproject.core.page_limits import MAX_PAGE_LIMIT
from memoryproject.core.timeinput import DURATION_HELP, parse_duration

# Memories one page of the list or the review queue shows (rows).
UI_PAGE_SIZE = 25
# Most hits a search on the mind page shows (rows); search ranks, it does not page.
UI_SEARCH_LIMIT = 50
# Most memories one bulk verify takes: one page of the API's lists (rows).
MAX_BULK_VERIFY = MAX_PAGE_LIMIT

# The memory fields the form edits; the others (confidence, salience, emotion, attributes, …)
# keep their values, and the API changes them.
EDITED_FIELDS = ("category", "key", "content", "tags", "priority", "entities", "event_time", "expires_at")

_ANY = [("", "any")]
_VERIFIED_CHOICES = [("", "any"), ("true", "verified"), ("false", "unverified")]


def _comma_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


class MemoryFilterForm(forms.Form):
    """The mind page's query string: the list filters of `GET /memory`, a search, a page."""

    q = forms.CharField(label="Search", required=False, max_length=5000)
    category = forms.ChoiceField(choices=_ANY + Category.choices, required=False)
    tag = forms.CharField(required=False, max_length=MAX_TAG_CHARS)
    verified = forms.ChoiceField(choices=_VERIFIED_CHOICES, required=False)
    source = forms.ChoiceField(choices=_ANY + Source.choices, required=False)
    priority = forms.ChoiceField(choices=_ANY + Priority.choices, required=False)
    include_expired = forms.BooleanField(label="Include expired", required=False)
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def list_filters(self) -> MemoryListFilters:
        """The valid filters as the selectors take them (call after is_valid)."""
        data = self.cleaned_data
        verified = {"true": True, "false": False}.get(data.get("verified") or "")
        return MemoryListFilters(
            category=data.get("category") or None,
            tag=(data.get("tag") or "").strip().lower() or None,
            priority=data.get("priority") or None,
            source=data.get("source") or None,
            verified=verified,
            include_expired=bool(data.get("include_expired")),
        )


class MemoryForm(forms.Form):
    """Create (every given field) or edit (the fields the person changed) one memory. An edit
    is bound with the memory's values as `initial`, which is what tells what changed."""

    category = forms.ChoiceField(choices=Category.choices)
    key = forms.CharField(required=False, max_length=MAX_KEY_CHARS, help_text=f"Optional. {KEY_HELP}")
    content = forms.CharField(max_length=MAX_CONTENT_CHARS, widget=forms.Textarea(attrs={"rows": 4}))
    tags = forms.CharField(required=False, help_text="Comma-separated, e.g. “work, travel”.")
    priority = forms.ChoiceField(choices=Priority.choices, initial=Priority.NORMAL)
    entities = forms.CharField(required=False, help_text="People and things it mentions, comma-separated.")
    event_time = forms.CharField(
        required=False, help_text="When it happens or happened: a date, a time or a phrase like “next Friday”."
    )
    expires_at = forms.CharField(
        required=False, label="Expires at", help_text="ISO time (2027-01-31T18:00:00Z) or epoch seconds; empty: never."
    )

    def __init__(self, *args, partial: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.partial = partial

    @classmethod
    def initial_of(cls, memory) -> dict:
        return {
            "category": memory.category,
            "key": memory.key,
            "content": memory.content,
            "tags": ", ".join(memory.tags),
            "priority": memory.priority,
            "entities": ", ".join(memory.entities or []),
            "event_time": memory.event_time.isoformat() if memory.event_time else "",
            "expires_at": memory.expires_at.isoformat() if memory.expires_at else "",
        }

    def _payload(self) -> dict:
        """The memory fields to validate: on create every given one, on edit only those the
        person changed (so an untouched event time or tag list is not rewritten)."""
        data = self.cleaned_data
        names = [name for name in EDITED_FIELDS if not self.partial or name in self.changed_data]
        payload: dict = {}
        for name in names:
            value = data.get(name)
            if name in ("tags", "entities"):
                payload[name] = _comma_list(value or "")
            elif value not in ("", None):
                payload[name] = value
            elif self.partial and name in ("event_time", "expires_at"):
                payload[name] = None  # emptied: no event time, never expires
        if not self.partial and not payload.get("entities"):
            payload.pop("entities", None)
        return payload

    def clean(self) -> dict:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            self.memory_fields = memory_fields_clean(self._payload(), partial=self.partial)
        except ValidationFailed as error:
            for name, problems in error.fields.items():
                field = name.split(".")[0]  # `tags.1` belongs to the tags box
                target = field if field in self.fields else None
                for problem in problems if isinstance(problems, list) else [problems]:
                    self.add_error(target, str(problem) if target else f"{name}: {problem}")
        return cleaned


class BulkVerifyForm(forms.Form):
    """The ids of the memories ticked on a page (`memory` checkboxes)."""

    def __init__(self, data=None):
        super().__init__(data)
        self.memory_ids: list[str] = list(dict.fromkeys(data.getlist("memory"))) if data is not None else []

    def clean(self) -> dict:
        cleaned = super().clean()
        if not self.memory_ids:
            raise forms.ValidationError("Tick at least one memory to verify.")
        if not all(re.fullmatch(MemoryIdConverter.regex, memory_id) for memory_id in self.memory_ids):
            raise forms.ValidationError("Only memory ids (mem_…) can be verified; reload the page and tick again.")
        if len(self.memory_ids) > MAX_BULK_VERIFY:
            raise forms.ValidationError(
                f"At most {MAX_BULK_VERIFY} memories at once; you ticked {len(self.memory_ids)}."
            )
        return cleaned


class ImportFileForm(forms.Form):
    """A file of memories as `manage.py import_memories` reads it: our JSON export (memories and
    the net) or JSONL, one memory object a line. As `POST /mind/import`, at most
    IMPORT_MAX_MEMORIES memories and all or none; `read` holds the file's rows after is_valid."""

    file = forms.FileField(
        help_text=(
            f"The JSON export of a mind (its “everything as JSON” link), or a .jsonl file with one memory a line. "
            f"At most {IMPORT_MAX_MEMORIES} memories and {settings.MAX_REQUEST_BODY_BYTES // 1024 // 1024} MB, "
            "the limits of POST /mind/import; `manage.py import_memories` takes bigger files."
        )
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.MAX_REQUEST_BODY_BYTES:
            raise forms.ValidationError(
                f"The file has {upload.size} bytes; a page takes at most {settings.MAX_REQUEST_BODY_BYTES}. "
                "Import it with `manage.py import_memories`."
            )
        reader = READERS[format_guess(upload.name or "")]
        try:
            text = upload.read().decode("utf-8")
            self.read: ReadFile = reader(io.StringIO(text))
        except UnicodeDecodeError:
            raise forms.ValidationError("The file is not UTF-8 text.") from None
        except UnreadableFile as error:
            raise forms.ValidationError(str(error)) from None
        problems = [f"{row.place}: {row.problem}" for row in self.read.rows if row.problem]
        if problems:
            raise forms.ValidationError(problems)
        if not self.read.rows:
            raise forms.ValidationError("The file holds no memories.")
        if len(self.read.rows) > IMPORT_MAX_MEMORIES:
            raise forms.ValidationError(
                f"The file holds {len(self.read.rows)} memories; a page imports at most {IMPORT_MAX_MEMORIES}. "
                "Import it with `manage.py import_memories`, which takes any number."
            )
        return upload


_COMPACT_CATEGORY_CHOICES = [("", "every category"), *Category.choices]


class CompactForm(forms.Form):
    """The parameters of `POST /memory/compact`, with its defaults and limits."""

    older_than = forms.CharField(
        initial=COMPACT_DEFAULT_OLDER_THAN,
        label="Older than",
        help_text=f"Only memories last written longer ago than this. {DURATION_HELP}",
    )
    category = forms.ChoiceField(choices=_COMPACT_CATEGORY_CHOICES, required=False)
    max_clusters = forms.IntegerField(
        label="Most groups", min_value=1, max_value=COMPACT_MAX_CLUSTERS, initial=COMPACT_DEFAULT_MAX_CLUSTERS
    )
    min_cluster_size = forms.IntegerField(
        label="Fewest memories a group needs",
        min_value=COMPACT_MIN_CLUSTER_SIZE,
        max_value=COMPACT_MAX_MIN_CLUSTER_SIZE,
        initial=COMPACT_DEFAULT_MIN_CLUSTER_SIZE,
    )

    def clean_older_than(self):
        try:
            return parse_duration(self.cleaned_data["older_than"])
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def clean_category(self) -> str | None:
        return self.cleaned_data["category"] or None
