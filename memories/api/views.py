"""The memory API: thin views that validate, call one service or selector, and serialize."""

from __future__ import annotations

from collections.abc import Callable

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.api.filters import AuditFilter, MemoryByTagFilter, MemoryFilter
from memories.api.serializers import (
    DiffQuerySerializer,
    DiffSerializer,
    ExpiringQuerySerializer,
    MemoryAuditSerializer,
    MemoryDeletedSerializer,
    MemoryInputSerializer,
    MemorySerializer,
    MemoryStoredSerializer,
    MemoryVersionsPurgedSerializer,
    SyncRequestSerializer,
    SyncResultSerializer,
)
from memories.limits import MAX_IDEMPOTENCY_KEY_CHARS, MAX_TAG_CHARS
from memories.models import AuditAction, Category, Priority, Source
from memories.selectors.memory import (
    MEMORY_LIST_LIMIT,
    MemoryListFilters,
    memories_expiring,
    memories_unverified,
    memory_audit_list,
    memory_diff,
    memory_get_for,
    memory_list,
)
from memories.services.erasure import memory_delete, memory_versions_purge
from memories.services.idempotency import idempotency_request_hash, idempotency_run
from memories.services.memory import (
    memory_store,
    memory_unverify,
    memory_update,
    memory_verify,
)
from memories.services.sync import memories_sync
from memoryproject.core.api.headers import header_value_problem
from memoryproject.core.api.params import PAGE_PARAMS, no_query_params, query_params
from memoryproject.core.pagination import LimitOffsetPaging, page_response
from minds.access import Access, caller_of
from minds.api.request_mind import mind_from_request, named_mind_id
from minds.permissions import IsHuman
from pipelinelog.spans import current_turn_id_or_blank

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"

_IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_IDEMPOTENCY_KEY_CHARS,
        # Not only blanks, and no control characters (leading and trailing blanks are trimmed).
        "pattern": r"^[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]*$",
    },
    OpenApiParameter.HEADER,
    description=f"Any string of 1–{MAX_IDEMPOTENCY_KEY_CHARS} characters without control characters (a uuid4 "
    "works). A repeat with the same key and body within 24 h replays the first response (header "
    "Idempotent-Replayed: true); the same key with another body is a 409.",
)
_REPLAYED_PARAMETER = OpenApiParameter(
    REPLAYED_HEADER,
    {"type": "string", "enum": ["true"]},
    OpenApiParameter.HEADER,
    description="Present when this is the replay of an earlier response to the same Idempotency-Key.",
    response=[200, 201],
)


_TAG_PARAMETER = OpenApiParameter(
    "tag", {"type": "string", "maxLength": MAX_TAG_CHARS}, description="Case-insensitive."
)


def _choice_parameter(name: str, values, description: str = "") -> OpenApiParameter:
    """A query filter taking one of `values`; empty means no filter, so "" is allowed too."""
    return OpenApiParameter(name, {"type": "string", "enum": ["", *values]}, description=description)


def idempotency_key_of(request) -> str | None:
    """The `Idempotency-Key` header, or None when absent; 400 when blank, too long or with control characters."""
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is None:
        return None
    key = key.strip()
    problem = header_value_problem(IDEMPOTENCY_HEADER, key, max_chars=MAX_IDEMPOTENCY_KEY_CHARS)
    if problem:
        raise ValidationError({IDEMPOTENCY_HEADER: [problem]})
    return key


def idempotent_response(request, *, mind, execute: Callable[[], tuple[int, dict]]) -> Response:
    """Run `execute` (→ status, body), or replay its first response when the request carries an
    `Idempotency-Key` seen with this mind in the last 24 h."""
    key = idempotency_key_of(request)
    if key is None:
        status, body = execute()
        return Response(body, status=status)
    request_hash = idempotency_request_hash(method=request.method, path=request.path, body=request.data)
    outcome = idempotency_run(mind=mind, key=key, request_hash=request_hash, execute=execute)
    headers = {REPLAYED_HEADER: "true"} if outcome.replayed else None
    return Response(outcome.body, status=outcome.status, headers=headers)


def memory_list_filters(filter_class: type[MemoryFilter], request) -> MemoryListFilters:
    """The list filters of the query string, validated (400 naming a bad or unknown parameter)."""
    cleaned = filter_class(data=request.query_params).cleaned()
    return MemoryListFilters(
        category=cleaned["category"] or None,
        tag=cleaned["tag"] or None,
        priority=cleaned["priority"] or None,
        source=cleaned["source"] or None,
        verified=cleaned["verified"],
        include_expired=bool(cleaned["include_expired"]),
    )


class MemoryCollectionView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = MEMORY_LIST_LIMIT

    @extend_schema(
        parameters=[
            # The filters' allowed values (memories.api.filters); empty means no filter.
            _choice_parameter("category", Category.values),
            _TAG_PARAMETER,
            _choice_parameter("priority", Priority.values),
            _choice_parameter("source", Source.values),
            OpenApiParameter("verified", OpenApiTypes.BOOL, description="true/false or 1/0."),
            OpenApiParameter("include_expired", OpenApiTypes.BOOL, description="Default false."),
        ],
        responses=MemorySerializer(many=True),
    )
    def get(self, request):
        """The mind's memories, most recently updated first; expired ones only with include_expired=true."""
        mind, _ = mind_from_request(request, need=Access.READ)
        filters = memory_list_filters(MemoryFilter, request)
        return page_response(self, memory_list(mind_id=mind.pk, filters=filters), MemorySerializer)

    @extend_schema(
        request=MemoryInputSerializer,
        parameters=[_IDEMPOTENCY_PARAMETER, _REPLAYED_PARAMETER],
        responses={200: MemoryStoredSerializer, 201: MemoryStoredSerializer},
    )
    def post(self, request):
        """Store a memory, or update the one with the same category and key (upsert)."""
        mind, _ = mind_from_request(request, need=Access.WRITE)

        def store() -> tuple[int, dict]:
            serializer = MemoryInputSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            result = memory_store(
                mind=mind,
                fields=serializer.validated_data,
                caller=caller_of(request.user),
                turn_id=current_turn_id_or_blank(),
            )
            return (201 if result.created else 200), {**MemorySerializer(result.memory).data, "created": result.created}

        return idempotent_response(request, mind=mind, execute=store)


class MemoryDetailView(APIView):
    @extend_schema(responses=MemorySerializer)
    def get(self, request, memory_id: str):
        memory = memory_get_for(
            user=request.user, memory_id=memory_id, need=Access.READ, named_mind_id=named_mind_id(request)
        )
        return Response(MemorySerializer(memory).data)

    @extend_schema(request=MemoryInputSerializer(partial=True), responses=MemorySerializer)
    def patch(self, request, memory_id: str):
        """Change any subset of the writable fields; a (category, key) another memory holds is a 409."""
        memory = memory_get_for(
            user=request.user, memory_id=memory_id, need=Access.WRITE, named_mind_id=named_mind_id(request)
        )
        serializer = MemoryInputSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        result = memory_update(
            memory=memory,
            fields=serializer.validated_data,
            caller=caller_of(request.user),
            turn_id=current_turn_id_or_blank(),
        )
        return Response(MemorySerializer(result.memory).data)

    @extend_schema(request=MemoryInputSerializer(partial=True), responses=MemorySerializer)
    def put(self, request, memory_id: str):
        """Same as PATCH: the contract lets PUT send a subset of the fields too."""
        return self.patch(request, memory_id)

    @extend_schema(responses={200: MemoryDeletedSerializer})
    def delete(self, request, memory_id: str):
        """Delete the memory for good, erasing its copies (knots, summaries, replays, the log); only that it
        happened remains."""
        memory = memory_get_for(
            user=request.user, memory_id=memory_id, need=Access.WRITE, named_mind_id=named_mind_id(request)
        )
        deleted_id = memory_delete(memory=memory, caller=caller_of(request.user), turn_id=current_turn_id_or_blank())
        return Response(MemoryDeletedSerializer({"deleted": True, "id": deleted_id}).data)


class MemoryVersionsView(APIView):
    @extend_schema(request=None, responses={200: MemoryVersionsPurgedSerializer})
    def delete(self, request, memory_id: str):
        """Erase the memory's earlier versions, keeping the current one: after a PATCH took out a pasted
        secret, its old text leaves the net, the compaction summaries and the log."""
        memory = memory_get_for(
            user=request.user, memory_id=memory_id, need=Access.WRITE, named_mind_id=named_mind_id(request)
        )
        result = memory_versions_purge(
            memory=memory, caller=caller_of(request.user), turn_id=current_turn_id_or_blank()
        )
        return Response(MemoryVersionsPurgedSerializer(result).data)


class MemoryVerifyView(APIView):
    """POST /memory/{id}/verify (human, write access or more)."""

    permission_classes = [IsHuman]  # IsHuman requires an authenticated caller too (401 otherwise)
    service = staticmethod(memory_verify)

    @extend_schema(request=None, responses=MemorySerializer)
    def post(self, request, memory_id: str):
        memory = memory_get_for(
            user=request.user, memory_id=memory_id, need=Access.WRITE, named_mind_id=named_mind_id(request)
        )
        memory = self.service(memory=memory, caller=caller_of(request.user), turn_id=current_turn_id_or_blank())
        return Response(MemorySerializer(memory).data)


class MemoryUnverifyView(MemoryVerifyView):
    """POST /memory/{id}/unverify (human, write access or more)."""

    service = staticmethod(memory_unverify)


class MemorySyncView(APIView):
    @extend_schema(
        request=SyncRequestSerializer,
        parameters=[_IDEMPOTENCY_PARAMETER, _REPLAYED_PARAMETER],
        responses={200: SyncResultSerializer},
    )
    def post(self, request):
        """Upsert up to 1000 memories in one transaction; any invalid item → 400 by index, nothing written."""
        mind, _ = mind_from_request(request, need=Access.WRITE)

        def sync() -> tuple[int, dict]:
            serializer = SyncRequestSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            result = memories_sync(
                mind=mind,
                items=serializer.validated_data["memories"],
                caller=caller_of(request.user),
                turn_id=current_turn_id_or_blank(),
            )
            return 200, SyncResultSerializer(result).data

        return idempotent_response(request, mind=mind, execute=sync)


class MemoryAuditView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = MEMORY_LIST_LIMIT

    @extend_schema(
        parameters=[_choice_parameter("action", AuditAction.values, description="One audit action.")],
        responses=MemoryAuditSerializer(many=True),
    )
    def get(self, request):
        """Who changed which memory when, and which fields; newest first."""
        mind, _ = mind_from_request(request, need=Access.READ)
        action = AuditFilter(data=request.query_params).cleaned()["action"] or None
        rows = memory_audit_list(mind_id=mind.pk, action=action)
        return page_response(self, rows, MemoryAuditSerializer)


class MemoryDiffView(APIView):
    @extend_schema(parameters=[DiffQuerySerializer], responses=DiffSerializer)
    def get(self, request):
        """Memories changed and ids deleted in [since, now); pass `now` as `since` next time."""
        mind, _ = mind_from_request(request, need=Access.READ)
        diff = memory_diff(mind_id=mind.pk, **query_params(DiffQuerySerializer, request))
        return Response(DiffSerializer(diff).data)


class MemoryUnverifiedView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = MEMORY_LIST_LIMIT

    @extend_schema(responses=MemorySerializer(many=True))
    def get(self, request):
        """Memories no human verified yet, most recently updated first; expired ones left out."""
        mind, _ = mind_from_request(request, need=Access.READ)
        no_query_params(request, besides=PAGE_PARAMS)
        return page_response(self, memories_unverified(mind_id=mind.pk), MemorySerializer)


class MemoryExpiringView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = MEMORY_LIST_LIMIT

    @extend_schema(parameters=[ExpiringQuerySerializer], responses=MemorySerializer(many=True))
    def get(self, request):
        """Memories whose expires_at falls in (now, now + within], soonest first."""
        mind, _ = mind_from_request(request, need=Access.READ)
        query = query_params(ExpiringQuerySerializer, request, besides=PAGE_PARAMS)
        memories = memories_expiring(mind_id=mind.pk, within=query["within"])
        return page_response(self, memories, MemorySerializer)


class MemoryByTagView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = MEMORY_LIST_LIMIT

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "tag", {"type": "string", "maxLength": MAX_TAG_CHARS}, required=True, description="Case-insensitive."
            )
        ],
        responses=MemorySerializer(many=True),
    )
    def get(self, request):
        """Memories carrying `tag`; takes the filters of GET /memory too."""
        mind, _ = mind_from_request(request, need=Access.READ)
        filters = memory_list_filters(MemoryByTagFilter, request)
        return page_response(self, memory_list(mind_id=mind.pk, filters=filters), MemorySerializer)
