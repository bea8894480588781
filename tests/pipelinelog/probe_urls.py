"""A URLconf for tests: one small memory-like endpoint plus the log API.

The probe does what every memory endpoint does — find the mind with `mind_from_request`
(which binds it to the request span) and let its service log a write — without depending
on the real memory endpoints.
"""

from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from memoryproject.core.routing import route
from minds.access import Access
from minds.api.request_mind import mind_from_request
from pipelinelog.spans import current_span


class ProbeStoreView(APIView):
    def post(self, request):
        mind, _ = mind_from_request(request, need=Access.WRITE)
        current_span().db_write({"table": "probe", "operation": "insert", "content": request.data.get("content")})
        return Response({"stored": True, "mind_id": mind.pk}, status=201)


class ProbeCrashView(APIView):
    def get(self, request):
        raise RuntimeError("the probe crashed")


urlpatterns = [
    *route("probe", ProbeStoreView.as_view(), name="probe-store"),
    *route("probe/crash", ProbeCrashView.as_view(), name="probe-crash"),
    path("", include("pipelinelog.api.urls")),
]
