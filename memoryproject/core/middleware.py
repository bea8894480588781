"""Middleware that must act before any view reads the request, and the outage answer of plain views."""

from __future__ import annotations

import io

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from memoryproject.core.errors import database_unavailable_response, error_response, url_too_long_response
from memoryproject.embedded.outage import is_database_outage, outage

# How much of a chunked body is read per call (bytes); any size works, this keeps calls few.
_CHUNKED_READ_BYTES = 64 * 1024
# How much of a refused body (over the limit) is read and thrown away before the 413 is sent
# (bytes). A server that answers and closes while the client is still sending makes the kernel
# reset the connection, and the client sees a broken pipe instead of the answer; read to the
# end, the body's sender always gets the JSON 413. A larger body is cut off at this bound.
REFUSED_BODY_DRAIN_BYTES = 16 * 1024 * 1024


class URLLengthLimitMiddleware:
    """Answer 414 to a URL (path and query string) longer than MAX_URL_BYTES.

    gunicorn's own request-line limit is lifted (it answers HTML); this one answers the JSON
    error and names the limit.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        url_bytes = len(request.get_full_path().encode())
        if url_bytes > settings.MAX_URL_BYTES:
            return url_too_long_response(url_bytes)
        return self.get_response(request)


def body_limit(path: str) -> int:
    """The largest body `path` accepts (bytes): MAX_REQUEST_BODY_BYTES, or the path's own bound
    in MAX_REQUEST_BODY_BYTES_BY_PATH (with or without the trailing slash)."""
    return settings.MAX_REQUEST_BODY_BYTES_BY_PATH.get(path.rstrip("/"), settings.MAX_REQUEST_BODY_BYTES)


def _body_too_large(length_text: str, limit: int) -> HttpResponse:
    return error_response(
        413,
        "payload_too_large",
        f"The request body is {length_text} bytes; the limit is {limit} bytes ({limit / 1024 / 1024:g} MiB). "
        "Send less per request (for many memories use /memory/sync in batches; a larger export goes in with "
        "manage.py import_memories).",
    )


class ChunkedBodyMiddleware:
    """Read a `Transfer-Encoding: chunked` body, so the view sees it like any other.

    gunicorn de-chunks the body but sends no CONTENT_LENGTH, and Django (like DRF) reads a body
    only up to CONTENT_LENGTH: without this every chunked body would look empty ("field
    required"). The body is read up to one byte past the path's limit; a larger one answers 413.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not request.META.get("CONTENT_LENGTH"):
            limit = body_limit(request.path_info)
            body = _read(request.META["wsgi.input"], limit + 1)
            if len(body) > limit:
                _read(request.META["wsgi.input"], REFUSED_BODY_DRAIN_BYTES, keep=False)
                return _body_too_large(f"more than {limit}", limit)
            request.META["CONTENT_LENGTH"] = str(len(body))
            # WSGIRequest reads its body from `_stream`, limited to the CONTENT_LENGTH it saw at
            # construction (none): hand it the body we read instead.
            request._stream = io.BytesIO(body)
        return self.get_response(request)


def _read(stream, limit: int, *, keep: bool = True) -> bytes:
    """Up to `limit` bytes of `stream` (to its end if shorter); with keep=False read and dropped."""
    parts: list[bytes] = []
    received = 0
    while received < limit:
        part = stream.read(min(_CHUNKED_READ_BYTES, limit - received))
        if not part:
            break
        if keep:
            parts.append(part)
        received += len(part)
    return b"".join(parts)


class BodySizeLimitMiddleware:
    """Answer 413 to a declared body over the limit, before anything reads it.

    Django itself only raises RequestDataTooBig when a view touches the body; checking the
    declared length first also covers views that never read it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(declared)
        except ValueError:
            return error_response(400, "invalid_header", "Content-Length must be a whole number of bytes.")
        limit = body_limit(request.path_info)
        if length > limit:
            if length <= REFUSED_BODY_DRAIN_BYTES:  # read to its end: the sender gets the answer (above)
                _read(request, length, keep=False)
            return _body_too_large(str(length), limit)
        return self.get_response(request)


class DatabaseOutageMiddleware:
    """A plain Django view (landing page, admin) that hits a database outage answers the JSON 503.

    DRF views answer it from the exception handler (`memoryproject.core.exceptions`); this covers the
    rest. Listed last, so its `process_exception` runs first.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_database_outage(exception):
            return None
        outage.report(exception)
        return database_unavailable_response()
