"""OpenAPI (drf-spectacular) pieces shared by every app.

- The two bearer schemes: Mind Keys (agents) and JWTs (humans). Imported from
  `memories.apps.MemoriesConfig.ready()` so the extensions are registered before a schema is built.
- `error_responses(...)`: the one error body, documented per status code.
- `drop_trailing_slash_twins`: every path is routed with and without a trailing slash
  (`memoryproject.routing.route`); the schema lists the slash-less form only.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from memoryproject.permissions import IsHuman

MIND_KEY_SCHEME = "mindKey"
HUMAN_JWT_SCHEME = "humanJwt"


def _is_human_only(view) -> bool:
    return any(isinstance(permission, IsHuman) for permission in view.get_permissions())


class MindKeyScheme(OpenApiAuthenticationExtension):
    target_class = "memoryproject.authentication.MindKeyAuthentication"
    name = MIND_KEY_SCHEME

    def get_security_requirement(self, auto_schema):
        # Human-only endpoints authenticate a Mind Key only to refuse it with 403; do not
        # advertise the scheme there.
        if _is_human_only(auto_schema.view):
            return None
        return {self.name: []}

    def get_security_definition(self, auto_schema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "MindKey",
            "description": (
                "An agent's credential for one mind: `Authorization: Bearer mk_<8 hex>_<43 url-safe characters>`. "
                "The part up to the second underscore is the public prefix shown in key lists. A key is shown "
                "once when issued (POST /minds, POST /minds/{id}/keys) and can be revoked; a revoked key "
                "answers 401."
            ),
        }


class HumanJWTScheme(OpenApiAuthenticationExtension):
    target_class = "memoryproject.authentication.HumanJWTAuthentication"
    name = HUMAN_JWT_SCHEME

    def get_security_definition(self, auto_schema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": (
                "A human's access token from POST /login or POST /register: `Authorization: Bearer <access>`. "
                "It expires; get a new one from POST /token/refresh with the refresh token."
            ),
        }


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
