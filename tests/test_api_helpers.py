"""The shared HTTP helpers of memoryproject/api read their input the same way everywhere."""

from __future__ import annotations

import pytest
from django import forms
from hypothesis import given
from hypothesis import strategies as st
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from memoryproject.core.api.fields import QueryBooleanField, StrictFloatField
from memoryproject.core.api.filters import QueryBooleanFormField
from memoryproject.core.api.strict import RejectUnknownFieldsMixin, unknown_fields_reject

BOOLEAN_WORDS = ["true", "false", "1", "0", "TRUE", " False ", "yes", "no", "on", "2", "tru"]


def _drf_boolean(text: str) -> bool | None:
    try:
        return QueryBooleanField().to_internal_value(text)
    except ValidationError:
        return None


def _filter_boolean(text: str) -> bool | None:
    try:
        return QueryBooleanFormField().to_python(text)
    except forms.ValidationError:
        return None


@given(st.one_of(st.sampled_from(BOOLEAN_WORDS), st.text(max_size=8)).filter(lambda text: text.strip()))
def test_a_query_boolean_means_the_same_in_a_serializer_and_in_a_filtered_list(text):
    assert _drf_boolean(text) == _filter_boolean(text)


@pytest.mark.parametrize(("text", "value"), [("true", True), ("1", True), (" FALSE ", False), ("0", False)])
def test_a_query_boolean_takes_true_false_one_and_zero_in_any_case(text, value):
    assert _drf_boolean(text) is value


@pytest.mark.parametrize("text", ["yes", "no", "on", "off", "2"])
def test_a_query_boolean_refuses_other_words(text):
    with pytest.raises(ValidationError) as refused:
        QueryBooleanField().to_internal_value(text)
    assert refused.value.detail == ["Use true or false (1 or 0)."]


def test_unknown_fields_are_named_each_with_the_message():
    with pytest.raises(ValidationError) as refused:
        unknown_fields_reject({"name": 1, "nmae": 2, "colour": 3}, ["name"], message="Unknown field.")
    assert refused.value.detail == {"colour": ["Unknown field."], "nmae": ["Unknown field."]}


class _Body(RejectUnknownFieldsMixin, serializers.Serializer):
    name = serializers.CharField()
    size = serializers.IntegerField(required=False)


def test_a_body_serializer_refuses_an_unknown_field_listing_the_fields_it_takes():
    body = _Body(data={"name": "x", "sise": 3})
    assert not body.is_valid()
    assert body.errors == {"sise": ["Unknown field. Use: name, size."]}
    assert _Body(data={"name": "x", "size": 3}).is_valid()


@pytest.mark.parametrize("data", [10**400, float("inf"), "0.5", True, None])
def test_a_strict_float_refuses_what_is_no_finite_json_number_without_crashing(data):
    with pytest.raises(ValidationError) as refused:
        StrictFloatField(allow_null=False).run_validation(data)
    assert refused.value.detail == ["This field may not be null." if data is None else "Must be a number."]
