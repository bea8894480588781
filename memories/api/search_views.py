"""GET /memory/search (hybrid: full text + vectors) and GET /memory/semantic-search (vectors only)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.api.search_serializers import (
    SearchQuerySerializer,
    SearchResponseSerializer,
    SemanticSearchQuerySerializer,
    SemanticSearchResponseSerializer,
)
from memories.selectors.search import memories_search, memories_semantic_search
from memoryproject.core.api.params import query_params
from memoryproject.core.schema import error_responses
from minds.access import Access
from minds.api.request_mind import mind_from_request


class SearchView(APIView):
    @extend_schema(
        parameters=[SearchQuerySerializer],
        responses={200: SearchResponseSerializer, **error_responses(400, 401, 403, 404)},
    )
    def get(self, request):
        """Hybrid search: PostgreSQL full text (websearch syntax) and vector similarity, fused by
        reciprocal rank. Each result is the memory plus `score` and `matched`."""
        mind, _ = mind_from_request(request, need=Access.READ)
        query = query_params(SearchQuerySerializer, request)
        hits = memories_search(
            mind_id=mind.pk,
            q=query["q"],
            limit=query["limit"],
            tag=query.get("tag"),
            category=query.get("category"),
            mind_embedder=mind.embedding_model,
        )
        body = {"query": query["q"], "limit": query["limit"], "count": len(hits), "results": hits}
        return Response(SearchResponseSerializer(body).data)


class SemanticSearchView(APIView):
    @extend_schema(
        parameters=[SemanticSearchQuerySerializer],
        responses={200: SemanticSearchResponseSerializer, **error_responses(400, 401, 403, 404)},
    )
    def get(self, request):
        """Vector similarity only: memories whose cosine similarity to `q` is at least `threshold`."""
        mind, _ = mind_from_request(request, need=Access.READ)
        query = query_params(SemanticSearchQuerySerializer, request)
        hits = memories_semantic_search(
            mind_id=mind.pk,
            q=query["q"],
            limit=query["limit"],
            threshold=query["threshold"],
            mind_embedder=mind.embedding_model,
        )
        body = {
            "query": query["q"],
            "limit": query["limit"],
            "threshold": query["threshold"],
            "count": len(hits),
            "results": hits,
        }
        return Response(SemanticSearchResponseSerializer(body).data)
