"""GET /log and GET /log/turns/{turn_id}: a human with read access to the mind, or its Mind Key."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import APIView

from memoryproject.core.api.fields import TIME_SCHEMA
from memoryproject.core.api.params import MIND_HEADER, MIND_PARAM
from memoryproject.core.pagination import DEFAULT_PAGE_LIMIT, LimitOffsetPaging, page_response
from minds.access import Access
from minds.api.request_mind import mind_from_request
from pipelinelog.api.filters import LogEntryFilterSet
from pipelinelog.api.serializers import LogEntrySerializer, TurnTraceSerializer
from pipelinelog.models import Kind
from pipelinelog.selectors import log_entries_of_mind, log_turn_get

# Rows per page of GET /log unless `limit` says otherwise: the project's one default page size
# (the shared cap, MAX_PAGE_LIMIT, applies).
LOG_LIST_LIMIT = DEFAULT_PAGE_LIMIT

_MIND_PARAMETER = OpenApiParameter(
    MIND_PARAM, OpenApiTypes.STR, description=f"The mind (humans; a Mind Key reads its own). Or header {MIND_HEADER}."
)
# Text filters take no NUL character (Django's form fields refuse it).
_TEXT = {"type": "string", "pattern": "^[^\\x00]*$"}
# A time, or empty: an empty filter is no filter, as for every filter of the log.
_TIME_OR_EMPTY = {**TIME_SCHEMA, "anyOf": [*TIME_SCHEMA["anyOf"], {"type": "string", "maxLength": 0}]}
_FILTER_PARAMETERS = [
    OpenApiParameter("turn_id", _TEXT, description="Rows of this turn."),
    OpenApiParameter(
        "span_id",
        # Empty means no filter, as for every filter of the log.
        {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "string", "maxLength": 0}]},
        description="Rows of this span.",
    ),
    OpenApiParameter("node", _TEXT, description="Rows of this node, e.g. memories.store."),
    OpenApiParameter("kind", OpenApiTypes.STR, enum=Kind.values, description="Rows of this kind."),
    OpenApiParameter("since", _TIME_OR_EMPTY, description="Rows at or after this time (ISO 8601 or epoch seconds)."),
    OpenApiParameter("until", _TIME_OR_EMPTY, description="Rows at or before this time (ISO 8601 or epoch seconds)."),
]


class LogListView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = LOG_LIST_LIMIT

    @extend_schema(parameters=[_MIND_PARAMETER, *_FILTER_PARAMETERS], responses=LogEntrySerializer(many=True))
    def get(self, request):
        """The mind's log rows, newest first, filtered by turn, span, node, kind and time."""
        mind, _ = mind_from_request(request, need=Access.READ)
        rows = LogEntryFilterSet(request.query_params, queryset=log_entries_of_mind(mind=mind)).filtered()
        return page_response(self, rows, LogEntrySerializer)


class LogTurnView(APIView):
    @extend_schema(parameters=[_MIND_PARAMETER], responses=TurnTraceSerializer)
    def get(self, request, turn_id: str):
        """One whole turn of the mind, oldest first, grouped by span."""
        mind, _ = mind_from_request(request, need=Access.READ)
        trace = log_turn_get(mind=mind, turn_id=turn_id)
        if trace is None:
            raise exceptions.NotFound("This mind has no log rows for this turn id.")
        return Response(TurnTraceSerializer(trace).data)
