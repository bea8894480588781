"""A decay killed with SIGKILL mid-run leaves every knot as it was: the run is one transaction.

The child process runs the real `manage.py decay` on a committed table. The test holds a row
lock on the last presence row, so the child's UPDATE rewrites every row before it and then waits
there — provably mid-run (pg_stat_activity shows it waiting on the lock) — when it is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from memories.models import EMBEDDING_DIMENSIONS
from synapses.models import DecayRun, KnotPresence
from tests.factories import memory_make
from tests.processes import wait_for

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("decay_process.py")
KNOTS = 5_000  # presence rows the child rewrites before it reaches the locked one

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _net_make(mind, *, reinforced_at) -> None:
    """KNOTS knots with presence, in two statements (the ORM would take minutes for the vectors)."""
    memory = memory_make(mind=mind, key="many")
    vector = "[" + ",".join(["1"] + ["0"] * (EMBEDDING_DIMENSIONS - 1)) + "]"
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO synapses_knot (mind_id, memory_id, content, content_hash, category, observer, emotion,
                attributes, embedding, embedding_model, themes, entities, event_precision, weight_raw,
                weight_anchor, activation_count, created_at, source_created_at)
            SELECT %(mind)s, %(memory)s, 'knot ' || n, md5(n::text), 'fact', 'user', '', '{}', %(vector)s::vector,
                'test', '{}', '{}', '', 0.5, 5.0, 1, now(), now()
            FROM generate_series(1, %(knots)s) AS n
            """,
            {"mind": mind.pk, "memory": memory.pk, "vector": vector, "knots": KNOTS},
        )
        cursor.execute(
            """
            INSERT INTO synapses_knotpresence (knot_id, mind_id, presence_base, weight_present, reinforced_at,
                decayed_at, is_active)
            SELECT id, mind_id, 5.0, 5.0, %(at)s, %(at)s, true FROM synapses_knot ORDER BY id
            """,
            {"at": reinforced_at},
        )


def _decay_backend_waiting(probe) -> bool:
    with probe.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND query LIKE %s AND wait_event_type = 'Lock'",
            ["%UPDATE synapses_knotpresence%"],
        )
        return cursor.fetchone()[0] == 1


def _decay_backends(probe) -> int:
    with probe.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND query LIKE %s AND pid <> pg_backend_pid()",
            ["%UPDATE synapses_knotpresence%"],
        )
        return cursor.fetchone()[0]


def test_a_decay_killed_mid_run_leaves_every_knot_as_it_was_and_the_next_run_decays_them_all(mind):
    reinforced_at = timezone.now() - timedelta(days=30)
    _net_make(mind.mind, reinforced_at=reinforced_at)
    last = KnotPresence.objects.order_by("-knot_id").values_list("knot_id", flat=True)[0]

    params = connection.get_connection_params()
    locker = connection.get_new_connection(params)
    probe = connection.get_new_connection(params)
    probe.autocommit = True
    child = None
    try:
        with locker.cursor() as cursor:  # a transaction that holds the last row
            cursor.execute("SELECT 1 FROM synapses_knotpresence WHERE knot_id = %s FOR UPDATE", [last])
        env = {**os.environ, "SYNAPSES_TEST_DATABASE": connection.settings_dict["NAME"]}
        child = subprocess.Popen([sys.executable, str(SCRIPT)], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
        assert wait_for(lambda: _decay_backend_waiting(probe), seconds=60), "the decay never reached the locked row"

        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
        locker.rollback()  # the backend of the dead child now finishes its statement and finds no client
        assert wait_for(lambda: _decay_backends(probe) == 0, seconds=60), "the killed decay's backend lingers"
    finally:
        if child is not None and child.poll() is None:
            child.kill()
        locker.close()
        probe.close()

    untouched = KnotPresence.objects.filter(decayed_at=reinforced_at, weight_present=5.0, is_active=True).count()
    assert untouched == KNOTS
    assert not DecayRun.objects.exists()  # the killed run left no record of itself either

    # Nothing was left half-done: the next run decays every knot once, from where it was.
    subprocess.run(
        [sys.executable, str(SCRIPT)],
        cwd=REPO,
        env={**os.environ, "SYNAPSES_TEST_DATABASE": connection.settings_dict["NAME"]},
        check=True,
        capture_output=True,
        timeout=120,
    )
    decayed = KnotPresence.objects.exclude(decayed_at=reinforced_at)
    assert decayed.count() == KNOTS
    assert all(abs(p - 2.7441) < 0.001 for p in decayed.values_list("weight_present", flat=True))
    assert list(DecayRun.objects.values_list("knots_decayed", "knots_deactivated")) == [(KNOTS, 0)]
