"""Every API request is a span: `input` (what was asked), `output` (its status).

`X-Turn-Id` (any string of at most 100 characters without control characters) names the
turn; it is echoed on the response, and a uuid4 is generated when the header is absent or
blank. A longer or malformed value answers 400 — silently replacing it would break the
client's correlation without telling them. Code that needs the turn reads
`pipelinelog.spans.current_turn_id()`.

The node is the URL pattern's name (`memory-list`), else the path. The caller (`source`) is
read after the view ran, because DRF authenticates inside the view (it sets the user on the
wrapped Django request too); a Mind Key binds its mind when it authenticates
(`minds.authentication`). Secrets never enter the log: the request summary leaves out
every header, redacts credential fields of the query and the body, and the writer redacts again.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict

from memoryproject.core.api.headers import header_value_problem
from memoryproject.core.errors import error_response
from memoryproject.core.jsonbounds import loads_bounded
from minds.access import caller_label
from pipelinelog.constants import SOURCE_ANONYMOUS, TURN_ID_HEADER, TURN_ID_MAX_LENGTH, setting
from pipelinelog.redaction import summarize
from pipelinelog.spans import STATUS_ERROR, Span, current_span, new_turn_id, turn_scope

# Span status of a request the client got wrong (4xx); 5xx is `error`.
STATUS_CLIENT_ERROR = "client_error"
# Paths that are never logged: static files (usually answered by whitenoise before us), the
# admin's script catalogue, and the log's own API and UI pages (reading a trace must not add to it).
_SKIPPED_PREFIXES = ("/favicon.ico", "/admin/jsi18n/", "/log/", "/app/log/")
_SKIPPED_PATHS = frozenset({"/log"})


def turn_id_parse(raw: str | None) -> tuple[str, str | None]:
    """(turn id, None) for a usable header value or none at all; ("", problem) otherwise."""
    if raw is None or not raw.strip():
        return new_turn_id(), None
    value = raw.strip()
    problem = header_value_problem(TURN_ID_HEADER, value, max_chars=TURN_ID_MAX_LENGTH)
    return ("", problem) if problem else (value, None)


def _querydict_summary(query: QueryDict) -> dict[str, Any]:
    return summarize({key: (values[0] if len(values) == 1 else values) for key, values in query.lists()})


def body_read(request: HttpRequest) -> bytes | None:
    """The raw body, or None when there is none. Read before the view: once DRF has read the
    request's stream itself, Django refuses `request.body`. Raises when Django cannot read it."""
    if request.method in ("GET", "HEAD", "OPTIONS", "DELETE") and not request.META.get("CONTENT_LENGTH"):
        return None
    return request.body or None  # cached by Django, so the view can still read it


def body_summary(request: HttpRequest, raw: bytes | None) -> Any:
    """The body (JSON or form), summarized; other bodies only by type and size.

    Called after the view: a JSON object DRF parsed is reused (`parsed_json`, left by
    `memoryproject.core.parsers.JSONObjectParser`); the raw body is parsed here only when nothing
    parsed it (a view that never read `request.data`, a body the parser refused).
    """
    parsed = getattr(request, "parsed_json", None)
    if parsed is not None:
        return summarize(parsed)
    if not raw:
        return None
    content_type = request.content_type or ""
    if content_type.endswith("json"):
        try:
            return summarize(loads_bounded(raw))
        except ValueError:  # malformed, or deeper than JSON_MAX_DEPTH (JSONTooDeep) — never a RecursionError
            return {"content_type": content_type, "bytes": len(raw), "parsed": False}
    if content_type == "application/x-www-form-urlencoded":
        return _querydict_summary(QueryDict(raw, encoding=request.encoding))
    return {"content_type": content_type, "bytes": len(raw)}


def caller_source(request: HttpRequest) -> str:
    """`agent:<key prefix>`, `user:<id>` or `anonymous`, as the view authenticated it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return SOURCE_ANONYMOUS
    return caller_label(user)


def _node_of(request: HttpRequest) -> str:
    """The URL pattern's name (both forms of a `route()` carry it); else the pattern itself (no
    ids in it); else the path."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return request.path
    if match.url_name:
        return match.url_name
    readable = match.route and not match.route.startswith("^")  # regex routes (the catch-all) are not
    return match.route if readable else request.path


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
        turn_id, problem = turn_id_parse(request.headers.get(TURN_ID_HEADER))
        if problem:
            return error_response(400, "invalid_header", problem, {TURN_ID_HEADER: [problem]})
        with turn_scope(turn_id):
            if (
                not setting("PIPELINE_LOG_ENABLED")
                or request.path in _SKIPPED_PATHS
                or request.path.startswith(self.skipped_prefixes)
            ):
                response = self.get_response(request)
            else:
                response = self._logged(request, turn_id)
        response[TURN_ID_HEADER] = turn_id
        return response

    def _logged(self, request: HttpRequest, turn_id: str) -> HttpResponse:
        with Span(request.path, turn_id=turn_id) as request_span:
            request_span.set_source_resolver(lambda: caller_source(request))
            try:
                raw_body, unreadable = body_read(request), False
            except Exception:  # over DATA_UPLOAD_MAX_MEMORY_SIZE, a broken stream: the view answers it
                raw_body, unreadable = None, True
            request_input: dict[str, Any] = {
                "method": request.method,
                "path": request.path,
                "query": _querydict_summary(request.GET),
                "body": None,
            }
            request_span.input(request_input)
            response = self.get_response(request)

            # Summarized now that the view's parser may have parsed the body. The span still holds
            # its input row (rows go to the writer when it ends), so the row is written with it —
            # unless the view logged SPAN_HOLD_MAX_ROWS rows, which hands the row over early.
            request_input["body"] = {"unreadable": True} if unreadable else body_summary(request, raw_body)
            request_span.rename(_node_of(request))
            output: dict[str, Any] = {"status": response.status_code}
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
        current_span().fail(exception)
        return None
