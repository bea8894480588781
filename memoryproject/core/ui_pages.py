"""What every page of the human UI shares: login, the error pages, redirects and form errors.

The UI views of each app (`minds/views.py`, `memories/views.py`, `pipelinelog/views.py`) call the
same services and selectors as the API, so they meet the same domain errors
(`memoryproject.core.domain`). Here those become what a browser expects: a 404 or 403 page (with the
same statuses the API answers), or errors shown on the form that was sent.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

from memoryproject.core.domain import (
    Conflict,
    DomainError,
    NotFound,
    PermissionDenied,
    Unavailable,
    ValidationFailed,
    validation_error_fields,
)

ERROR_TEMPLATE = "ui/error.html"
CSRF_FAILURE_TEMPLATE = "ui/csrf_failure.html"
# Paths of the UI's pages, whose forms a person sends from a browser: a failed CSRF check there
# answers an HTML page; elsewhere (the API, the admin) it answers the JSON error.
BROWSER_PAGE_PREFIXES = ("/app/", "/accounts/")
# A control character in a path or a redirect target: never part of a page of ours (and a NUL is
# refused by PostgreSQL in text), so such input is not found or not followed.
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")


def error_page(request: HttpRequest, *, status: int, message: str) -> HttpResponse:
    """An HTML error page of the UI with `status` (404 invisible, 403 too little access)."""
    title = {400: "Refused", 403: "Not allowed", 404: "Not found", 503: "Try again later"}.get(status, "Refused")
    return render(request, ERROR_TEMPLATE, {"title": title, "message": message}, status=status)


def is_browser_page(path: str) -> bool:
    """Whether `path` is one of the pages people use in a browser, not an API path."""
    return path.startswith(BROWSER_PAGE_PREFIXES)


def csrf_failure_page(request: HttpRequest, reason: str) -> HttpResponse:
    """The 403 page of a form whose CSRF check failed: what happened and what to do, in words."""
    return render(request, CSRF_FAILURE_TEMPLATE, {"title": "The form expired", "reason": reason}, status=403)


def ui_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A UI page: login required (else the login page, then back), and the access matrix's
    NotFound / PermissionDenied answered as the 404 / 403 page, as the API answers them
    (a ValidationFailed no form caught as a 400 page, an unavailable embedder as a 503 page, a
    Conflict no form caught as a 409 page)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except NotFound as error:
            return error_page(request, status=404, message=error.message)
        except PermissionDenied as error:
            return error_page(request, status=403, message=error.message)
        except ValidationFailed as error:  # a request no form of the UI sends (a memory of another mind)
            problems = "; ".join(f"{name}: {' '.join(map(str, texts))}" for name, texts in error.fields.items())
            return error_page(request, status=400, message=problems or error.message)
        except Unavailable as error:  # the embedder a search or a write needs is down, as the API's 503
            return error_page(request, status=503, message=error.message)
        except Conflict as error:  # no form caught it: a search of a mind of another embedder, as the API's 409
            return error_page(request, status=409, message=error.message)

    return login_required(wrapped)


def next_url(request: HttpRequest, default: str) -> str:
    """Where to go after a POST: the form's `next` when it is a path of this site, else `default`."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if CONTROL_CHARACTER.search(target):
        return default
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return default


def form_add_domain_error(form: forms.Form, error: DomainError | ValidationError) -> None:
    """Show a refused write on the form: each named field under its input (a field the form does
    not have, or none, at the top of the form)."""
    if isinstance(error, ValidationError):
        fields = validation_error_fields(error)
        message = ""
    else:
        fields = error.fields
        message = error.message
    if not fields:
        form.add_error(None, message)
        return
    for name, messages in fields.items():
        target = name if name in form.fields else None
        for text in messages if isinstance(messages, list | tuple) else [messages]:
            prefix = "" if target or name in ("body", "__all__") else f"{name}: "
            form.add_error(target, f"{prefix}{text}")
