"""Project-level endpoints: the landing page, /health, and JSON answers for Django's errors."""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.selectors.system import service_health
from memoryproject.errors import error_response

logger = logging.getLogger(__name__)

AGENT_GUIDE = """Synapse — memory for LLM agents

Authenticate every call with your Mind Key: Authorization: Bearer mk_...

At the start of a session, recall what you know:
  GET /memory/recall                 plain text for your prompt
  GET /memory/recall?q=<topic>       plus the memories that resonate with the topic

Whenever you learn something worth keeping, store it:
  POST /memory  {"category": "fact", "key": "office_city", "content": "Office is in Berlin", "tags": ["work"]}
  Same category and key again updates it instead of duplicating it.

Categories: identity, preference, fact, project, skill, mistake, context, note.
Find things: GET /memory/search?q=<words>
Full API: /api/docs/ (OpenAPI at /api/schema/)
"""


def landing(request):
    """People get a page; agents asking for text/plain get a short guide."""
    accept = request.headers.get("Accept", "")
    if "text/plain" in accept and "text/html" not in accept:
        return HttpResponse(AGENT_GUIDE, content_type="text/plain; charset=utf-8")
    return render(request, "landing.html", {"version": settings.VERSION})


class HealthView(APIView):
    """No authentication: the database, the worker heartbeat and a few counts."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(auth=[], responses={200: dict, 503: dict})
    def get(self, request):
        health = service_health()
        return Response(health, status=200 if health["status"] == "ok" else 503)


def json_not_found(request, exception=None, *args, **kwargs):
    return error_response(404, "not_found", f"Nothing at {request.path}. The API is listed at /api/docs/.")


def json_server_error(request, *args, **kwargs):
    return error_response(500, "server_error", "Something went wrong on our side; it has been logged.")


def json_bad_request(request, exception=None, *args, **kwargs):
    return error_response(400, "bad_request", "The request could not be understood.")


def json_permission_denied(request, exception=None, *args, **kwargs):
    return error_response(403, "permission_denied", "You are not allowed to do this.")
