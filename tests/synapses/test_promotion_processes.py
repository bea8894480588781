"""Acceptance 3 with real processes: two `manage.py promote` processes on one backlog create no
knot twice — neither for one memory version nor for two memories of the same content — and a
promotion killed with SIGKILL leaves its memory pending for the next run."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Count

from memories.models import PendingPromotion
from synapses.models import Entity, Knot, LinkKind, MemoryKnot, PromotionAttempt
from synapses.promotion.select import advisory_key
from tests.factories import memory_make
from tests.processes import wait_for

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("promote_process.py")
TWINS = 100  # contents stored twice, the two written one after the other
SINGLES = 100  # contents stored once
GATE = 4_242_001  # advisory lock key both processes wait on before they start

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _sentence(rng: random.Random) -> str:
    """Five random words: two such sentences share next to nothing, so only twins match."""
    return " ".join("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=8)) for _ in range(5))


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "SYNAPSES_TEST_DATABASE": connection.settings_dict["NAME"], **extra}


def _waiting(probe, pattern: str) -> int:
    with probe.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND query LIKE %s AND wait_event_type = 'Lock'"
            " AND pid <> pg_backend_pid()",
            [pattern],
        )
        return cursor.fetchone()[0]


def _running(probe, pattern: str) -> int:
    with probe.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND query LIKE %s AND pid <> pg_backend_pid()",
            [pattern],
        )
        return cursor.fetchone()[0]


def _connections():
    params = connection.get_connection_params()
    holder, probe = connection.get_new_connection(params), connection.get_new_connection(params)
    holder.autocommit = probe.autocommit = True
    return holder, probe


def test_two_processes_on_one_backlog_make_every_knot_once_and_twins_one_knot_and_a_duplicate(mind):
    rng = random.Random(7)
    contents = []
    for n in range(TWINS):
        text = _sentence(rng)
        contents.append(text)
        memory_make(mind=mind.mind, key=f"twin-{n}-a", content=text, salience=0.1, entities=["Mira"], embedded=True)
        memory_make(mind=mind.mind, key=f"twin-{n}-b", content=text, salience=0.1, entities=["mira"], embedded=True)
    for n in range(SINGLES):
        text = _sentence(rng)
        contents.append(text)
        memory_make(
            mind=mind.mind,
            key=f"single-{n}",
            content=text,
            salience=0.1,
            entities=["Mira", f"Person {n}"],
            embedded=True,
        )

    holder, probe = _connections()
    children = []
    try:
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [GATE])
        children = [
            subprocess.Popen(
                [sys.executable, str(SCRIPT)],
                cwd=REPO,
                env=_env(PROMOTION_GATE=str(GATE)),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        assert wait_for(lambda: _waiting(probe, "%pg_advisory_lock_shared%") == 2, seconds=60), "not both at the gate"
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [GATE])
        outputs = [child.communicate(timeout=300) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
        holder.close()
        probe.close()
    assert [child.returncode for child in children] == [0, 0], [err[-2000:] for _, err in outputs]

    memories = 2 * TWINS + SINGLES
    promoted = [int(re.search(r"promoted (\d+) of", out).group(1)) for out, _ in outputs]
    assert sum(promoted) == memories, outputs  # each memory promoted by exactly one of them
    assert all(promoted), outputs  # both took part: the backlog was shared, not run twice in a row
    assert MemoryKnot.objects.filter(mind=mind.mind).count() == memories
    assert Knot.objects.filter(mind=mind.mind).count() == len(contents)
    assert not Knot.objects.values("content_hash").annotate(n=Count("id")).filter(n__gt=1).exists()
    kinds = MemoryKnot.objects.filter(mind=mind.mind).values("kind").annotate(n=Count("id"))
    assert {row["kind"]: row["n"] for row in kinds} == {LinkKind.ORIGIN: len(contents), LinkKind.DUPLICATE: TWINS}
    assert Entity.objects.filter(mind=mind.mind, name__iexact="mira").count() == 1
    assert not PromotionAttempt.objects.exists()


def test_a_promotion_killed_mid_run_leaves_its_memory_pending_and_the_next_run_promotes_it(mind):
    memory = memory_make(
        mind=mind.mind, key="victim", content="A memory whose promotion is killed.", salience=0.9, embedded=True
    )
    holder, probe = _connections()
    child = None
    try:
        # Hold the lock the promotion takes after claiming the memory: the child waits there, mid-promotion.
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [advisory_key(memory.mind_id, memory.content_hash)])
        child = subprocess.Popen([sys.executable, str(SCRIPT)], cwd=REPO, env=_env(), stderr=subprocess.PIPE, text=True)
        assert wait_for(lambda: _waiting(probe, "%pg_advisory_xact_lock%") == 1, seconds=60), "never mid-promotion"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock_all()")
        # The dead child's backend finishes its statement, finds no client and rolls back.
        assert wait_for(lambda: _running(probe, "%pg_advisory_xact_lock%") == 0, seconds=60), "the backend lingers"
    finally:
        if child is not None and child.poll() is None:
            child.kill()
        holder.close()
        probe.close()

    assert PendingPromotion.objects.filter(memory=memory, content_hash=memory.content_hash).exists()
    assert not MemoryKnot.objects.filter(memory=memory).exists()
    assert not Knot.objects.exists()
    assert not PromotionAttempt.objects.exists()  # a killed worker is not the memory's failure

    done = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=REPO, env=_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "promoted 1 of 1 memories: 1 new knots" in done.stdout
    assert MemoryKnot.objects.get(memory=memory).kind == LinkKind.ORIGIN
