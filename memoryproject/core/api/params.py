"""Query parameters of the memory endpoints that are not django-filter lists: validated by a
serializer, and strict like the lists (docs/api-memory.md → "Strict parameters"): a parameter the
endpoint does not take is a 400 naming it, so a typo like `?limt=5` is never silently ignored."""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework import serializers
from rest_framework.request import Request

from memoryproject.core.api.strict import unknown_params_reject

# The parameter a human names the mind with (minds.api.request_mind.mind_from_request); every endpoint takes it …
MIND_PARAM = "mind"
# … or the header that does the same.
MIND_HEADER = "X-Mind"
# Paging parameters of a list (memoryproject.core.pagination.LimitOffsetPaging).
PAGE_PARAMS = ("limit", "offset")


def query_params(
    serializer_class: type[serializers.Serializer],
    request: Request,
    *,
    besides: Iterable[str] = (),
    context: dict | None = None,
) -> dict:
    """The request's query parameters validated by `serializer_class` (with `context`, e.g. what
    the mind allows): 400 naming every parameter the serializer does not declare (besides `mind`
    and `besides`, which something else reads, such as PAGE_PARAMS), else 400 naming every bad value."""
    serializer = serializer_class(data=request.query_params.dict(), context=context or {})
    unknown_params_reject(request.query_params, [*serializer.fields, *besides, MIND_PARAM])
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def no_query_params(request: Request, *, besides: Iterable[str] = ()) -> None:
    """For an endpoint without parameters of its own: 400 naming any but `mind` and `besides`
    (parameters something else reads, such as PAGE_PARAMS)."""
    unknown_params_reject(request.query_params, [*besides, MIND_PARAM])
