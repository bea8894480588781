"""The memory object's `knot_id` and `promoted_at`: the knot holding the memory's current content
and when its link was made, or None while the memory waits for promotion. The net answers through
`memoryproject.core.contributions` (the memories app never imports the net)."""

from __future__ import annotations

from collections.abc import Iterable

from memories.models import Memory
from memoryproject.core.contributions import contributed_knot_ids


def memories_knot_ids_attach(memories: Iterable[Memory]) -> None:
    """Sets `knot_id` and `promoted_at` on each memory that has none yet, with one query for all of them.

    Only memories not known to be pending are asked about (`Memory.promotion_pending`, read with
    the row by memories_of): a pending memory has no link for its content, so a page of fresh
    memories costs no query at all. One whose row was read before an edit in the same request is
    asked, and answers None (its link is for its old content hash)."""
    unknown = [memory for memory in memories if not hasattr(memory, "knot_id")]
    asked: dict[str, list[tuple[str, str]]] = {}
    for memory in unknown:
        memory.knot_id, memory.promoted_at = None, None
        if memory.promotion_pending is not True:
            asked.setdefault(memory.mind_id, []).append((memory.pk, memory.content_hash))
    for mind_id, versions in asked.items():
        found = contributed_knot_ids(mind_id, versions)
        for memory in unknown:
            link = found.get(memory.pk)
            if link is not None:
                memory.knot_id, memory.promoted_at = link.knot_id, link.linked_at
