"""The one error shape of the API: {"error": {"code", "message", "fields"}}."""

from __future__ import annotations

import re

from django.conf import settings
from django.http import HttpResponse
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.renderers import JSONRenderer

from memoryproject.embedded.outage import DATABASE_RETRY_AFTER_SECONDS

# A lone surrogate: valid in JSON text (`"\\ud800"`), not in UTF-8, so not in a response.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD: messages quote what the client sent, and a
    quoted lone surrogate made the error itself fail to render (a 500)."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def error_body(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict:
    fields = {
        _encodable(str(name)): [_encodable(str(item)) for item in problems] if isinstance(problems, list) else problems
        for name, problems in (fields or {}).items()
    }
    return {"error": {"code": code, "message": _encodable(message), "fields": fields}}


def error_response(
    http_status: int, code: str, message: str, fields: dict[str, list[str]] | None = None
) -> HttpResponse:
    """An error for plain Django views and middleware (DRF views raise exceptions instead).

    Rendered by DRF's JSON renderer, so its bytes look exactly like a DRF view's error (compact
    separators, UTF-8 as is) and one client-side parser or log grep fits every error.
    """
    content = JSONRenderer().render(error_body(code, message, fields))
    return HttpResponse(content, status=http_status, content_type="application/json")


DATABASE_UNAVAILABLE_MESSAGE = (
    f"The database is unavailable right now; retry in {DATABASE_RETRY_AFTER_SECONDS} s (see Retry-After). "
    "A write retried with the same Idempotency-Key is applied at most once."
)


def mark_database_unavailable(response: HttpResponse) -> HttpResponse:
    """Retry-After, and no per-request log line: the outage is logged once (`memoryproject.embedded.outage`)."""
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    response._has_been_logged = True  # Django's log_response skips it (no "Service Unavailable" per request)
    return response


def database_unavailable_response() -> HttpResponse:
    return mark_database_unavailable(error_response(503, "database_unavailable", DATABASE_UNAVAILABLE_MESSAGE))


def url_too_long_response(url_bytes: int) -> HttpResponse:
    limit = settings.MAX_URL_BYTES
    return error_response(
        414,
        "url_too_long",
        f"The URL (path and query string) is {url_bytes} bytes; the limit is {limit} bytes. Shorten the query string.",
    )


class HttpConflict(APIException):
    """409, the answer to a domain Conflict. `fields` names the colliding fields, like a validation error does."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."

    def __init__(self, detail: str | None = None, *, fields: dict[str, list[str]] | None = None):
        super().__init__(detail)
        self.fields = fields or {}


class DatabaseUnavailable(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "database_unavailable"
    default_detail = DATABASE_UNAVAILABLE_MESSAGE


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"
    default_detail = (
        "The request body is larger than 1 MiB; send less per request (for many memories use /memory/sync in batches)."
    )
