"""A memory promoted by hand: its knot (tests/synapses/conftest.py's knot_make) and the link
that says the knot holds the memory's current content, as the promotion writes them."""

from __future__ import annotations

from memories.models import Memory
from synapses.models import Knot, LinkKind, MemoryKnot
from tests.synapses.conftest import knot_make


def memory_promote_by_hand(memory: Memory, *, is_active: bool = True) -> Knot:
    knot = knot_make(memory, is_active=is_active)
    MemoryKnot.objects.create(
        mind=memory.mind, memory=memory, content_hash=memory.content_hash, knot=knot, kind=LinkKind.ORIGIN
    )
    memory.refresh_from_db()
    return knot
