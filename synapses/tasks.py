"""Thin django-q2 entry points of the synapse model. Tasks take ids, never model instances."""

from __future__ import annotations

from dataclasses import asdict

from django_q.tasks import async_task

from memoryproject.embedded.outage import waits_out_outages
from synapses.config import synapse_settings
from synapses.promotion.service import memories_promote as memories_promote_service
from synapses.upkeep.decay import knots_decay as knots_decay_service
from synapses.upkeep.pending_uses import pending_uses_apply

# This module's own path, by which a task hands the rest of a long list to another task.
_PROMOTE_TASK = "synapses.tasks.memories_promote"


@waits_out_outages
def memories_promote(memory_ids: list[str]) -> dict[str, int | str]:
    """Promote those of `memory_ids` that are pending and mature (enqueued on commit after every
    memory write, once per transaction); the others wait for the sweep. Its counts.

    A list longer than PROMOTION_BATCH_SIZE (an import, a large sync) is cut: the rest goes to a
    new task first, which another worker can take at once, so no task outgrows the worker's
    timeout and two workers share a long list.
    """
    batch = synapse_settings.PROMOTION_BATCH_SIZE
    head, rest = list(memory_ids[:batch]), list(memory_ids[batch:])
    if rest:
        async_task(_PROMOTE_TASK, rest)
    summary = memories_promote_service(memory_ids=head).as_dict()
    # Uses an answer made of these memories before they were promoted go to their knots now.
    applied = pending_uses_apply(memory_ids=head)
    return {**summary, "handed_on": len(rest), "pending_uses_applied": applied.uses}


def memory_promote(memory_id: str) -> dict[str, int | str]:
    """One memory (tasks enqueued before batches existed still name this)."""
    return memories_promote(memory_ids=[memory_id])


@waits_out_outages
def promotion_sweep() -> dict[str, int | str]:
    """Every minute (memoryproject/schedules.py): the longest-waiting pending, mature memories of
    every mind, at most PROMOTION_BATCH_SIZE. Catches what matured by age, what failed before
    and tasks that were lost. Then the recorded uses of every version promoted since (by it, a
    task, the command) go to their knots."""
    summary = memories_promote_service().as_dict()
    return {**summary, "pending_uses_applied": pending_uses_apply().uses}


@waits_out_outages
def knots_decay() -> dict[str, int | str]:
    """The daily decay and pipeline-log retention (memoryproject/schedules.py): its counts."""
    return asdict(knots_decay_service())
