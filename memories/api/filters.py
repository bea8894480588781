"""Query-string filters of the memory lists (django-filter), strict like every list
(memoryproject.core.api.filters): a typo like `?tags=docker` must not silently return every memory.

The API validates with them and hands the typed values to the selectors
(memories.selectors.memory.MemoryListFilters), which apply them: selectors never read a query string."""

from __future__ import annotations

import django_filters
from django import forms

from memories.limits import MAX_TAG_CHARS
from memories.models import AuditAction, Category, Memory, MemoryAudit, Priority, Source
from memoryproject.core.api.filters import QueryBooleanFilter, StrictFilterSet, choice_filter


class TagField(forms.CharField):
    """A tag as stored: trimmed and lower-cased (tags match case-insensitively)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", MAX_TAG_CHARS)
        kwargs.setdefault(
            "error_messages",
            {
                "max_length": f"A tag is at most {MAX_TAG_CHARS} characters.",
                "required": "Name a tag: ?tag=<tag>.",
            },
        )
        super().__init__(**kwargs)

    def to_python(self, value):
        return super().to_python(value).lower()


class TagFilter(django_filters.Filter):
    field_class = TagField


class MemoryFilter(StrictFilterSet):
    """GET /memory: filters of the list. Expired memories are left out unless include_expired=true."""

    category = choice_filter(Category.values)
    tag = TagFilter()
    priority = choice_filter(Priority.values)
    source = choice_filter(Source.values)
    verified = QueryBooleanFilter()
    include_expired = QueryBooleanFilter()

    class Meta:
        model = Memory
        fields: list[str] = []


class MemoryByTagFilter(MemoryFilter):
    """GET /memory/by-tag: the list's filters, with `tag` required."""

    tag = TagFilter(required=True)


class AuditFilter(StrictFilterSet):
    """GET /memory/audit."""

    action = choice_filter(AuditAction.values)

    class Meta:
        model = MemoryAudit
        fields: list[str] = []
