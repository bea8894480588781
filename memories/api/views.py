"""The memory API: thin views that validate, call one service or selector, and serialize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.access import Access, caller_of, mind_from_request
from memories.api.serializers import MemoryInputSerializer, MemorySerializer, MemoryStoredSerializer
from memories.selectors.memory import memory_get_for
from memories.services.memory import memory_store


def turn_id_of(request) -> str:
    """The request's turn id (set by the pipeline-log middleware, else the client's header)."""
    return (getattr(request, "turn_id", None) or request.headers.get("X-Turn-Id", ""))[:100]


class MemoryCollectionView(APIView):
    @extend_schema(request=MemoryInputSerializer, responses={200: MemoryStoredSerializer, 201: MemoryStoredSerializer})
    def post(self, request):
        """Store a memory, or update the one with the same category and key (upsert)."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        serializer = MemoryInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = memory_store(
            mind=mind, fields=serializer.validated_data, caller=caller_of(request.user), turn_id=turn_id_of(request)
        )
        body = {**MemorySerializer(result.memory).data, "created": result.created}
        return Response(body, status=201 if result.created else 200)


class MemoryDetailView(APIView):
    @extend_schema(responses=MemorySerializer)
    def get(self, request, memory_id: str):
        memory = memory_get_for(user=request.user, memory_id=memory_id, need=Access.READ)
        return Response(MemorySerializer(memory).data)
