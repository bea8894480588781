"""The one error shape of the API: {"error": {"code", "message", "fields"}}."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from rest_framework import status
from rest_framework.exceptions import APIException


def validation_error_fields(error: DjangoValidationError) -> dict[str, list[str]]:
    """A Django ValidationError as field → messages; an error of no field goes under `body`."""
    return error.message_dict if hasattr(error, "error_dict") else {"body": error.messages}


def error_body(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def error_response(
    http_status: int, code: str, message: str, fields: dict[str, list[str]] | None = None
) -> JsonResponse:
    """An error for plain Django views and middleware (DRF views raise exceptions instead)."""
    return JsonResponse(error_body(code, message, fields), status=http_status)


class Conflict(APIException):
    """409. `fields` names the fields whose values collide, like a validation error does."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."

    def __init__(self, detail: str | None = None, *, fields: dict[str, list[str]] | None = None):
        super().__init__(detail)
        self.fields = fields or {}


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"
    default_detail = (
        "The request body is larger than 1 MiB; send less per request (for many memories use /memory/sync in batches)."
    )
