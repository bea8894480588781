"""The tables the net's hand-written statements name, in one mapping (from the models, so a renamed
table changes here only). Statements are written whole with `{knot}`, `{presence}`, … and
formatted with TABLES once, at import: never per call.
"""

from __future__ import annotations

from memories.models import Memory, PendingPromotion
from synapses.models import DecayRun, Edge, Entity, Goal, Knot, KnotPresence, MemoryKnot, PromotionAttempt

TABLES: dict[str, str] = {
    "knot": Knot._meta.db_table,
    "presence": KnotPresence._meta.db_table,
    "edge": Edge._meta.db_table,
    "link": MemoryKnot._meta.db_table,
    "entity": Entity._meta.db_table,
    "goal": Goal._meta.db_table,
    "attempt": PromotionAttempt._meta.db_table,
    "decay_run": DecayRun._meta.db_table,
    "memory": Memory._meta.db_table,
    "pending": PendingPromotion._meta.db_table,
}
