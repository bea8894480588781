"""The DRF exception handler: every API error leaves in the shape of `errors.error_body`."""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions
from rest_framework.views import exception_handler

from memoryproject.core import domain
from memoryproject.core.domain import validation_error_fields
from memoryproject.core.errors import (
    DatabaseUnavailable,
    HttpConflict,
    PayloadTooLarge,
    error_body,
    mark_database_unavailable,
)
from memoryproject.embedded.outage import is_database_outage, outage

logger = logging.getLogger(__name__)

# DRF's codes, renamed where the contract reads better.
_CODE_NAMES = {"invalid": "validation_error", "token_not_valid": "authentication_failed"}


def flatten_field_errors(detail, path: str = "") -> dict[str, list[str]]:
    """{"memories": {"3": {"content": ["…"]}}} → {"memories.3.content": ["…"]}."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for name, sub in detail.items():
            flat.update(flatten_field_errors(sub, f"{path}.{name}" if path else str(name)))
        return flat
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return {path or "body": [str(item) for item in detail]}
        flat = {}
        for index, sub in enumerate(detail):
            if sub:  # DRF puts {} for list items that were valid
                flat.update(flatten_field_errors(sub, f"{path}.{index}" if path else str(index)))
        return flat
    return {path or "body": [str(detail)]}


def _validation_message(fields: dict[str, list[str]]) -> str:
    """The first field with every one of its problems (a password failing three rules names all three)."""
    first_name, first_errors = next(iter(fields.items()))
    problems = " ".join(first_errors)
    if list(fields) == ["body"] or list(fields) == ["non_field_errors"]:
        return problems
    more = len(fields) - 1
    suffix = f" (and {more} more field{'s' if more > 1 else ''})" if more else ""
    return f"Invalid input: {first_name}: {problems}{suffix}"


MIND_KEY_HINT = (
    "Agents send `Authorization: Bearer <Mind Key>`; people send `Authorization: Bearer <access token>` "
    "from POST /login."
)


def _missing_credentials_message(request) -> str:
    """What the client sent instead of `Authorization: Bearer …`, and what to send."""
    headers = request.headers if request is not None else {}
    authorization = headers.get("Authorization", "").strip()
    if authorization:
        parts = authorization.split()
        if parts[0].startswith("mk_"):
            return "The Authorization header holds a bare Mind Key; send `Authorization: Bearer <Mind Key>`."
        if len(parts) == 1:  # a bare token: never echoed, it may be a secret
            return f"The Authorization header must start with `Bearer `. {MIND_KEY_HINT}"
        return f"The Authorization scheme {parts[0][:20]!r} is not accepted. {MIND_KEY_HINT}"
    if headers.get("X-API-Key"):
        return "The X-API-Key header is not read; send the key as `Authorization: Bearer <Mind Key>`."
    return f"No credentials were sent. {MIND_KEY_HINT}"


def _database_unavailable(exc: BaseException, context):
    outage.report(exc)
    response = exception_handler(DatabaseUnavailable(), context)
    response.data = error_body(DatabaseUnavailable.default_code, str(DatabaseUnavailable.default_detail))
    return mark_database_unavailable(response)


def _authentication_failed(exc: domain.AuthenticationFailed, context) -> exceptions.AuthenticationFailed:
    """DRF's own, with the WWW-Authenticate header its views add (403 where the view has none)."""
    api_exc = exceptions.AuthenticationFailed(exc.message)
    view, request = context.get("view"), context.get("request")
    header = view.get_authenticate_header(request) if view is not None and request is not None else None
    if header:
        api_exc.auth_header = header
    else:
        api_exc.status_code = 403
    return api_exc


def api_exception_of(exc: domain.DomainError, context) -> exceptions.APIException:
    """The DRF exception that answers a domain error: its status, code and message as before."""
    if isinstance(exc, domain.ValidationFailed):
        return exceptions.ValidationError(exc.fields)
    if isinstance(exc, domain.NotFound):
        return exceptions.NotFound(exc.message)
    if isinstance(exc, domain.PermissionDenied):
        return exceptions.PermissionDenied(exc.message)
    if isinstance(exc, domain.Conflict):
        return HttpConflict(exc.message, fields=exc.fields)
    if isinstance(exc, domain.AuthenticationFailed):
        return _authentication_failed(exc, context)
    api_exc = exceptions.APIException(exc.message, code=exc.code)
    if isinstance(exc, domain.Unavailable):
        api_exc.status_code = 503
    return api_exc


def api_exception_handler(exc, context):
    if is_database_outage(exc):
        return _database_unavailable(exc, context)
    if isinstance(exc, domain.DomainError):
        exc = api_exception_of(exc, context)
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(validation_error_fields(exc))

    response = exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: Django's handler500 answers in JSON and logs it

    if isinstance(exc, exceptions.ValidationError):
        fields = flatten_field_errors(exc.detail)
        response.data = error_body("validation_error", _validation_message(fields), fields)
        return response

    if isinstance(exc, exceptions.NotAuthenticated):
        response.data = error_body("not_authenticated", _missing_credentials_message(context.get("request")))
        return response
    if isinstance(exc, exceptions.UnsupportedMediaType):
        message = f"{exc.detail} Send `Content-Type: application/json` with a JSON object as the body."
        response.data = error_body("unsupported_media_type", message)
        return response

    detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
    if isinstance(detail, dict):  # simplejwt: {"detail": …, "code": …, "messages": […]}
        message = str(detail.get("detail", "")) or "The request was refused."
        code = str(detail.get("code", "")) or getattr(exc, "default_code", "error")
    else:
        message = str(detail)
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
    response.data = error_body(_CODE_NAMES.get(code, code), message, getattr(exc, "fields", None))
    return response
