"""The DRF exception handler: every API error leaves in the shape of `errors.error_body`."""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions
from rest_framework.views import exception_handler

from memoryproject.errors import PayloadTooLarge, error_body, validation_error_fields

logger = logging.getLogger(__name__)

# DRF's codes, renamed where the contract reads better.
_CODE_NAMES = {"invalid": "validation_error", "token_not_valid": "authentication_failed"}


def flatten_field_errors(detail, path: str = "") -> dict[str, list[str]]:
    """{"memories": {"3": {"content": ["…"]}}} → {"memories.3.content": ["…"]}."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for name, sub in detail.items():
            flat.update(flatten_field_errors(sub, f"{path}.{name}" if path else str(name)))
        return flat
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return {path or "body": [str(item) for item in detail]}
        flat = {}
        for index, sub in enumerate(detail):
            if sub:  # DRF puts {} for list items that were valid
                flat.update(flatten_field_errors(sub, f"{path}.{index}" if path else str(index)))
        return flat
    return {path or "body": [str(detail)]}


def _validation_message(fields: dict[str, list[str]]) -> str:
    if list(fields) == ["body"] or list(fields) == ["non_field_errors"]:
        return next(iter(fields.values()))[0]
    first_name, first_errors = next(iter(fields.items()))
    more = len(fields) - 1
    suffix = f" (and {more} more field{'s' if more > 1 else ''})" if more else ""
    return f"Invalid input: {first_name}: {first_errors[0]}{suffix}"


def api_exception_handler(exc, context):
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(validation_error_fields(exc))

    response = exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: Django's handler500 answers in JSON and logs it

    if isinstance(exc, exceptions.ValidationError):
        fields = flatten_field_errors(exc.detail)
        response.data = error_body("validation_error", _validation_message(fields), fields)
        return response

    detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
    if isinstance(detail, dict):  # simplejwt: {"detail": …, "code": …, "messages": […]}
        message = str(detail.get("detail", "")) or "The request was refused."
        code = str(detail.get("code", "")) or getattr(exc, "default_code", "error")
    else:
        message = str(detail)
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
    response.data = error_body(_CODE_NAMES.get(code, code), message, getattr(exc, "fields", None))
    return response
