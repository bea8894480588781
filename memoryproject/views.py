"""Project-level endpoints: the landing page, /health, and JSON answers for Django's errors."""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.models import Category
from memories.selectors.system import service_health
from memoryproject.core.errors import database_unavailable_response, error_response
from memoryproject.core.ui_pages import csrf_failure_page, is_browser_page
from memoryproject.embedded.outage import DATABASE_RETRY_AFTER_SECONDS, is_database_outage, outage

logger = logging.getLogger(__name__)

AGENT_GUIDE = f"""Synapse — memory for LLM agents

Authenticate every call with your Mind Key: Authorization: Bearer mk_...

At the start of a session, recall what you know:
  GET /memory/recall                 plain text for your prompt, most important memories first
  GET /memory/recall?q=<topic>       the same, plus what resonates with the topic in the long-term net

Whenever you learn something worth keeping, store it:
  POST /memory  {{"category": "fact", "key": "office_city", "content": "Office is in Berlin", "tags": ["work"]}}
  Same category and key again updates it instead of duplicating it.
  Optional: "entities": ["Anna", "Siemens"] (who or what it is about) and "event_time" (ISO 8601,
  when it happened, if not now). The long-term net joins memories that share a name or a time;
  you need not send names: the server finds them in the content and knows the mind's names.

Categories: {", ".join(Category.values)}.
Find things: GET /memory/search?q=<words>
Full API: /api/docs/ (OpenAPI at /api/schema/)
"""


# What the landing page can answer, in the order preferred when the client accepts several.
_LANDING_TYPES = ("text/html", "application/json", "text/plain")


def landing(request):
    """People get a page; agents get a short guide as text, or as JSON with the useful links."""
    preferred = request.get_preferred_type(_LANDING_TYPES) if request.headers.get("Accept") else "text/html"
    if preferred == "text/plain":
        response = HttpResponse(AGENT_GUIDE, content_type="text/plain; charset=utf-8")
    elif preferred == "application/json":
        response = JsonResponse(
            {
                "name": "Synapse",
                "version": settings.VERSION,
                "docs": "/api/docs/",
                "schema": "/api/schema/",
                "health": "/health",
                "guide": AGENT_GUIDE,
            }
        )
    else:
        response = render(request, "landing.html", {"version": settings.VERSION})
    patch_vary_headers(response, ["Accept"])
    return response


class HealthView(APIView):
    """Anyone: up or down for the database and the worker. A staff session (the admin's login)
    also gets the version and the row counts."""

    # Only the session: a probe sends no credential, and a stale token must not turn a probe into
    # a 401. An anonymous request is never refused.
    authentication_classes = [SessionAuthentication]
    permission_classes = [AllowAny]

    @extend_schema(auth=[], responses={200: dict, 503: dict})
    def get(self, request):
        health = service_health(with_counts=bool(request.user and request.user.is_staff))
        if health["status"] == "ok":
            return Response(health)
        # A probe or a client may come back later: say when (the body says which part is down).
        response = Response(health, status=503, headers={"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)})
        if health["database"] == "down":
            response._has_been_logged = True  # the outage is logged once per process, not per probe
        return response


def _printable(text: str) -> str:
    """`text` with control characters escaped (`/foo%0Abar` → `/foo\\nbar`), for messages."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


@csrf_exempt  # also the catch-all route: an unsafe method on an unknown path is a 404, not a CSRF 403
def json_not_found(request, exception=None, *args, **kwargs):
    return error_response(404, "not_found", f"Nothing at {_printable(request.path)}. The API is listed at /api/docs/.")


def json_server_error(request, *args, **kwargs):
    # Django calls this inside its `except` block: a database outage raised by a middleware
    # (outside any view) still answers the 503.
    error = sys.exc_info()[1]
    if is_database_outage(error):
        outage.report(error)
        return database_unavailable_response()
    return error_response(500, "server_error", "Something went wrong on our side; it has been logged.")


def csrf_failure(request, reason: str = "", *args, **kwargs):
    """CSRF_FAILURE_VIEW: only session-authenticated unsafe requests can get here. A form of the
    UI or the admin gets a page saying what to do; the API answers its JSON error."""
    if is_browser_page(request.path):
        return csrf_failure_page(request, reason)
    return error_response(
        403,
        "csrf_failed",
        f"CSRF verification failed: {reason} Browser forms send the csrftoken cookie's value as the "
        "csrfmiddlewaretoken field or the X-CSRFToken header; API clients send `Authorization: Bearer …` "
        "instead of a session cookie.",
    )


def json_bad_request(request, exception=None, *args, **kwargs):
    return error_response(400, "bad_request", "The request could not be understood.")


def json_permission_denied(request, exception=None, *args, **kwargs):
    return error_response(403, "permission_denied", "You are not allowed to do this.")
