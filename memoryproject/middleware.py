"""Middleware that must act before any view reads the request."""

from django.conf import settings

from memoryproject.errors import error_response


class BodySizeLimitMiddleware:
    """Answer 413 to a declared body over the limit, before anything reads it.

    Django itself only raises RequestDataTooBig when a view touches the body; checking the
    declared length first also covers views that never read it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        declared = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(declared)
        except ValueError:
            return error_response(400, "invalid_header", "Content-Length must be a whole number of bytes.")
        if length > settings.MAX_REQUEST_BODY_BYTES:
            return error_response(
                413,
                "payload_too_large",
                f"The request body is {length} bytes; the limit is {settings.MAX_REQUEST_BODY_BYTES} bytes (1 MiB).",
            )
        return self.get_response(request)
