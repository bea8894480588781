"""Reading memories of a mind."""

from __future__ import annotations

from django.db.models import QuerySet
from rest_framework.exceptions import NotFound

from memories.access import Access, mind_require
from memories.models import Memory

MEMORY_NOT_FOUND = "No memory with this id is visible to you."


def memories_of(mind_id: str) -> QuerySet[Memory]:
    """The mind's memories with what the memory object needs joined in. Every query filters by mind."""
    return Memory.objects.filter(mind_id=mind_id).select_related("verified_by").defer("embedding", "search_vector")


def memory_get_for(*, user, memory_id: str, need: Access) -> Memory:
    """A memory by id, if `user` may act on its mind at level `need` (404 when invisible, 403 when too low)."""
    memory = (
        Memory.objects.select_related("mind", "verified_by")
        .defer("embedding", "search_vector")
        .filter(pk=memory_id)
        .first()
    )
    if memory is None:
        raise NotFound(MEMORY_NOT_FOUND)
    try:
        mind_require(user=user, mind=memory.mind, need=need)
    except NotFound:
        raise NotFound(MEMORY_NOT_FOUND) from None
    return memory
