"""Limit/offset paging for every list of the API.

A list body is `{"count": total, "limit", "offset", "results": [...]}`. A bad `limit` or
`offset` is a 400 naming the parameter: a client that asks for something odd should learn so,
not silently get a different page.

Usage in an APIView:

    class ThingListView(APIView):
        pagination_class = LimitOffsetPaging
        page_default_limit = 20  # else DEFAULT_PAGE_LIMIT

        def get(self, request):
            return page_response(self, things_list(...), ThingSerializer)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from memoryproject.core.api.fields import QueryIntegerField
from memoryproject.core.page_limits import DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT


class _PageParams(serializers.Serializer):
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT)
    offset = QueryIntegerField(required=False, min_value=0)


class LimitOffsetPaging(LimitOffsetPagination):
    """DRF's limit/offset paging, strict, with the contract's body and a per-view default.

    A view chooses its page size with the attribute `page_default_limit`.
    """

    default_limit = DEFAULT_PAGE_LIMIT
    max_limit = MAX_PAGE_LIMIT
    template = None  # no browsable-API page controls

    def paginate_queryset(self, queryset, request, view=None) -> list:
        self.request = request
        self.limit, self.offset = self.get_limit_and_offset(request, view)
        self.count = self.get_count(queryset)
        if self.offset >= self.count:
            # Also keeps absurd offsets away from the database.
            return []
        return list(queryset[self.offset : self.offset + self.limit])

    def view_default_limit(self, view) -> int:
        return getattr(view, "page_default_limit", None) or self.default_limit

    def get_limit_and_offset(self, request, view) -> tuple[int, int]:
        """Both parameters, checked together so every bad one is named in one 400."""
        params = _PageParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        limit = params.validated_data.get(self.limit_query_param, self.view_default_limit(view))
        return limit, params.validated_data.get(self.offset_query_param, 0)

    def get_paginated_response(self, data) -> Response:
        return Response({"count": self.count, "limit": self.limit, "offset": self.offset, "results": data})

    def get_paginated_response_schema(self, schema: dict) -> dict:
        return {
            "type": "object",
            "required": ["count", "limit", "offset", "results"],
            "properties": {
                "count": {"type": "integer", "description": "Total number of items, across all pages."},
                "limit": {"type": "integer", "description": "The page size used."},
                "offset": {"type": "integer", "description": "Index of the first item of this page."},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {
                "name": self.limit_query_param,
                "required": False,
                "in": "query",
                "description": f"Items per page (1–{self.max_limit}).",
                "schema": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_limit,
                    "default": self.view_default_limit(view),
                },
            },
            {
                "name": self.offset_query_param,
                "required": False,
                "in": "query",
                "description": "Index of the first item to return.",
                "schema": {"type": "integer", "minimum": 0, "default": 0},
            },
        ]


def page_response(
    view,
    items: Sequence[Any],
    serializer_class: type[serializers.BaseSerializer],
    *,
    context: dict | None = None,
) -> Response:
    """One page of `items` (a queryset or a list), serialized, in the list body of the contract.

    `view` must set `pagination_class` (drf-spectacular reads it to document the body).
    """
    paginator = view.pagination_class()
    page = paginator.paginate_queryset(items, view.request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True, context=context or {}).data)
