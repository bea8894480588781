"""The memory object's `knot_id`: the knot holding the memory's current content, or None while
the memory waits for promotion. The net answers it through `memoryproject.contributions` (the
memories app never imports the net)."""

from __future__ import annotations

from collections.abc import Iterable

from memories.models import Memory
from memoryproject.contributions import contributed_knot_ids


def memories_knot_ids_attach(memories: Iterable[Memory]) -> None:
    """Sets `knot_id` on each memory that has none yet, with one query for all of them.

    Only memories with `promoted_at` set are asked about: a memory never promoted (or whose knot
    went) has no link, so a page of fresh memories costs no query at all. One promoted earlier
    and edited since is asked, and answers None (its link is for its old content hash)."""
    unknown = [memory for memory in memories if not hasattr(memory, "knot_id")]
    asked: dict[str, list[tuple[str, str]]] = {}
    for memory in unknown:
        memory.knot_id = None
        if memory.promoted_at is not None:
            asked.setdefault(memory.mind_id, []).append((memory.pk, memory.content_hash))
    for mind_id, versions in asked.items():
        found = contributed_knot_ids(mind_id, versions)
        for memory in unknown:
            if memory.pk in found:
                memory.knot_id = found[memory.pk]
