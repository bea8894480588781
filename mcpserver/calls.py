"""One tool call, served the way the API serves one request.

The Mind Key is checked on every call by the API's own authentication class (a key revoked while
the server runs is refused from its next call on) and counted by the API's own Mind Key rate
limit (THROTTLE_MIND_KEY); the call is a turn with one pipeline-log span
(node `mcp.<tool>`, the caller as source, the key's mind bound to it), like a request under
`pipelinelog.middleware`; every failure becomes the API's error body, turned out by the API's
own exception handler, so an agent reads the same message naming the same field as over HTTP.
Nothing here knows MCP: `mcpserver.server` wraps the result into the protocol's types.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import close_old_connections, connection
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.renderers import JSONRenderer

from mcpserver.tools import TOOLS
from memoryproject.core import domain
from memoryproject.core.api.headers import header_value_problem
from memoryproject.core.errors import error_body
from memoryproject.core.exceptions import api_exception_handler
from minds.access import caller_label
from minds.authentication import MindKeyAuthentication
from minds.principals import AgentPrincipal
from minds.throttling import MindKeyRateThrottle
from pipelinelog.constants import SOURCE_ANONYMOUS, TURN_ID_MAX_LENGTH
from pipelinelog.middleware import STATUS_CLIENT_ERROR
from pipelinelog.redaction import summarize
from pipelinelog.spans import new_turn_id, span, turn_scope

logger = logging.getLogger(__name__)

# The environment variable that names the mind: its Mind Key (or `manage.py mcp --mind-key`).
MIND_KEY_ENV = "SYNAPSE_MIND_KEY"
# The span's node: `mcp.<tool>`; a call of a tool that does not exist logs under the prefix alone.
NODE_PREFIX = "mcp"
# The `_meta` key by which a call names its turn, as `X-Turn-Id` does for a request: the recall,
# resonance and used of one agent turn can then share one turn of the log. Absent: a new turn.
TURN_ID_META_KEY = "synapse/turn_id"

NOT_A_MIND_KEY = (
    f"{MIND_KEY_ENV} does not hold a Mind Key. Set it (or --mind-key) to a key of the mind, `mk_…`: the one "
    "shown when the mind was created, or a new one from POST /minds/{id}/keys."
)
SERVER_ERROR = "Something went wrong on the server; it has been logged on the server's standard error."


@dataclass(frozen=True)
class CallResult:
    is_error: bool
    text: str  # for the model: the recall text, or the JSON body
    body: dict[str, Any] | None  # the JSON body (the error body for an error)


def agent_authenticate(mind_key: str) -> AgentPrincipal:
    """The agent of `mind_key`, checked as an API call's `Authorization: Bearer` would be.

    Raises the API's authentication error for a key that is wrong or revoked, and
    domain.AuthenticationFailed for a value that is no Mind Key at all."""
    mind_key = mind_key.strip()
    # An HTTP header is latin-1 and one token: anything else cannot be a key (and must not crash).
    if not mind_key or not mind_key.isascii() or any(character.isspace() for character in mind_key):
        raise domain.AuthenticationFailed(NOT_A_MIND_KEY)
    request = HttpRequest()
    request.META["HTTP_AUTHORIZATION"] = f"Bearer {mind_key}"
    authenticated = MindKeyAuthentication().authenticate(request)
    if authenticated is None:  # a bearer token that is not a Mind Key (a JWT, say)
        raise domain.AuthenticationFailed(NOT_A_MIND_KEY)
    return authenticated[0]


@dataclass(frozen=True)
class _ThrottledCall:
    """What the API's throttle reads of a request: who calls."""

    user: AgentPrincipal


def _throttle(agent: AgentPrincipal) -> None:
    """The API's own Mind Key rate: a call counts against the key as a request does (with
    MIND_KEY_THROTTLE_CACHE=shared, against one budget with the key's REST calls); over it, the
    API's 429 error with the seconds to wait."""
    throttle = MindKeyRateThrottle()
    if not throttle.allow_request(_ThrottledCall(agent), None):
        raise Throttled(wait=throttle.wait())


def error_of(error: Exception) -> tuple[dict[str, Any], bool]:
    """(the API's error body, whether it is the server's fault) for an exception of a call."""
    response = api_exception_handler(error, {})
    if response is None:  # not an error the API answers: a bug, logged with its traceback
        logger.error("MCP tool call failed", exc_info=error)
        return error_body("server_error", SERVER_ERROR), True
    return response.data, response.status_code >= 500


def call_turn_id(raw: object) -> tuple[str, str | None]:
    """(turn id, None) for the client's TURN_ID_META_KEY, or ("", what is wrong with it). By the
    rule of X-Turn-Id (`pipelinelog.middleware`): absent or blank is a new turn."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return new_turn_id(), None
    if not isinstance(raw, str):
        return "", f"{TURN_ID_META_KEY} must be a string."
    value = raw.strip()
    problem = header_value_problem(TURN_ID_META_KEY, value, max_chars=TURN_ID_MAX_LENGTH)
    return ("", problem) if problem else (value, None)


def tool_call(*, mind_key: str, name: str, arguments: Mapping[str, Any] | None, turn_id: object = None) -> CallResult:
    """Run the tool `name` for the mind of `mind_key` in the turn `turn_id` (the client's
    TURN_ID_META_KEY, if it gave one); never raises."""
    turn_id, problem = call_turn_id(turn_id)
    if problem:  # refused before anything is logged, as the API refuses a bad X-Turn-Id
        body = error_body("invalid_meta", problem, {f"_meta.{TURN_ID_META_KEY}": [problem]})
        return CallResult(is_error=True, text=JSONRenderer().render(body).decode(), body=body)
    _connections_refresh()
    try:
        return _logged_call(mind_key=mind_key, name=name, arguments=arguments or {}, turn_id=turn_id)
    finally:
        _connections_refresh()


def _connections_refresh() -> None:
    """What Django does around every request: drop a connection that broke or outlived
    DB_CONN_MAX_AGE, so a call after a database restart gets a fresh one. Not inside a
    transaction someone else holds open (a test's), whose connection is theirs to keep."""
    if not connection.in_atomic_block:
        close_old_connections()


def _logged_call(*, mind_key: str, name: str, arguments: Mapping[str, Any], turn_id: str) -> CallResult:
    tool = TOOLS.get(name)
    caller: list[AgentPrincipal] = []  # filled once the key is checked; the span asks for it at its end
    with (
        turn_scope(turn_id),
        span(f"{NODE_PREFIX}.{name}" if tool else NODE_PREFIX, turn_id=turn_id) as call_span,
    ):
        call_span.set_source_resolver(lambda: caller_label(caller[0]) if caller else SOURCE_ANONYMOUS)
        call_span.input({"tool": name, "arguments": summarize(dict(arguments))})
        try:
            if tool is None:
                raise domain.NotFound(f"No tool {name!r}. Tools: {', '.join(TOOLS)}.")
            caller.append(agent_authenticate(mind_key))
            _throttle(caller[0])
            answer = tool.run(caller[0], arguments)
        except Exception as error:
            body, server_fault = error_of(error)
            call_span.output({"is_error": True, "error": body["error"]["code"]})
            if server_fault:
                call_span.fail(error)
            else:
                call_span.set_status(STATUS_CLIENT_ERROR)
            return CallResult(is_error=True, text=JSONRenderer().render(body).decode(), body=body)
        call_span.output({"is_error": False})
        return CallResult(is_error=False, text=answer.text, body=answer.body)
