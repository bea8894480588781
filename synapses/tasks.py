"""Thin django-q2 entry points of the synapse model. Tasks take ids, never model instances."""

from __future__ import annotations

from dataclasses import asdict

from synapses.services.decay import knots_decay as knots_decay_service


def memory_promote(memory_id: str) -> None:
    """Promote one memory into the long-term net.

    Enqueued on commit after every memory write. The promotion itself (knots, edges) arrives
    with the synapse write path; until then there is nothing to do, and the task exists so the
    write path already enqueues it and operators see it in the worker's history.
    """


def memories_promote(memory_ids: list[str]) -> None:
    """Promote a batch of memories (enqueued once per /memory/sync instead of once per memory)."""
    for memory_id in memory_ids:
        memory_promote(memory_id)


def knots_decay() -> dict[str, int]:
    """The daily decay and pipeline-log retention (memoryproject/schedules.py): its counts."""
    return asdict(knots_decay_service())
