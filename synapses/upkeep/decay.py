"""The daily decay of the net's presence (docs/synapse-model.md §9) and its second step, retention.

    weight_present = presence_base · e^(−rate · days since reinforced_at)     (active knots)
    decayed_at     = now
    is_active      = false where weight_present < min_weight

One set-based UPDATE on the narrow presence table, so the whole net decays in one statement and
one transaction: a run killed half-way leaves every knot as it was before it (tested with
SIGKILL). Edges are not touched. Then pipeline-log rows older than LOG_RETENTION_DAYS go.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from pipelinelog.services import prune_log
from pipelinelog.spans import span
from synapses.config import synapse_settings
from synapses.constants import SECONDS_PER_DAY
from synapses.models import DecayRun, KnotPresence
from synapses.upkeep.sql import DECAY_SQL

# The presence table's name as the model declares it (the span records it).
_PRESENCE_TABLE = KnotPresence._meta.db_table


@dataclass(frozen=True)
class DecayResult:
    knots_decayed: int  # active knots whose presence was recomputed
    knots_deactivated: int  # of them, those that fell below min_weight
    log_rows_deleted: int  # pipeline-log rows past retention


def presence_decay(*, rate: float, min_weight: float, now: datetime) -> tuple[int, int]:
    """The decay statement and the record of its run: (knots decayed, knots deactivated). One transaction."""
    if rate < 0 or min_weight < 0:
        raise ValueError(f"rate and min_weight must be 0 or more (got rate={rate}, min_weight={min_weight})")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            DECAY_SQL, {"rate": rate, "min_weight": min_weight, "now": now, "seconds_per_day": SECONDS_PER_DAY}
        )
        decayed, deactivated = cursor.fetchone()
        DecayRun.objects.create(
            ran_at=now, rate=rate, min_weight=min_weight, knots_decayed=decayed, knots_deactivated=deactivated
        )
    return decayed, deactivated


def knots_decay(
    *, rate: float | None = None, min_weight: float | None = None, now: datetime | None = None
) -> DecayResult:
    """The daily job: decay every active knot's presence, then prune the pipeline log.

    `rate` (1/day) and `min_weight` default to DECAY_RATE and MIN_WEIGHT. The two steps are
    independent: the retention step runs even when the decay failed (and the error is raised
    after it), as the decay's result is committed before retention starts.
    """
    rate = synapse_settings.DECAY_RATE if rate is None else rate
    min_weight = synapse_settings.MIN_WEIGHT if min_weight is None else min_weight
    now = now or timezone.now()
    with span("synapses.decay") as sp:
        sp.input({"rate": rate, "min_weight": min_weight, "now": now, "seconds_per_day": SECONDS_PER_DAY})
        failure: BaseException | None = None
        decayed = deactivated = 0
        try:
            decayed, deactivated = presence_decay(rate=rate, min_weight=min_weight, now=now)
            sp.db_write({"table": _PRESENCE_TABLE, "operation": "update", "rows": decayed, "deactivated": deactivated})
        except Exception as error:  # the next step still runs; the error is raised at the end
            sp.error({"step": "decay", "type": type(error).__name__, "message": str(error)[:500]})
            failure = error
        deleted = prune_log(now=now)
        result = DecayResult(knots_decayed=decayed, knots_deactivated=deactivated, log_rows_deleted=deleted)
        sp.output(
            {
                "knots_decayed": result.knots_decayed,
                "knots_deactivated": result.knots_deactivated,
                "log_rows_deleted": result.log_rows_deleted,
            }
        )
        if failure is not None:
            raise failure
    return result
