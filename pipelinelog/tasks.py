"""Thin django-q2 entry points of the pipeline log.

Retention has none of its own: it is the second step of the daily decay job
(`synapses.tasks.knots_decay`), so one schedule owns it; `manage.py prune_log` runs it by hand.
"""

from __future__ import annotations

from memoryproject.embedded.outage import waits_out_outages
from pipelinelog.erasure import erasures_apply


@waits_out_outages
def erasure_apply() -> dict[str, int]:
    """Erase what deleted memories left in the log and the task rows (pipelinelog.erasure): run
    30 s after each deletion by a one-off schedule, and hourly."""
    return erasures_apply()
