"""The OpenAPI (drf-spectacular) bearer schemes: Mind Keys (agents) and JWTs (humans).

Imported from `minds.apps.MindsConfig.ready()` so the extensions are registered before a schema
is built.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from minds.permissions import IsHuman

MIND_KEY_SCHEME = "mindKey"
HUMAN_JWT_SCHEME = "humanJwt"


def _is_human_only(view) -> bool:
    return any(isinstance(permission, IsHuman) for permission in view.get_permissions())


class MindKeyScheme(OpenApiAuthenticationExtension):
    target_class = "minds.authentication.MindKeyAuthentication"
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
    target_class = "minds.authentication.HumanJWTAuthentication"
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
