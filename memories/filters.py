"""Query-string filters of the memory lists (django-filter), strict: a bad value is a 400 that
names the parameter and says what is allowed, and an unknown parameter is refused too — a typo
like `?tags=docker` must not silently return every memory."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import django_filters
from django import forms
from django.db.models import QuerySet
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from memories.limits import MAX_TAG_CHARS
from memories.models import AuditAction, Category, Memory, MemoryAudit, Priority, Source, current_filter
from memoryproject.fields import QUERY_BOOLEAN_HELP, QUERY_FALSE_WORDS, QUERY_TRUE_WORDS, choices_help

# Parameters every memory list takes besides its filters: the mind (humans) and paging.
COMMON_PARAMS = ("mind", "limit", "offset")


def unknown_params_reject(params: Mapping[str, object], allowed: Iterable[str]) -> None:
    """400 naming every query parameter that is not in `allowed`."""
    allowed = list(allowed)
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        message = f"Unknown parameter. This endpoint takes: {', '.join(allowed)}."
        raise ValidationError({name: [message] for name in unknown})


class QueryBooleanField(forms.Field):
    """The words of memoryproject.fields.QueryBooleanField, for django-filter: Django's
    NullBooleanField would turn `?verified=yes` into "no filter"."""

    default_error_messages = {"invalid": QUERY_BOOLEAN_HELP}

    def to_python(self, value):
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        word = str(value).strip().lower()
        if word in QUERY_TRUE_WORDS:
            return True
        if word in QUERY_FALSE_WORDS:
            return False
        raise forms.ValidationError(self.error_messages["invalid"], code="invalid")


class QueryBooleanFilter(django_filters.Filter):
    field_class = QueryBooleanField


def choice_filter(choices: list[str], **kwargs) -> django_filters.ChoiceFilter:
    """A filter taking one of `choices`; any other value is a 400 listing them."""
    return django_filters.ChoiceFilter(
        choices=[(value, value) for value in choices],
        error_messages={"invalid_choice": f'"%(value)s" is not allowed. {choices_help(choices)}'},
        **kwargs,
    )


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


class StrictFilterSet(django_filters.FilterSet):
    """A FilterSet that refuses unknown parameters and raises the API's 400 on bad values."""

    # Parameters the view handles itself (mind, paging); allowed but not filters.
    passthrough_params: tuple[str, ...] = COMMON_PARAMS

    def filtered(self) -> QuerySet:
        unknown_params_reject(self.data, [*self.filters, *self.passthrough_params])
        if not self.is_valid():
            raise ValidationError({name: list(messages) for name, messages in self.errors.items()})
        return self.qs


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
