"""Every recurring job of the product, declared in one place.

`manage.py sync_schedules` makes the django-q2 Schedule rows match this list (by name), so
a human sees them in the admin and nothing is scheduled at import time. Apps add their jobs
here as they gain them.
"""

from __future__ import annotations

from dataclasses import dataclass

# Every schedule we own has a name starting with this; others (made by hand in the admin) are left alone.
SCHEDULE_NAME_PREFIX = "synapse:"


@dataclass(frozen=True)
class ScheduleSpec:
    name: str  # without SCHEDULE_NAME_PREFIX
    func: str  # dotted path of a thin task in <app>/tasks.py
    schedule_type: str  # django_q.models.Schedule.MINUTES, DAILY, …
    minutes: int | None = None  # for MINUTES schedules: the interval

    @property
    def full_name(self) -> str:
        return SCHEDULE_NAME_PREFIX + self.name


SCHEDULES: list[ScheduleSpec] = [
    # Pending, mature memories become knots: what matured by age, failed before or lost its task (Schedule.MINUTES).
    ScheduleSpec(name="promotion-sweep", func="synapses.tasks.promotion_sweep", schedule_type="I", minutes=1),
    # The net's presence decays, then pipeline-log rows older than LOG_RETENTION_DAYS go (Schedule.DAILY).
    ScheduleSpec(name="synapses-decay", func="synapses.tasks.knots_decay", schedule_type="D"),
    # Idempotency-Key records older than 24 h are forgotten (Schedule.DAILY).
    ScheduleSpec(name="idempotency-purge", func="memories.tasks.idempotency_records_purge", schedule_type="D"),
    # Expired refresh tokens leave simplejwt's outstanding and blacklist tables, expired logouts
    # theirs (Schedule.DAILY).
    ScheduleSpec(name="tokens-flush", func="minds.tasks.tokens_flush_expired", schedule_type="D"),
    # What deleted memories left in the log and the task rows goes; each deletion also schedules a
    # run 30 s after it, and this one catches what such a run missed (Schedule.HOURLY).
    ScheduleSpec(name="log-erasure", func="pipelinelog.tasks.erasure_apply", schedule_type="H"),
]
