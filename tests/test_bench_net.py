"""The long-term net's benchmark parts: the COPY-built fixture, the decay rounds, the tables.

Speed is never asserted (benchmarks measure it); these tests check that the fixture holds what
its docstring says and that the decay bench measures the service and its bare statement alike.
"""

from __future__ import annotations

import math
import os
import re
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone

from bench.decay import decay_rounds
from bench.decay import table as decay_table
from bench.promotion import table as promotion_table
from tests.processes import wait_for


def _index_names() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename IN ('synapses_knot', 'memories_memory')")
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_the_net_fixture_holds_one_presence_and_one_origin_link_per_knot_and_edges_both_ways():
    from bench.net_fixture import ENTITY_NAMES, net_build
    from memories.models import Memory
    from synapses.models import Edge, Entity, Knot, KnotPresence, LinkKind, MemoryKnot

    indexes_before = _index_names()
    net = net_build(knots=300, distinct=100, seed=3, edge_pairs=2)

    knots = Knot.objects.filter(mind_id=net.mind_id)
    assert (net.knots, knots.count()) == (300, 300)
    assert Memory.objects.filter(mind_id=net.mind_id, pending_row__isnull=True).count() == 100
    # The 100 base knots hold their memory's content; the 200 repeats are further versions of them.
    assert knots.exclude(content="").count() == 100
    assert knots.values("memory_id", "content_hash").distinct().count() == 300
    assert not knots.exclude(content="").exclude(content=F("memory__content")).exists()
    assert KnotPresence.objects.filter(knot__mind_id=net.mind_id).count() == 300
    assert MemoryKnot.objects.filter(mind_id=net.mind_id, kind=LinkKind.ORIGIN).count() == 300
    assert Entity.objects.filter(mind_id=net.mind_id).count() == len(ENTITY_NAMES)

    # A knot's entities are names its content holds as words.
    name_of = {pk: name for name, pk in net.entity_ids.items()}
    for knot in knots.exclude(content="").exclude(entities=[])[:20]:
        assert all(re.search(rf"(?<![\w-]){name_of[entity]}(?![\w-])", knot.content) for entity in knot.entities)

    edges = Edge.objects.filter(mind_id=net.mind_id)
    pairs = set(edges.values_list("source_id", "target_id"))
    assert len(pairs) == net.edges > 0
    assert all((target, source) in pairs for source, target in pairs)
    assert not edges.filter(source_id=F("target_id")).exists()
    for edge in edges.select_related("source", "target")[:50]:
        low, high = sorted((edge.source.weight_anchor, edge.target.weight_anchor))
        assert low - 1e-9 <= edge.weight_raw <= high + 1e-9

    # Presence: inactive exactly where it fell below MIN_WEIGHT, and some knots faded.
    from synapses.config import synapse_settings

    presence = KnotPresence.objects.filter(knot__mind_id=net.mind_id)
    assert presence.filter(is_active=False).exists()
    assert not presence.filter(is_active=False, weight_present__gte=synapse_settings.MIN_WEIGHT).exists()
    assert not presence.filter(is_active=True, weight_present__lt=synapse_settings.MIN_WEIGHT).exists()
    # Every index dropped for the load is back.
    assert _index_names() == indexes_before


@pytest.mark.django_db(transaction=True)
def test_a_decay_round_runs_the_service_and_the_bare_statement_on_the_same_knots_in_alternating_order():
    from bench.net_fixture import net_build
    from synapses.config import synapse_settings
    from synapses.models import KnotPresence

    net = net_build(knots=200, distinct=50, seed=4, edge_pairs=0, hnsw=False)
    active = KnotPresence.objects.filter(knot__mind_id=net.mind_id, is_active=True).count()
    start = timezone.now()

    measured = decay_rounds(rounds=2, start=start)

    assert [row["kind"] for row in measured] == ["service", "bare", "bare", "service"]
    assert measured[0]["knots_decayed"] == active
    # Each run decays the knots still active after the one before.
    for before, after in zip(measured, measured[1:], strict=False):
        assert after["knots_decayed"] == before["knots_decayed"] - before["knots_deactivated"]
    # The last run (day 4) left every active knot at presence_base · e^(−rate · days since reinforced_at).
    last = start + timedelta(days=4)
    rate = synapse_settings.DECAY_RATE
    for row in KnotPresence.objects.filter(knot__mind_id=net.mind_id, is_active=True)[:20]:
        days = (last - row.reinforced_at).total_seconds() / 86_400
        assert row.weight_present == pytest.approx(row.presence_base * math.exp(-rate * days), rel=1e-9)
        assert row.decayed_at == last


def _decay_run(kind: str, seconds: float) -> dict:
    return {"round": 1, "kind": kind, "seconds": seconds, "knots_decayed": 10, "knots_per_s": 10 / seconds}


def test_the_decay_table_judges_the_slowest_service_run_against_fifteen_seconds_per_million_knots():
    fast = [_decay_run("service", 9.0), _decay_run("service", 14.0), _decay_run("bare", 8.0)]
    slow = [_decay_run("service", 9.0), _decay_run("service", 16.0), _decay_run("bare", 8.0)]

    assert decay_table(fast, knots=1_000_000).splitlines()[-1].endswith(": met")
    assert decay_table(slow, knots=1_000_000).splitlines()[-1].endswith(": not met")
    assert "bound" not in decay_table(fast, knots=2_000)


def _promotion_row(workers: int, per_s: float) -> dict:
    pairs = {"knots_created": 100, "edge_pairs_mean": 3.0, "edge_pairs_max": 7, "max_edge_pairs_per_knot": 50}
    return {"workers": workers, "promoted": 100, "seconds": 100 / per_s, "memories_per_s": per_s, **pairs}


def test_the_promotion_table_judges_the_two_worker_row_against_a_hundred_memories_a_second():
    assert promotion_table([_promotion_row(1, 80.0), _promotion_row(2, 120.0)], knots=100).endswith(": met")
    assert promotion_table([_promotion_row(1, 120.0), _promotion_row(2, 90.0)], knots=100).endswith(": not met")
    assert "goal" not in promotion_table([_promotion_row(1, 120.0)], knots=100)


def test_the_cpu_per_memory_sums_the_workers_and_is_unknown_when_one_worker_could_not_measure_it():
    from bench.promotion import cpu_per_memory

    reports = [{"server_cpu_s": 1.5}, {"server_cpu_s": 0.5}]
    assert cpu_per_memory(reports, "server_cpu_s", 100) == 20.0  # (1.5 + 0.5) s over 100 memories
    assert cpu_per_memory([{"server_cpu_s": 1.5}, {"server_cpu_s": None}], "server_cpu_s", 100) is None
    assert cpu_per_memory(reports, "server_cpu_s", 0) is None
    row = {**_promotion_row(2, 50.0), "client_cpu_ms_per_memory": 7.25, "server_cpu_ms_per_memory": None}
    assert promotion_table([row], knots=100).splitlines()[2].split()[-2:] == ["7.2", "–"]


def test_a_process_cpu_is_read_for_this_process_and_none_for_one_that_does_not_exist():
    from bench.promotion import backend_cpu_s

    before = backend_cpu_s(os.getpid())
    deadline = time.process_time() + 0.05
    while time.process_time() < deadline:  # burn 50 ms of this process's CPU
        pass
    assert backend_cpu_s(os.getpid()) - before >= 0.03  # counted in clock ticks of 10 ms
    assert backend_cpu_s(2**22 + 1) is None  # above Linux's largest pid


@pytest.mark.django_db(transaction=True)
def test_before_a_timed_configuration_the_server_checkpoints_where_the_role_may():
    from bench.promotion import checkpoint_before_timing, checkpointer_counts

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rolsuper OR pg_has_role(current_user, 'pg_checkpoint', 'MEMBER') FROM pg_roles"
            " WHERE rolname = current_user"
        )
        (allowed,) = cursor.fetchone()  # the embedded server's superuser; not DATABASE_URL's CI role
    # Counted before the pages are dirtied: a checkpoint of another test's (a worker dropping a
    # database) that writes them in between is counted too, so the count grows either way.
    done, written = checkpointer_counts()
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_dirty AS SELECT g AS n FROM generate_series(1, 20000) AS g")
    try:
        assert checkpoint_before_timing() is allowed  # refused is no error: the run goes on
        if allowed:  # the checkpointer reports its statistics a moment after CHECKPOINT returns
            wait_for(lambda: checkpointer_counts()[0] > done, seconds=10)
        done_after, written_after = checkpointer_counts()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE bench_dirty")
    if allowed:
        assert done_after >= done + 1
        assert written_after > written  # the new table's dirty pages at least


@pytest.mark.django_db(transaction=True)
def test_a_backlog_is_stored_embedded_and_pending_in_the_nets_mind():
    from bench.net_fixture import backlog_add, net_build
    from bench.promotion import pending_count
    from memories.models import Memory

    net = net_build(knots=50, seed=5, edge_pairs=1, hnsw=False)
    ids = backlog_add(net, count=30, seed=6)

    backlog = Memory.objects.filter(pk__in=ids)
    assert backlog.count() == 30
    assert not backlog.exclude(mind_id=net.mind_id).exists()
    assert not backlog.filter(embedding__isnull=True).exists()
    assert pending_count(net.mind_id, ids) == 30
    assert all(name in memory.content for memory in backlog for name in memory.entities)


@pytest.mark.django_db(transaction=True)
def test_a_kept_net_is_found_again_by_its_parameters_once_its_backlog_is_removed():
    from bench.net_fixture import backlog_add, backlog_remove, net_build, net_find
    from synapses.models import Edge, Knot
    from synapses.promotion.service import memories_promote

    net = net_build(knots=40, seed=7, edge_pairs=1, hnsw=False)
    assert net_find(knots=40, seed=7, edge_pairs=1, hnsw=True) is None  # another build's parameters
    assert net_find(knots=41, seed=7, edge_pairs=1, hnsw=False) is None
    ids = backlog_add(net, count=5, seed=8)
    memories_promote(mind_id=net.mind_id, now_all=True)
    assert Knot.objects.filter(mind_id=net.mind_id).count() > 40

    assert backlog_remove(net, ids) == 5
    found = net_find(knots=40, seed=7, edge_pairs=1, hnsw=False)
    assert (found.mind_id, found.knots, found.edges) == (net.mind_id, 40, net.edges)
    assert found.entity_ids == net.entity_ids
    assert Edge.objects.filter(mind_id=net.mind_id).count() == net.edges


@pytest.mark.django_db(transaction=True)
def test_a_backlog_an_interrupted_run_left_behind_is_removed_when_the_net_is_looked_up():
    from bench.net_fixture import backlog_add, net_build, net_find
    from memories.models import Memory

    net = net_build(knots=30, seed=9, edge_pairs=0, hnsw=False)
    backlog_add(net, count=4, seed=10)
    assert net_find(knots=30, seed=9, edge_pairs=0, hnsw=False) is not None
    assert Memory.objects.filter(mind_id=net.mind_id).count() == 30
