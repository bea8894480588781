"""OpenAPI (drf-spectacular) pieces shared by every app.

- `error_responses(...)`: the one error body, documented per status code.
- `drop_trailing_slash_twins`: every path is routed with and without a trailing slash
  (`memoryproject.routing.route`); the schema lists the slash-less form only.
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


_ERROR_DESCRIPTIONS = {
    400: "Invalid input; `fields` names every bad field.",
    401: "Missing, invalid or revoked credentials.",
    403: "Known caller, not allowed (e.g. a Mind Key on a human endpoint, or too little access).",
    404: "Unknown, or not visible to the caller.",
    409: "Conflicts with the current state.",
    413: "Body over 1 MiB.",
    415: "Body is not JSON.",
    429: "Throttled; see the Retry-After header.",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """`extend_schema(responses={200: X, **error_responses(400, 404)})`."""
    return {status: OpenApiResponse(ErrorSerializer, description=_ERROR_DESCRIPTIONS[status]) for status in statuses}


def drop_trailing_slash_twins(endpoints: list, **kwargs) -> list:
    """Preprocessing hook: keep `/x`, drop its twin `/x/` for the same method."""
    plain = {(path, method) for path, _regex, method, _callback in endpoints if not path.endswith("/")}
    return [
        endpoint
        for endpoint in endpoints
        if not (endpoint[0].endswith("/") and (endpoint[0].rstrip("/"), endpoint[2]) in plain)
    ]
