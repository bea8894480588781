"""Query-string filters of the memory lists (django-filter), strict like every list
(memoryproject.api.filters): a typo like `?tags=docker` must not silently return every memory."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import QuerySet
from django.utils import timezone

from memories.limits import MAX_TAG_CHARS
from memories.models import AuditAction, Category, Memory, MemoryAudit, Priority, Source, current_filter
from memoryproject.api.filters import QueryBooleanFilter, StrictFilterSet, choice_filter


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
    """Memories carrying the tag: `tags @> ARRAY[tag]`, which the GIN index on tags answers."""

    field_class = TagField

    def filter(self, qs: QuerySet, value: str) -> QuerySet:
        if not value:
            return qs
        return qs.filter(tags__contains=[value])


def _keep(queryset: QuerySet, name: str, value: object) -> QuerySet:
    """For parameters that change what `filter_queryset` does rather than filtering themselves."""
    return queryset


class MemoryFilter(StrictFilterSet):
    """GET /memory: filters of the list. Expired memories are left out unless include_expired=true."""

    category = choice_filter(Category.values)
    tag = TagFilter()
    priority = choice_filter(Priority.values)
    source = choice_filter(Source.values)
    verified = QueryBooleanFilter(field_name="verified")
    include_expired = QueryBooleanFilter(method=_keep)

    class Meta:
        model = Memory
        fields: list[str] = []

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        queryset = super().filter_queryset(queryset)
        if not self.form.cleaned_data.get("include_expired"):
            queryset = queryset.filter(current_filter(timezone.now()))
        return queryset


class MemoryByTagFilter(MemoryFilter):
    """GET /memory/by-tag: the list's filters, with `tag` required."""

    tag = TagFilter(required=True)


class AuditFilter(StrictFilterSet):
    """GET /memory/audit."""

    action = choice_filter(AuditAction.values)

    class Meta:
        model = MemoryAudit
        fields: list[str] = []
