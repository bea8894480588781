"""GET /memory/recall: the plain-text block an agent puts into its prompt (or the same as JSON)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.api.overview_serializers import RecallJsonSerializer, RecallQuerySerializer
from memories.selectors.recall import recall_build
from memoryproject.core.api.negotiation import LenientNegotiationMixin
from memoryproject.core.api.params import query_params
from memoryproject.core.schema import error_responses
from minds.access import Access
from minds.api.request_mind import mind_from_request

TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"


class RecallView(LenientNegotiationMixin, APIView):
    @extend_schema(
        parameters=[RecallQuerySerializer],
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="The recall text (docs/recall.md)."),
            (200, "application/json"): RecallJsonSerializer,
            **error_responses(400, 401, 404),
        },
    )
    def get(self, request):
        """The mind's current memories by priority, then recency, as text for a prompt (`format=json`: as JSON)."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(RecallQuerySerializer, request)
        recall = recall_build(
            mind=mind,
            limit=params["limit"],
            max_chars=params.get("max_chars"),
            q=params.get("q", ""),
            options={name: params.get(name, "") for name in ("mode", "intent", "mood")},
        )
        if params["format"] == "json":
            counts = recall.selection.counts
            body = {
                "mind": {"id": mind.pk, "name": mind.name},
                "total": counts.total,
                "verified": counts.verified,
                "unverified": counts.unverified,
                "memories": recall.shown_memories,
                "omitted": recall.rendered.omitted,
                "cut_by": recall.rendered.cut_by,
                **{section.name: section.data for section in recall.sections},
            }
            return Response(RecallJsonSerializer(body).data)
        return HttpResponse(recall.text, content_type=TEXT_CONTENT_TYPE)
