"""Strict DRF fields: a client that sends the wrong JSON type gets told, not coerced."""

from __future__ import annotations

import math
from collections.abc import Iterable

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memoryproject.timeinput import parse_time


def choices_help(choices: Iterable[str]) -> str:
    return "Use one of: " + ", ".join(choices) + "."


class StrictChoiceField(serializers.ChoiceField):
    """A choice that names the allowed values in its error and refuses non-strings."""

    def __init__(self, choices, **kwargs):
        super().__init__(choices, **kwargs)
        allowed = choices_help(str(value) for value in self.choices)
        self.error_messages["invalid_choice"] = '"{input}" is not allowed. ' + allowed

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data.strip())


class StrictCharField(serializers.CharField):
    """Only JSON strings (DRF's CharField would turn 42 into "42")."""

    default_error_messages = {"not_a_string": "Must be a string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    """Only JSON numbers, finite (DRF's FloatField accepts "0.5" and true)."""

    default_error_messages = {"not_a_number": "Must be a number."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)) or not math.isfinite(data):
            self.fail("not_a_number")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """Only JSON true/false in bodies; query strings use `query_bool` instead."""

    default_error_messages = {"not_a_boolean": "Must be true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("not_a_boolean")
        return data


# In the schema: an ISO 8601 string (epoch seconds are accepted too, see the description).
@extend_schema_field({"type": "string", "format": "date-time", "description": "ISO 8601 or epoch seconds"})
class FlexibleTimeField(serializers.Field):
    """ISO 8601 or epoch seconds in; ISO 8601 UTC out."""

    default_error_messages = {"invalid_time": "{reason}"}

    def to_internal_value(self, data):
        try:
            return parse_time(data)
        except ValueError as error:
            self.fail("invalid_time", reason=str(error))

    def to_representation(self, value):
        return serializers.DateTimeField().to_representation(value)
