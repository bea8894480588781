"""OpenAPI (drf-spectacular) pieces shared by every app.

- `error_responses(...)`: the one error body, documented per status code.
- `ContractAutoSchema` lives in `memoryproject/contract_schema.py`: it describes every app's
  endpoints, so it sits above the apps; this module imports none.
- `drop_trailing_slash_twins`: every path is routed with and without a trailing slash
  (`memoryproject.core.routing.route`); the schema lists the slash-less form only.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Machine-readable, e.g. `validation_error`, `not_found`.")
    message = serializers.CharField(help_text="What went wrong and what to do next.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="For validation errors: every bad field (dotted path) with its problems.",
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


ERROR_DESCRIPTIONS = {
    400: (
        "Invalid input; `fields` names every bad field, parameter or header: a value outside its rules, a "
        "parameter or body field the endpoint does not take, a malformed `X-Turn-Id` or `Content-Length`, "
        "a body that is not one JSON object; for a human on a memory endpoint, no mind named."
    ),
    401: "Missing, invalid, expired or revoked credentials; send `Authorization: Bearer <Mind Key or JWT>`.",
    403: (
        "Known caller, not allowed: a Mind Key on a human endpoint, too little access to the mind, or a "
        "browser session's write without its CSRF token."
    ),
    404: "Unknown, or not visible to the caller (a mind or memory of someone else is never a 403).",
    409: "Conflicts with the current state (a category and key another memory holds, a reused Idempotency-Key).",
    413: "The request body is over 1 MiB.",
    415: "The body is not `application/json`; send `Content-Type: application/json`.",
    429: "Throttled; retry after the seconds in the Retry-After header.",
    503: "The database is unavailable; retry after the seconds in the Retry-After header.",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """`extend_schema(responses={200: X, **error_responses(400, 404)})`."""
    return {status: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[status]) for status in statuses}


# Statuses whose responses carry `Retry-After` (seconds to wait before trying again).
def drop_trailing_slash_twins(endpoints: list, **kwargs) -> list:
    """Preprocessing hook: keep `/x`, drop its twin `/x/` for the same method."""
    plain = {(path, method) for path, _regex, method, _callback in endpoints if not path.endswith("/")}
    return [
        endpoint
        for endpoint in endpoints
        if not (endpoint[0].endswith("/") and (endpoint[0].rstrip("/"), endpoint[2]) in plain)
    ]
