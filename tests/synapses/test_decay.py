"""The daily decay (docs/synapse-model.md §9) against the real database."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django_q.models import Schedule

from pipelinelog.models import LogEntry
from synapses.models import DecayRun, Edge, KnotPresence
from synapses.net.presence import knot_half_reactivate
from synapses.tasks import knots_decay as knots_decay_task
from synapses.upkeep.decay import knots_decay
from tests.factories import knot_make, memory_make

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 1, 3, 0, tzinfo=UTC)


def presence_of(knot) -> KnotPresence:
    return KnotPresence.objects.select_related("knot").get(knot=knot)


def test_anchor_5_after_30_days_at_rate_0_02_decays_to_2_7441(mind):
    knot = knot_make(
        memory=memory_make(mind=mind.mind, key="k"), weight_anchor=5.0, reinforced_at=NOW - timedelta(days=30)
    )

    result = knots_decay(rate=0.02, min_weight=0.1, now=NOW)

    presence = presence_of(knot)
    assert presence.weight_present == pytest.approx(2.7441, abs=0.00005)
    assert presence.decayed_at == NOW
    assert presence.is_active
    assert presence.presence_base == 5.0  # decay runs from it, it is not moved
    assert presence.knot.weight_anchor == 5.0  # decay never touches the anchor
    assert (result.knots_decayed, result.knots_deactivated) == (1, 0)


def test_half_reactivation_of_anchor_4_with_minimum_0_5_gives_2_25_and_decay_continues_from_it(mind):
    knot = knot_make(
        memory=memory_make(mind=mind.mind, key="k"),
        weight_anchor=4.0,
        presence=0.3,
        reinforced_at=NOW - timedelta(days=900),
    )
    KnotPresence.objects.filter(knot=knot).update(is_active=False)

    knot_half_reactivate(presence=presence_of(knot), min_weight=0.5, now=NOW)
    presence = presence_of(knot)
    assert (presence.weight_present, presence.presence_base, presence.is_active) == (2.25, 2.25, True)
    assert (presence.knot.weight_anchor, presence.knot.weight_raw, presence.knot.activation_count) == (4.0, 0.5, 1)

    knots_decay(rate=0.02, min_weight=0.5, now=NOW + timedelta(days=30))

    # 2.25 · e^(−0.6) = 1.2348; from the anchor it would have been 4.0 · e^(−0.6) = 2.1952.
    assert presence_of(knot).weight_present == pytest.approx(1.2348, abs=0.00005)


def test_a_knot_below_the_minimum_weight_is_deactivated_and_no_longer_decayed(mind):
    fading = knot_make(
        memory=memory_make(mind=mind.mind, key="fading"), weight_anchor=0.2, reinforced_at=NOW - timedelta(days=60)
    )
    strong = knot_make(
        memory=memory_make(mind=mind.mind, key="strong"), weight_anchor=5.0, reinforced_at=NOW - timedelta(days=60)
    )

    result = knots_decay(rate=0.02, min_weight=0.1, now=NOW)

    assert (result.knots_decayed, result.knots_deactivated) == (2, 1)
    assert presence_of(fading).is_active is False
    assert presence_of(fading).weight_present == pytest.approx(0.2 * 2.718281828**-1.2, abs=1e-6)
    assert presence_of(strong).is_active is True

    again = knots_decay(rate=0.02, min_weight=0.1, now=NOW + timedelta(days=1))
    assert again.knots_decayed == 1
    assert presence_of(fading).decayed_at == NOW


def test_decay_leaves_edges_as_they_were(mind):
    a = knot_make(
        memory=memory_make(mind=mind.mind, key="a"), weight_anchor=5.0, reinforced_at=NOW - timedelta(days=400)
    )
    b = knot_make(
        memory=memory_make(mind=mind.mind, key="b"), weight_anchor=0.15, reinforced_at=NOW - timedelta(days=400)
    )
    Edge.objects.create(
        mind=mind.mind, source=a, target=b, weight_raw=2.5, weight_anchor=6.1, layers=["entity"], layer_count=1
    )
    before = list(Edge.objects.values())

    knots_decay(rate=0.02, min_weight=0.1, now=NOW)

    assert list(Edge.objects.values()) == before


def test_a_reinforcement_in_the_future_of_the_run_does_not_raise_the_presence(mind):
    knot = knot_make(
        memory=memory_make(mind=mind.mind, key="k"), weight_anchor=3.0, reinforced_at=NOW + timedelta(days=2)
    )
    knots_decay(rate=0.02, min_weight=0.1, now=NOW)
    assert presence_of(knot).weight_present == 3.0


def test_a_negative_rate_is_refused_and_retention_still_runs(mind, settings):
    settings.LOG_RETENTION_DAYS = 1
    knot = knot_make(
        memory=memory_make(mind=mind.mind, key="k"), weight_anchor=3.0, reinforced_at=NOW - timedelta(days=10)
    )
    LogEntry.objects.create(
        created_at=datetime(2020, 1, 1, tzinfo=UTC), turn_id="old", source="system", node="x", kind="note"
    )

    with pytest.raises(ValueError, match="rate and min_weight must be 0 or more"):
        knots_decay(rate=-0.1, min_weight=0.1, now=NOW)

    assert presence_of(knot).weight_present == 3.0
    assert not LogEntry.objects.filter(turn_id="old").exists()


def test_the_run_prunes_the_log_and_writes_one_span_with_its_counts(mind, settings):
    settings.LOG_RETENTION_DAYS = 30
    knot_make(memory=memory_make(mind=mind.mind, key="k"), weight_anchor=0.12, reinforced_at=NOW - timedelta(days=30))
    knot_make(memory=memory_make(mind=mind.mind, key="l"), weight_anchor=5.0, reinforced_at=NOW - timedelta(days=30))
    LogEntry.objects.create(created_at=NOW - timedelta(days=31), turn_id="old", source="system", node="x", kind="note")

    result = knots_decay(rate=0.02, min_weight=0.1, now=NOW)

    assert result.log_rows_deleted == 1
    output = LogEntry.objects.get(node="synapses.decay", kind="output")
    assert output.content == {"knots_decayed": 2, "knots_deactivated": 1, "log_rows_deleted": 1}
    assert LogEntry.objects.filter(node="synapses.decay", kind="span_start").count() == 1


def test_the_command_and_the_task_decay(mind):
    knot = knot_make(
        memory=memory_make(mind=mind.mind, key="k"), weight_anchor=5.0, reinforced_at=NOW - timedelta(days=30)
    )
    out = io.StringIO()

    call_command("decay", "--rate", "0.02", "--min-weight", "3", stdout=out)

    assert "decayed 1 knots, deactivated 1" in out.getvalue()
    assert presence_of(knot).is_active is False
    KnotPresence.objects.filter(knot=knot).update(is_active=True)
    assert knots_decay_task()["knots_decayed"] == 1


def test_the_command_refuses_a_negative_minimum(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="must be 0 or more"):
        call_command("decay", "--min-weight", "-1")


def test_syncing_the_schedules_makes_one_daily_job_for_decay_and_retention(db):
    Schedule.objects.create(name="synapse:pipelinelog-prune", func="pipelinelog.tasks.prune_log", schedule_type="D")

    call_command("sync_schedules", stdout=io.StringIO())

    schedule = Schedule.objects.get(name="synapse:synapses-decay")
    assert (schedule.func, schedule.schedule_type) == ("synapses.tasks.knots_decay", Schedule.DAILY)
    assert not Schedule.objects.filter(name="synapse:pipelinelog-prune").exists()


def test_each_finished_run_is_recorded_and_health_reports_the_last(mind):
    assert mind.agent.get("/memory/health").json()["last_decay_at"] is None  # never ran
    knot_make(
        memory=memory_make(mind=mind.mind, key="fading"), weight_anchor=0.2, reinforced_at=NOW - timedelta(days=60)
    )
    knot_make(
        memory=memory_make(mind=mind.mind, key="strong"), weight_anchor=5.0, reinforced_at=NOW - timedelta(days=60)
    )

    knots_decay(rate=0.02, min_weight=0.1, now=NOW)
    knots_decay(rate=0.02, min_weight=0.1, now=NOW + timedelta(days=1))

    runs = DecayRun.objects.order_by("ran_at").values_list("ran_at", "rate", "min_weight", "knots_decayed",
                                                           "knots_deactivated")  # fmt: skip
    assert list(runs) == [(NOW, 0.02, 0.1, 2, 1), (NOW + timedelta(days=1), 0.02, 0.1, 1, 0)]
    assert mind.agent.get("/memory/health").json()["last_decay_at"] == "2026-06-02T03:00:00Z"


def test_a_refused_run_records_nothing(mind):
    with pytest.raises(ValueError):
        knots_decay(rate=-0.1, min_weight=0.1, now=NOW)
    assert not DecayRun.objects.exists()
