"""GET /mind/export and POST /mind/import (docs/export-format.md)."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.api.overview_serializers import ExportQuerySerializer, ImportRequestSerializer, ImportResultSerializer
from memories.api.serializers import MemorySerializer
from memories.services.transfer import mind_export_csv, mind_export_json, mind_import
from memoryproject.core.api.negotiation import LenientNegotiationMixin
from memoryproject.core.api.params import query_params
from memoryproject.core.contributions import ImportedSection, contributed_section_names
from minds.access import Access, caller_of
from minds.api.request_mind import mind_from_request
from pipelinelog.spans import current_turn_id_or_blank

# The net's counts in the import's answer (ImportResultSerializer): its sections and the links.
IMPORT_NET_COUNTS = ("knots", "links", "edges", "entities", "goals")


class ExportView(LenientNegotiationMixin, APIView):
    @extend_schema(
        parameters=[ExportQuerySerializer],
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="docs/export-format.md"),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="One row per memory."),
        },
    )
    def get(self, request):
        """Everything of the mind as JSON (`format=json`, re-importable) or its memories as CSV (`format=csv`)."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(ExportQuerySerializer, request)
        # One serializer for all rows: building its fields per row would cost more than the rest.
        represent = MemorySerializer().to_representation
        if params["format"] == "csv":
            rows = mind_export_csv(mind=mind, represent=represent)
            response = StreamingHttpResponse(rows, content_type="text/csv; charset=utf-8")
            filename = f"synapse-{mind.pk}-{timezone.now():%Y%m%d}.csv"
            response["Content-Disposition"] = f'attachment; filename="{filename}"'
            return response
        return StreamingHttpResponse(
            mind_export_json(
                mind=mind, represent=represent, represent_time=serializers.DateTimeField().to_representation
            ),
            content_type="application/json",
        )


class ImportView(APIView):
    @extend_schema(request=ImportRequestSerializer, responses={200: ImportResultSerializer})
    def post(self, request):
        """Import the json export format, memories and the net; idempotent (importing twice changes nothing)."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        serializer = ImportRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = mind_import(
            mind=mind,
            items=data["memories"],
            caller=caller_of(request.user),
            turn_id=current_turn_id_or_blank(),
            # The file's memory ids, by which its knots name their memories (valid items are objects).
            source_ids=[item.get("id") for item in request.data["memories"]],
            net_sections={name: data[name] for name in contributed_section_names() if name in data},
        )
        body = {
            "created": result.count("created"),
            "updated": result.count("updated"),
            "skipped": result.count("skipped"),
            "downgraded": result.downgraded,
            "results": result.outcomes,
            **{name: result.net.get(name, ImportedSection()) for name in IMPORT_NET_COUNTS},
        }
        return Response(ImportResultSerializer(body).data)
