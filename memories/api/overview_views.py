"""The overview endpoints of a mind (stats, health, tags, timeline, contradictions) and compaction.

Thin views: validate the parameters, resolve the mind, call one selector or service, serialize.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.api.overview_serializers import (
    CompactRequestSerializer,
    CompactResultSerializer,
    ContradictionsQuerySerializer,
    ContradictionsSerializer,
    HealthSerializer,
    StatsSerializer,
    TagsQuerySerializer,
    TagsSerializer,
    TimelineQuerySerializer,
    TimelineSerializer,
)
from memories.selectors.knots import memories_knot_ids_attach
from memories.selectors.overview import (
    memories_contradicting,
    mind_health,
    mind_stats,
    mind_tags,
    mind_timeline,
)
from memories.services.compact import memories_compact
from memoryproject.core.api.params import no_query_params, query_params
from memoryproject.core.schema import error_responses
from minds.access import Access, caller_of
from minds.api.request_mind import mind_from_request
from pipelinelog.spans import current_turn_id_or_blank


class StatsView(APIView):
    @extend_schema(responses={200: StatsSerializer, **error_responses(400, 401, 404)})
    def get(self, request):
        """Counts of the mind's memories: totals, verified/unverified/expired, by category, source and priority."""
        mind, _ = mind_from_request(request, need=Access.READ)
        no_query_params(request)
        return Response(StatsSerializer(mind_stats(mind=mind)).data)


class MindHealthView(APIView):
    @extend_schema(responses={200: HealthSerializer, **error_responses(400, 401, 404)})
    def get(self, request):
        """The mind's memories, pending promotions and the worker's heartbeat."""
        mind, _ = mind_from_request(request, need=Access.READ)
        no_query_params(request)
        return Response(HealthSerializer(mind_health(mind=mind)).data)


class TagsView(APIView):
    @extend_schema(parameters=[TagsQuerySerializer], responses={200: TagsSerializer, **error_responses(400, 401, 404)})
    def get(self, request):
        """Each tag with the number of memories carrying it, most used first."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(TagsQuerySerializer, request)
        return Response(TagsSerializer(mind_tags(mind=mind, **params)).data)


class TimelineView(APIView):
    @extend_schema(
        parameters=[TimelineQuerySerializer], responses={200: TimelineSerializer, **error_responses(400, 401, 404)}
    )
    def get(self, request):
        """Memories created per hour, day, week, month or year, with counts per category."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(TimelineQuerySerializer, request)
        return Response(TimelineSerializer(mind_timeline(mind=mind, **params)).data)


class ContradictionsView(APIView):
    @extend_schema(
        parameters=[ContradictionsQuerySerializer],
        responses={200: ContradictionsSerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request):
        """Pairs of recently written memories on the same subject that say different things."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(ContradictionsQuerySerializer, request)
        found = memories_contradicting(mind=mind, **params)
        # The pairs' knot ids in one query, not two per pair.
        memories_knot_ids_attach(memory for pair in found["contradictions"] for memory in (pair.newer, pair.older))
        return Response(ContradictionsSerializer(found).data)


class CompactView(APIView):
    @extend_schema(
        request=CompactRequestSerializer,
        responses={200: CompactResultSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request):
        """Fold old unverified agent memories sharing tags into summary memories; the originals expire."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        params = CompactRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        result = memories_compact(
            mind=mind, caller=caller_of(request.user), turn_id=current_turn_id_or_blank(), **params.validated_data
        )
        body = {
            "dry_run": result.dry_run,
            "clusters_processed": result.clusters_processed,
            "memories_compacted": result.memories_compacted,
            "results": result.clusters,
        }
        return Response(CompactResultSerializer(body).data)
