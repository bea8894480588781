"""A tool's JSON schema, read off the DRF serializer that validates its arguments.

The serializers of the REST API hold the field rules (lengths, ranges, choices); describing a tool
from the same serializer keeps what an agent is told and what is checked from drifting apart.
Only the field types our serializers use are mapped; any other field is described as "any value",
which the serializer still checks.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from memoryproject.core.api.fields import DurationParamField, FlexibleTimeField


def field_schema(field: serializers.Field) -> dict[str, Any]:
    """The JSON schema of one serializer field."""
    schema: dict[str, Any] = _type_schema(field)
    if field.allow_null:
        schema = {"anyOf": [schema, {"type": "null"}]}
    if field.help_text:
        schema["description"] = str(field.help_text)
    default = field.default
    if default is not serializers.empty and not callable(default):
        schema["default"] = default
    return schema


def _type_schema(field: serializers.Field) -> dict[str, Any]:
    if isinstance(field, serializers.ChoiceField):
        return {"type": "string", "enum": [str(choice) for choice in field.choices]}
    if isinstance(field, serializers.IntegerField):
        return _bounded({"type": "integer"}, field.min_value, field.max_value)
    if isinstance(field, serializers.FloatField):
        return _bounded({"type": "number"}, field.min_value, field.max_value)
    if isinstance(field, serializers.BooleanField):
        return {"type": "boolean"}
    if isinstance(field, serializers.ListField):
        schema: dict[str, Any] = {"type": "array", "items": _type_schema(field.child)}
        if field.max_length is not None:
            schema["maxItems"] = field.max_length
        return schema
    if isinstance(field, serializers.DictField | serializers.JSONField):
        return {"type": "object"}
    if isinstance(field, FlexibleTimeField | DurationParamField):
        return {"type": ["string", "number"]}  # ISO 8601 or epoch seconds; seconds or `7d`
    if isinstance(field, serializers.CharField):
        schema = {"type": "string"}
        if field.max_length is not None:
            schema["maxLength"] = field.max_length
        if not field.allow_blank:
            schema["minLength"] = 1
        pattern = next((v.regex.pattern for v in field.validators if isinstance(v, RegexValidator)), None)
        if pattern:
            schema["pattern"] = pattern
        return schema
    return {}


def _bounded(schema: dict[str, Any], minimum: float | None, maximum: float | None) -> dict[str, Any]:
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def serializer_schema(serializer: serializers.Serializer) -> dict[str, Any]:
    """The object schema of a serializer's writable fields: what a tool's `inputSchema` is."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, field in serializer.fields.items():
        if field.read_only:
            continue
        properties[name] = field_schema(field)
        if field.required:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema
