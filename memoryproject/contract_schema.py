"""The OpenAPI contract of the whole API: `ContractAutoSchema` (REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]).

It adds to every operation the error responses it can really give (by its method, its
credentials, its path and its body), the headers every request may send (`X-Turn-Id`; `X-Mind` /
`?mind=` where a human names the mind) and the headers every response carries (`X-Turn-Id`;
`Retry-After` on 429 and 503). A view declares only what is special about it; what it declares
wins. It describes every app's endpoints, so like the URLs it sits above the apps (the shared
helpers of `memoryproject/core/schema.py` import none).
"""

from __future__ import annotations

import copy

import uritemplate
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from memoryproject.core.api.headers import NO_CONTROL_CHARACTERS_PATTERN
from memoryproject.core.api.params import MIND_HEADER, MIND_PARAM
from memoryproject.core.schema import ERROR_DESCRIPTIONS, ErrorSerializer
from minds.openapi import MIND_KEY_SCHEME
from minds.throttling import MindKeyRateThrottle
from pipelinelog.constants import TURN_ID_HEADER, TURN_ID_MAX_LENGTH

RETRY_AFTER_STATUSES = frozenset({429, 503})
# Methods whose request body the API reads (as JSON): only these can answer 415.
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_UNSAFE_METHODS = _BODY_METHODS | {"DELETE"}

MIND_QUERY_PARAMETER = MIND_PARAM

_TURN_ID_PARAMETER = OpenApiParameter(
    TURN_ID_HEADER,
    {"type": "string", "maxLength": TURN_ID_MAX_LENGTH, "pattern": NO_CONTROL_CHARACTERS_PATTERN},
    OpenApiParameter.HEADER,
    description=(
        f"Correlates every pipeline-log row of the call: any string of at most {TURN_ID_MAX_LENGTH} characters "
        "without control characters (longer or with control characters → 400). Echoed on the response; "
        "generated when absent or blank."
    ),
)
_MIND_PARAMETERS = [
    OpenApiParameter(
        MIND_HEADER,
        {"type": "string"},
        OpenApiParameter.HEADER,
        description="The mind a human acts on (`m_…`), or the query parameter `mind`. A Mind Key acts on its own.",
    ),
    OpenApiParameter(
        MIND_QUERY_PARAMETER,
        {"type": "string"},
        OpenApiParameter.QUERY,
        description="The mind a human acts on (`m_…`), or the header X-Mind. A Mind Key acts on its own.",
    ),
]
_TURN_ID_RESPONSE_HEADER = {
    "description": "The request's turn id: the one sent, or a generated uuid4.",
    "schema": {"type": "string"},
}
_RETRY_AFTER_RESPONSE_HEADER = {
    "description": "Seconds to wait before trying again.",
    "required": True,
    "schema": {"type": "integer", "minimum": 0},
}


class ContractAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema plus what every endpoint of the contract has in common.

    The rules, per operation (docs/openapi.md):
    - 400 everywhere (X-Turn-Id and Content-Length are checked on every request), 413 everywhere
      (a declared body over 1 MiB is refused before any view runs), 503 everywhere (database down);
    - 401 where credentials are needed; 403 on human endpoints and on authenticated writes;
    - 404 where the path names an object or the operation acts on a mind a human names;
    - 409 on the memory writes (POST/PUT/PATCH of an operation a Mind Key may call);
    - 415 where the operation reads a request body;
    - 429 where a Mind Key may call (per-key throttle) or the view throttles on its own (/register);
      /login declares its 429 itself (the login policy, minds/login_policy.py, is no DRF throttle).
    """

    def get_override_parameters(self) -> list:
        common = [_TURN_ID_PARAMETER]
        if self._accepts_mind_key():
            common += _MIND_PARAMETERS
        # The view's own parameters come last, so a view's wording of the same parameter wins.
        return [*common, *super().get_override_parameters()]

    def _get_response_bodies(self, direction="response") -> dict:
        responses = super()._get_response_bodies(direction)
        for status in sorted(self.error_statuses()):
            code = str(status)
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[status]), code, direction=direction
                )
        for code, response in responses.items():
            headers = response.setdefault("headers", {})
            # Copies: a YAML rendering would otherwise turn shared dicts into anchors and aliases.
            headers.setdefault(TURN_ID_HEADER, copy.deepcopy(_TURN_ID_RESPONSE_HEADER))
            if code.isdigit() and int(code) in RETRY_AFTER_STATUSES:
                headers.setdefault("Retry-After", copy.deepcopy(_RETRY_AFTER_RESPONSE_HEADER))
        return responses

    def error_statuses(self) -> set[int]:
        """The error statuses this operation can answer (the rules in the class docstring)."""
        authenticated = bool(self._security())
        accepts_mind_key = self._accepts_mind_key()
        statuses = {400, 413, 503}
        if authenticated:
            statuses.add(401)
            if not accepts_mind_key or self.method in _UNSAFE_METHODS:
                statuses.add(403)
        if uritemplate.variables(self.path) or accepts_mind_key:
            statuses.add(404)
        if accepts_mind_key and self.method in _BODY_METHODS:
            statuses.add(409)
        if self.method in _BODY_METHODS and self.get_request_serializer() is not None:
            statuses.add(415)
        if accepts_mind_key or self._throttles_on_its_own():
            statuses.add(429)
        return statuses

    def _security(self) -> list[dict]:
        return [requirement for requirement in self.get_auth() or [] if requirement]

    def _accepts_mind_key(self) -> bool:
        return any(MIND_KEY_SCHEME in requirement for requirement in self._security())

    def _throttles_on_its_own(self) -> bool:
        return any(not isinstance(throttle, MindKeyRateThrottle) for throttle in self.view.get_throttles())
