"""Every API request is a span: `input` (what was asked), `output` (status, duration).

`X-Turn-Id` (any string of at most 100 characters without control characters) names the
turn; it is echoed on the response, and a uuid4 is generated when the header is absent or
blank. A longer or malformed value answers 400 — silently replacing it would break the
client's correlation without telling them.

The node is the URL pattern's name (`memory-list`), else the path. The caller (`source`) is
read after the view ran, because DRF authenticates inside the view (it sets the user on the
wrapped Django request too). Secrets never enter the log: the request summary leaves out every
header, redacts credential fields of the query and the body, and the writer redacts again.
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict
from django.urls import Resolver404, resolve

from memoryproject.authentication import is_agent
from memoryproject.errors import error_response
from pipelinelog.constants import NODE_MAX_LENGTH, SOURCE_ANONYMOUS, TURN_ID_MAX_LENGTH, setting
from pipelinelog.redaction import redact_text, summarize
from pipelinelog.spans import STATUS_ERROR, Span, current_span, new_turn_id, turn_scope

TURN_HEADER = "X-Turn-Id"
# Span status of a request the client got wrong (4xx); 5xx is `error`.
STATUS_CLIENT_ERROR = "client_error"
# Paths that are never logged: static files (usually answered by whitenoise before us), the
# admin's script catalogue, and the log's own API (reading a trace must not add to it).
_SKIPPED_PREFIXES = ("/favicon.ico", "/admin/jsi18n/", "/log/")
_SKIPPED_PATHS = frozenset({"/log"})


def turn_id_parse(raw: str | None) -> tuple[str, str | None]:
    """(turn id, None) for a usable header value or none at all; ("", problem) otherwise."""
    if raw is None or not raw.strip():
        return new_turn_id(), None
    value = raw.strip()
    if len(value) > TURN_ID_MAX_LENGTH:
        return "", f"X-Turn-Id is {len(value)} characters long; send at most {TURN_ID_MAX_LENGTH}, or leave it out."
    if any(ord(char) < 32 or ord(char) == 127 for char in value):
        return "", "X-Turn-Id must not contain control characters."
    return value, None


def _querydict_summary(query: QueryDict) -> dict[str, Any]:
    return summarize({key: (values[0] if len(values) == 1 else values) for key, values in query.lists()})


def body_summary(request: HttpRequest) -> Any:
    """The parsed body (JSON or form), summarized; other bodies only by type and size."""
    if request.method in ("GET", "HEAD", "OPTIONS", "DELETE") and not request.META.get("CONTENT_LENGTH"):
        return None
    try:
        raw = request.body  # cached by Django, so the view can still read it
    except Exception:
        return {"unreadable": True}
    if not raw:
        return None
    content_type = request.content_type or ""
    if content_type.endswith("json"):
        try:
            return summarize(json.loads(raw))
        except ValueError:
            return {"content_type": content_type, "bytes": len(raw), "parsed": False}
    if content_type == "application/x-www-form-urlencoded":
        return _querydict_summary(QueryDict(raw, encoding=request.encoding))
    return {"content_type": content_type, "bytes": len(raw)}


def caller_source(request: HttpRequest) -> str:
    """`agent:<key prefix>`, `user:<id>` or `anonymous`, as the view authenticated it."""
    user = getattr(request, "user", None)
    if is_agent(user):
        return f"agent:{user.key.prefix}"
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return SOURCE_ANONYMOUS


def _node_of(request: HttpRequest) -> str:
    """The URL pattern's name; for the trailing-slash twin (unnamed, see `route()`) the name of the
    slash-less form; else the pattern itself (no ids in it); else the path."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return request.path[:NODE_MAX_LENGTH]
    if match.url_name:
        return match.url_name
    if request.path.endswith("/") and len(request.path) > 1:
        try:
            twin = resolve(request.path[:-1], urlconf=getattr(request, "urlconf", None))
        except Resolver404:
            twin = None
        if twin is not None and twin.url_name and twin.func is match.func:
            return twin.url_name
    readable = match.route and not match.route.startswith("^")  # regex routes (the catch-all) are not
    return (match.route if readable else request.path)[:NODE_MAX_LENGTH]


def _error_code_of(response: HttpResponse) -> str | None:
    data = getattr(response, "data", None)  # DRF responses keep what they rendered
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        code = data["error"].get("code")
        return str(code) if code else None
    return None


class PipelineLogMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response
        static_url = "/" + settings.STATIC_URL.lstrip("/") if settings.STATIC_URL else None
        self.skipped_prefixes = (*_SKIPPED_PREFIXES, static_url) if static_url else _SKIPPED_PREFIXES

    def __call__(self, request: HttpRequest) -> HttpResponse:
        turn_id, problem = turn_id_parse(request.headers.get(TURN_HEADER))
        if problem:
            return error_response(400, "invalid_header", problem, {TURN_HEADER: [problem]})
        request.turn_id = turn_id  # views read it (memories store it on what they write)
        with turn_scope(turn_id):
            if (
                not setting("PIPELINE_LOG_ENABLED")
                or request.path in _SKIPPED_PATHS
                or request.path.startswith(self.skipped_prefixes)
            ):
                response = self.get_response(request)
            else:
                response = self._logged(request, turn_id)
        response[TURN_HEADER] = turn_id
        return response

    def _logged(self, request: HttpRequest, turn_id: str) -> HttpResponse:
        with Span(request.path[:NODE_MAX_LENGTH], turn_id=turn_id) as request_span:
            request_span.set_source_resolver(lambda: caller_source(request))
            request_span.input(
                {
                    "method": request.method,
                    "path": request.path,
                    "query": _querydict_summary(request.GET),
                    "body": body_summary(request),
                }
            )
            started = time.perf_counter()
            response = self.get_response(request)
            duration_ms = round((time.perf_counter() - started) * 1000, 3)

            request_span.rename(_node_of(request))
            user = getattr(request, "user", None)
            if request_span.mind_id is None and is_agent(user):
                request_span.bind_mind(user.mind)  # an agent's request belongs to its key's mind
            output: dict[str, Any] = {"status": response.status_code, "duration_ms": duration_ms}
            error_code = _error_code_of(response)
            if error_code:
                output["error"] = error_code
            request_span.output(output)
            if response.status_code >= 500:
                request_span.set_status(STATUS_ERROR)
            elif response.status_code >= 400:
                request_span.set_status(STATUS_CLIENT_ERROR)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> None:
        # Only exceptions of plain Django views get here (DRF answers its own); the request
        # still ends as a 500 response, which the output row records.
        current_span().error({"type": type(exception).__name__, "message": redact_text(str(exception))[:500]})
        return None
