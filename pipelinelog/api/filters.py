"""Query filters of GET /log (django-filter), strict like the memory lists': a bad value or an
unknown parameter is a 400 naming it."""

from __future__ import annotations

import django_filters
from django import forms

from memoryproject.core.api.filters import StrictFilterSet, choice_filter
from memoryproject.core.timeinput import parse_time
from pipelinelog.constants import NODE_MAX_LENGTH, TURN_ID_MAX_LENGTH
from pipelinelog.models import Kind, LogEntry


class TimeField(forms.Field):
    """ISO 8601 or epoch seconds, like every time the API takes."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return parse_time(value)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None


class TimeFilter(django_filters.Filter):
    field_class = TimeField


class LogFilterForm(forms.Form):
    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            self.add_error("until", "`until` is before `since`; swap them or widen the window.")
        return cleaned


class LogEntryFilterSet(StrictFilterSet):
    """GET /log; besides these it takes the mind (humans) and `limit` / `offset`."""

    turn_id = django_filters.CharFilter(max_length=TURN_ID_MAX_LENGTH)
    span_id = django_filters.UUIDFilter(
        error_messages={"invalid": "Use a span id as the log shows it (a UUID such as 0b7e…-…)."}
    )
    node = django_filters.CharFilter(max_length=NODE_MAX_LENGTH)
    kind = choice_filter(Kind.values)
    since = TimeFilter(field_name="created_at", lookup_expr="gte")
    until = TimeFilter(field_name="created_at", lookup_expr="lte")

    class Meta:
        model = LogEntry
        fields = ["turn_id", "span_id", "node", "kind", "since", "until"]
        form = LogFilterForm
