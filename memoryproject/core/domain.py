"""The errors services and selectors raise: plain exceptions that know nothing of HTTP.

The one exception handler (memoryproject.core.exceptions) turns each into the API's error body and
status; management commands and the admin read their message. Below every app, so each app's
domain code raises the same few kinds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.core.exceptions import ValidationError as DjangoValidationError


def validation_error_fields(error: DjangoValidationError) -> dict[str, list[str]]:
    """A Django ValidationError as field → messages; an error of no field goes under `body`."""
    return error.message_dict if hasattr(error, "error_dict") else {"body": error.messages}


def unknown_fields_refuse(data: Mapping[str, object], allowed: Iterable[str], *, message: str) -> None:
    """ValidationFailed naming every key of `data` (a body, a query string) that is not in
    `allowed`, each with `message`: a typo must be told, never silently ignored."""
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ValidationFailed({name: [message] for name in unknown})


class DomainError(Exception):
    """A refused operation: `code` is the error body's code, `message` says what to do."""

    code = "error"
    default_message = "The operation was refused."

    def __init__(self, message: str | None = None, *, fields: Mapping | None = None):
        self.message = message or self.default_message
        self.fields = dict(fields or {})
        super().__init__(self.message)


class NotFound(DomainError):
    """What was asked for does not exist, or the caller may not see it (never revealed as 403)."""

    code = "not_found"
    default_message = "Not found."


class PermissionDenied(DomainError):
    """The caller can see it but their access is too low for this."""

    code = "permission_denied"
    default_message = "You do not have permission to do this."


class ValidationFailed(DomainError):
    """Input that breaks a rule. `fields` maps a field (or a nested index → field mapping, as a
    sync's `{"memories": {"3": {"content": [...]}}}`) to what is wrong with it."""

    code = "validation_error"
    default_message = "Invalid input."

    def __init__(self, fields: Mapping, message: str | None = None):
        super().__init__(message, fields=fields)


class Conflict(DomainError):
    """The request collides with the current state; `fields` names the colliding fields."""

    code = "conflict"
    default_message = "The request conflicts with the current state."


class AuthenticationFailed(DomainError):
    """Credentials that do not identify an active account."""

    code = "authentication_failed"
    default_message = "Incorrect authentication credentials."


class Unavailable(DomainError):
    """A backend the operation needs (the embedder) cannot serve it right now."""

    code = "unavailable"
    default_message = "A backend this needs is unavailable; try again later."
