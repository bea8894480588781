"""Thin django-q2 entry points of the synapse model. Tasks take ids, never model instances."""

from __future__ import annotations

from dataclasses import asdict

from synapses.services.decay import knots_decay as knots_decay_service
from synapses.services.promotion import memories_promote as memories_promote_service


def memories_promote(memory_ids: list[str]) -> dict[str, int | str]:
    """Promote those of `memory_ids` that are pending and mature (enqueued on commit after every
    memory write, once per transaction); the others wait for the sweep. Its counts."""
    return memories_promote_service(memory_ids=memory_ids).as_dict()


def memory_promote(memory_id: str) -> dict[str, int | str]:
    """One memory (tasks enqueued before batches existed still name this)."""
    return memories_promote(memory_ids=[memory_id])


def promotion_sweep() -> dict[str, int | str]:
    """Every minute (memoryproject/schedules.py): the longest-waiting pending, mature memories of
    every mind, at most PROMOTION_BATCH_SIZE. Catches what matured by age, what failed before
    and tasks that were lost."""
    return memories_promote_service().as_dict()


def knots_decay() -> dict[str, int]:
    """The daily decay and pipeline-log retention (memoryproject/schedules.py): its counts."""
    return asdict(knots_decay_service())
