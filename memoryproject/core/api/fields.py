"""Strict DRF fields: a client that sends the wrong JSON type gets told, not coerced."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memoryproject.core.timeinput import MAX_EPOCH_SECONDS, parse_duration, parse_time


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


class StrictEmailField(serializers.EmailField):
    """Only JSON strings, then an email address (DRF's EmailField would turn 42 into "42" first)."""

    default_error_messages = {"not_a_string": "Must be a string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    """Only JSON numbers, finite (DRF's FloatField accepts "0.5" and true)."""

    default_error_messages = {"not_a_number": "Must be a number."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("not_a_number")
        try:
            finite = math.isfinite(data)
        except OverflowError:  # an integer of hundreds of digits is no float either
            finite = False
        if not finite:
            self.fail("not_a_number")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """Only JSON true/false in bodies; query strings use QueryBooleanField instead."""

    default_error_messages = {"not_a_boolean": "Must be true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("not_a_boolean")
        return data


class _ParsedField(serializers.Field):
    """A value one parser of memoryproject.core.timeinput turns into Python; its ValueError, which
    says what is wrong and what is allowed, becomes the field's message."""

    default_error_messages = {"invalid": "{reason}"}

    @staticmethod
    def parse(data):  # the subclass's parser
        raise NotImplementedError

    def to_internal_value(self, data):
        try:
            return self.parse(data)
        except ValueError as error:
            self.fail("invalid", reason=str(error))


# In the schema: an ISO 8601 string or epoch seconds — both are accepted, so the document says both.
# Epoch seconds as a number: a whole number from 0, or a fraction from 0.0001 (smaller ones print
# as 1e-05, which the parser does not read), up to the year 9999.
_EPOCH_SECONDS_SCHEMAS = [
    {"type": "integer", "minimum": 0, "maximum": MAX_EPOCH_SECONDS},
    {"type": "number", "minimum": 0.0001, "maximum": MAX_EPOCH_SECONDS},
]


TIME_SCHEMA = {
    "anyOf": [{"type": "string", "format": "date-time"}, *_EPOCH_SECONDS_SCHEMAS],
    "description": "ISO 8601 or epoch seconds",
}


@extend_schema_field(TIME_SCHEMA)
class FlexibleTimeField(_ParsedField):
    """ISO 8601 or epoch seconds in; ISO 8601 UTC out."""

    parse = staticmethod(parse_time)

    def to_representation(self, value):
        return serializers.DateTimeField().to_representation(value)


# --- Durations ------------------------------------------------------------------------------


# Durations the document promises: 1–99999 of a unit (s when none), always within the longest
# duration. The parser takes more (fractions, blanks, bigger counts of seconds): a client keeping to
# the pattern is never refused.
DURATION_PATTERN = r"^[1-9][0-9]{0,4}[smhdw]?$"


# Seconds as a number: from 0.0001 (smaller ones print as 1e-05, which the parser does not read). A
# query string carries them as text, which the parser reads the same.
DURATION_SCHEMA = {
    "anyOf": [
        {"type": "number", "minimum": 0.0001, "maximum": MAX_EPOCH_SECONDS},
        {"type": "string", "pattern": DURATION_PATTERN},
    ],
    "description": "Seconds, or a number with a unit s, m, h, d or w (7d).",
    "example": "7d",
}


@extend_schema_field(DURATION_SCHEMA)
class DurationParamField(_ParsedField):
    """Seconds or `<n>s|m|h|d|w` → timedelta; the default is written the same way."""

    parse = staticmethod(parse_duration)

    def get_default(self):
        # DRF hands defaults over unparsed; the default is documented as "7d", so parse it here.
        return parse_duration(super().get_default())


class BodyDurationField(DurationParamField):
    """A duration in a JSON body: the same rules and schema as in a query string (kept apart for the
    fields' declarations, which say where they are read)."""


# --- Query-string and body numbers ----------------------------------------------------------

# Digits a query-string number may have: longer ones are nonsense and could overflow SQL.
_WHOLE_NUMBER = re.compile(r"^[0-9]{1,18}$")


class QueryIntegerField(serializers.IntegerField):
    """A whole number in a query string: digits only ("10", not "10.0" or "1e1")."""

    def get_value(self, dictionary):
        # `?limit=` given but empty is a mistake to name, not a parameter left out.
        if self.field_name in dictionary and dictionary.get(self.field_name) == "":
            return ""
        return super().get_value(dictionary)

    def to_internal_value(self, data):
        if not isinstance(data, str) or not _WHOLE_NUMBER.match(data):
            raise serializers.ValidationError(self._range_help())
        value = int(data)
        if (self.min_value is not None and value < self.min_value) or (
            self.max_value is not None and value > self.max_value
        ):
            raise serializers.ValidationError(self._range_help())
        return value

    def _range_help(self) -> str:
        if self.min_value is not None and self.max_value is not None:
            return f"Use a whole number from {self.min_value} to {self.max_value}."
        return "Use a whole number, 0 or more."


class StrictIntegerField(serializers.IntegerField):
    """Only JSON integers (DRF's IntegerField accepts "1", 1.0 and true); the rest of its rules stay."""

    default_error_messages = {"not_an_integer": "Must be a whole number."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("not_an_integer")
        return super().to_internal_value(data)


class BodyIntegerField(serializers.IntegerField):
    """A whole number in a JSON body: a JSON integer, not "10", 10.5 or true."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            raise serializers.ValidationError(f"Must be a whole number from {self.min_value} to {self.max_value}.")
        if not self.min_value <= data <= self.max_value:
            raise serializers.ValidationError(f"Use a whole number from {self.min_value} to {self.max_value}.")
        return data


# The words a query-string boolean may be (any case). The DRF field below and the django-filter
# field of memoryproject.core.api.filters both read them through query_boolean_of, so every endpoint
# reads `?include_expired=` alike.
QUERY_TRUE_WORDS = frozenset({"true", "1"})
QUERY_FALSE_WORDS = frozenset({"false", "0"})
QUERY_BOOLEAN_HELP = "Use true or false (1 or 0)."


def query_boolean_of(text: str) -> bool | None:
    """True or False for a query-string boolean word (any case, spaces trimmed); None for other text."""
    word = text.strip().lower()
    if word in QUERY_TRUE_WORDS:
        return True
    if word in QUERY_FALSE_WORDS:
        return False
    return None


class QueryBooleanField(serializers.BooleanField):
    """true/false or 1/0 (any case) in a query string; DRF's own would also take yes/on/…"""

    default_error_messages = {"invalid": QUERY_BOOLEAN_HELP}

    def to_internal_value(self, data):
        value = query_boolean_of(data) if isinstance(data, str) else None
        if value is None:
            self.fail("invalid")
        return value


class QueryFloatField(serializers.FloatField):
    default_error_messages = {"invalid": "Must be a number."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value != value or value in (float("inf"), float("-inf")):  # NaN / infinity
            self.fail("invalid")
        return value
