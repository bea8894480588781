"""`python -m bench decay`: the daily decay of a net of N knots, the service beside its bare UPDATE.

A throw-away database gets one mind of `--knots` knots (bench/net_fixture.py; the knots' HNSW
index is left out: the decay never reads the knot table). Then `--rounds` rounds, each a day
after the one before, and in each, in an order that alternates round by round:

- the service, `synapses.upkeep.decay.knots_decay` (its span, the decay statement in its own
  transaction, the pipeline-log retention step), and
- the bare statement the service runs (the same UPDATE with the same parameters, committed),

with `VACUUM synapses_knotpresence` (untimed, as autovacuum between two days) before each. Each
reports seconds, knots decayed and knots/s, and the share of its row updates that were HOT
(heap-only: no index touched). The issue's bound: 1,000,000 knots in at most 15 s. With
`--reuse` the database stays after the run, and a later `--reuse` run of the same parameters
decays the same net further (its days follow the last one decayed) instead of building it again.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime, timedelta

from bench.database import database_create, database_drop, database_open, django_setup, server_versions
from bench.saving import machine_of, result_report

DECAY_DATABASE = "bench_synapse_decay"
DEFAULT_KNOTS = 1_000_000
# Knots with a content and vector of their own; the rest repeat them (the decay reads neither).
DEFAULT_DISTINCT = 20_000
DEFAULT_ROUNDS = 3
DEFAULT_SEED = 20261203
# The bound on one decay of 1,000,000 knots (seconds).
DECAY_BOUND_S = 15.0
DECAY_BOUND_KNOTS = 1_000_000


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench decay", description=__doc__.splitlines()[0])
    parser.add_argument("--knots", type=int, default=DEFAULT_KNOTS)
    parser.add_argument("--distinct", type=int, default=DEFAULT_DISTINCT, help="knots of their own content")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="days decayed, each service + bare")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--edge-pairs", type=int, default=0, help="edge pairs per knot (the decay ignores them)")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/*.json")
    parser.add_argument("--database", default=DECAY_DATABASE, help="the throw-away database's name")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the database and its net after the run, and reuse a net of the same parameters an earlier"
        " --reuse run left in it (its presence as the earlier days of decay left it)",
    )
    args = parser.parse_args(argv)
    if args.knots < 1 or args.rounds < 1 or args.distinct < 1:
        parser.error("--knots, --distinct and --rounds must be at least 1")
    return args


def _presence_updates() -> tuple[int, int]:
    """(row updates, HOT updates) of the presence table so far."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'synapses_knotpresence'"
        )
        return cursor.fetchone()


def _bare_decay(*, rate: float, min_weight: float, now: datetime) -> tuple[int, int]:
    """The service's decay statement alone, with its parameters, committed."""
    from django.db import connection, transaction

    from synapses.constants import SECONDS_PER_DAY
    from synapses.upkeep.sql import DECAY_SQL

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            DECAY_SQL, {"rate": rate, "min_weight": min_weight, "now": now, "seconds_per_day": SECONDS_PER_DAY}
        )
        return cursor.fetchone()


def decay_rounds(*, rounds: int, start: datetime) -> list[dict]:
    """`rounds` days of decay, each the service and the bare statement in alternating order."""
    from django.db import connection

    from synapses.config import synapse_settings
    from synapses.upkeep.decay import knots_decay

    rate, min_weight = synapse_settings.DECAY_RATE, synapse_settings.MIN_WEIGHT
    measured = []
    day = 0
    for round_index in range(rounds):
        order = ("service", "bare") if round_index % 2 == 0 else ("bare", "service")
        for kind in order:
            day += 1
            now = start + timedelta(days=day)
            with connection.cursor() as cursor:
                clock = time.perf_counter()
                cursor.execute("VACUUM synapses_knotpresence")
                vacuum_s = time.perf_counter() - clock
            updates, hot = _presence_updates()
            clock = time.perf_counter()
            if kind == "service":
                result = knots_decay(rate=rate, min_weight=min_weight, now=now)
                decayed, deactivated = result.knots_decayed, result.knots_deactivated
            else:
                decayed, deactivated = _bare_decay(rate=rate, min_weight=min_weight, now=now)
            seconds = time.perf_counter() - clock
            updates_after, hot_after = _presence_updates()
            row_updates = updates_after - updates
            measured.append(
                {
                    "round": round_index + 1,
                    "kind": kind,
                    "seconds": round(seconds, 3),
                    "knots_decayed": decayed,
                    "knots_deactivated": deactivated,
                    "knots_per_s": round(decayed / seconds) if seconds else None,
                    "hot_share": round((hot_after - hot) / row_updates, 3) if row_updates else None,
                    "vacuum_before_s": round(vacuum_s, 2),
                }
            )
            row = measured[-1]
            print(
                f"  round {row['round']} {kind:<7} {row['seconds']:8.2f} s  {decayed:>9,} knots"
                f"  {row['knots_per_s'] or 0:>9,}/s  HOT {row['hot_share']}  ({deactivated:,} deactivated)",
                flush=True,
            )
    return measured


def _summary(measured: list[dict], kind: str) -> dict:
    rows = [row for row in measured if row["kind"] == kind]
    seconds = sorted(row["seconds"] for row in rows)
    return {
        "runs": len(rows),
        "seconds_min": seconds[0],
        "seconds_median": seconds[len(seconds) // 2],
        "seconds_max": seconds[-1],
        "knots_per_s_median": sorted(row["knots_per_s"] or 0 for row in rows)[len(rows) // 2],
    }


def table(measured: list[dict], *, knots: int) -> str:
    lines = [
        f"{'decay of ' + format(knots, ',') + ' knots':<34} {'runs':>4} {'min s':>8} {'median s':>9} {'max s':>8}"
        f" {'knots/s (median)':>17}",
    ]
    lines.append("-" * len(lines[0]))
    for kind, label in (("service", "knots_decay (the service)"), ("bare", "its bare UPDATE")):
        summary = _summary(measured, kind)
        lines.append(
            f"{label:<34} {summary['runs']:>4} {summary['seconds_min']:>8.2f} {summary['seconds_median']:>9.2f}"
            f" {summary['seconds_max']:>8.2f} {summary['knots_per_s_median']:>17,}"
        )
    service = _summary(measured, "service")
    if knots >= DECAY_BOUND_KNOTS:
        verdict = "met" if service["seconds_max"] <= DECAY_BOUND_S * knots / DECAY_BOUND_KNOTS else "not met"
        lines.append(f"bound: {DECAY_BOUND_KNOTS:,} knots in ≤ {DECAY_BOUND_S:g} s (slowest service run): {verdict}")
    return "\n".join(lines)


def _decay_start(mind_id: str, now: datetime) -> datetime:
    """The first day's clock: now, or after the last decay an earlier run of a reused net made
    (its days lie in the future), so each day still follows the one before."""
    from django.db.models import Max

    from synapses.models import KnotPresence

    last = KnotPresence.objects.filter(mind_id=mind_id).aggregate(last=Max("decayed_at"))["last"]
    return max(now, last) if last else now


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    started = datetime.now(UTC)
    django_setup()
    from django.utils import timezone

    from bench.net_fixture import net_build, net_find

    shape = {"knots": args.knots, "seed": args.seed, "distinct": args.distinct, "edge_pairs": args.edge_pairs}
    net = None
    if args.reuse and database_open(args.database):
        net = net_find(**shape, hnsw=False)
    if net is None:
        print(f"Creating database {args.database} …", flush=True)
        database_create(args.database)
    try:
        if net is None:
            clock = time.perf_counter()
            net = net_build(**shape, hnsw=False)
            built = time.perf_counter() - clock
            print(f"Net: {net.knots:,} knots, {net.edges:,} edges, built in {built:.1f} s", flush=True)
        else:
            print(f"Net: {net.knots:,} knots, {net.edges:,} edges, reused from {args.database}", flush=True)
        measured = decay_rounds(rounds=args.rounds, start=_decay_start(net.mind_id, timezone.now()))
        machine = machine_of(server_versions())
    finally:
        if not args.reuse:
            database_drop(args.database)
    result_report(
        "decay",
        table=table(measured, knots=net.knots),
        machine=machine,
        started=started,
        save=not args.no_save,
        config={"knots": net.knots, "distinct": net.distinct, "rounds": args.rounds, "seed": args.seed},
        fixture={"edges": net.edges, "steps_s": net.steps_s, "build_s": net.build_s, "reused": not net.steps_s},
        runs=measured,
        service=_summary(measured, "service"),
        bare=_summary(measured, "bare"),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
