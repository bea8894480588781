"""Kept for old imports (synapses/tasks.py until it names the new path); see memoryproject/embedded/outage.py."""

from memoryproject.embedded.outage import (
    DATABASE_OUTAGE_ERRORS,
    DATABASE_RETRY_AFTER_SECONDS,
    TASK_SKIPPED_FOR_OUTAGE,
    OutageLogFilter,
    OutageState,
    is_database_outage,
    outage,
    waits_out_outages,
)

__all__ = [
    "DATABASE_OUTAGE_ERRORS",
    "DATABASE_RETRY_AFTER_SECONDS",
    "TASK_SKIPPED_FOR_OUTAGE",
    "OutageLogFilter",
    "OutageState",
    "is_database_outage",
    "outage",
    "waits_out_outages",
]
