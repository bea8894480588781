"""Strict query-string filters (django-filter) for every app's lists: a bad value is a 400 that
names the parameter and says what is allowed, and an unknown parameter is refused too — a typo
like `?tags=docker` must not silently return every row."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError

from memoryproject.core.api.fields import QUERY_BOOLEAN_HELP, choices_help, query_boolean_of
from memoryproject.core.api.params import MIND_PARAM, PAGE_PARAMS
from memoryproject.core.api.strict import unknown_params_reject

# Parameters every list takes besides its filters: the mind (humans) and paging.
COMMON_PARAMS = (MIND_PARAM, *PAGE_PARAMS)


class QueryBooleanFormField(forms.Field):
    """The query boolean of memoryproject.core.api.fields, as a form field for django-filter: Django's
    NullBooleanField would turn `?verified=yes` into "no filter"."""

    default_error_messages = {"invalid": QUERY_BOOLEAN_HELP}

    def to_python(self, value):
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        parsed = query_boolean_of(str(value))
        if parsed is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return parsed


class QueryBooleanFilter(django_filters.Filter):
    field_class = QueryBooleanFormField


def choice_filter(choices: list[str], **kwargs) -> django_filters.ChoiceFilter:
    """A filter taking one of `choices`; any other value is a 400 listing them."""
    return django_filters.ChoiceFilter(
        choices=[(value, value) for value in choices],
        error_messages={"invalid_choice": f'"%(value)s" is not allowed. {choices_help(choices)}'},
        **kwargs,
    )


class StrictFilterSet(django_filters.FilterSet):
    """A FilterSet that refuses unknown parameters and raises the API's 400 on bad values."""

    # Parameters the view handles itself (mind, paging); allowed but not filters.
    passthrough_params: tuple[str, ...] = COMMON_PARAMS

    def cleaned(self) -> dict:
        """The parameters as typed values (absent ones blank or None), for a selector to apply."""
        unknown_params_reject(self.data, [*self.filters, *self.passthrough_params])
        if not self.is_valid():
            raise ValidationError({name: list(messages) for name, messages in self.errors.items()})
        return self.form.cleaned_data

    def filtered(self) -> QuerySet:
        self.cleaned()
        return self.qs
