"""`python -m bench resonance-profile`: where one resonance call spends its time, statement by statement.

Runs on the latency bench's database (`python -m bench latency --keep` leaves it; if it is
absent, this command builds one mind of `--size` memories and its net the way the latency bench
does, and keeps it). For each of the latency table's queries it calls the service
(`resonance_of`, limit 10) in-process, interleaved with the bare HNSW top 10 of the memories
table at the product's `hnsw.ef_search` (the latency table's reference), and replays one call's
captured statements under `EXPLAIN (ANALYZE, BUFFERS)` inside a rolled-back transaction: per
statement the execution time and the shared buffers touched, which depend far less on the
machine's load than wall time. `--cprofile` prints the Python side of one call instead.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import sys
import time

import numpy as np

from bench.database import database_create, database_open, django_setup
from bench.latency import LATENCY_DATABASE, RESONANCE_LIMIT, K, minds_load, nets_derive

# Memories of the profiled mind when the command builds its own (the acceptance's size).
DEFAULT_SIZE = 100_000
# Queries of the latency table's rotation that are profiled (queries), and timed calls per query.
DEFAULT_QUERIES = 20
DEFAULT_ROUNDS = 3
DEFAULT_SEED = 20261201
# Statements shown by the first words of their SQL (characters).
LABEL_CHARS = 60


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench resonance-profile", description=__doc__.splitlines()[0])
    parser.add_argument("--database", default=LATENCY_DATABASE, help="the kept latency database (built if absent)")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE, help="memories of the profiled mind")
    parser.add_argument("--queries", type=int, default=DEFAULT_QUERIES)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="timed calls per query")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the latency bench's seed")
    parser.add_argument("--ranking", default=None, help="seed | relevance (default: the setting)")
    parser.add_argument("--cprofile", action="store_true", help="print a cProfile of the calls instead")
    parser.add_argument("--plan", type=int, metavar="N", help="print the first query's plan of statement N instead")
    parser.add_argument(
        "--request",
        action="store_true",
        help="time (with --cprofile: profile) the whole in-process request and the request floor instead,"
        " with the garbage collector's pauses inside each",
    )
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="with --request: gc.freeze() after the warm-up (what a server could do after start-up), to compare",
    )
    return parser.parse_args(argv)


def _mind(size: int, database: str, seed: int):
    """The mind of `size` memories of the kept database, building database and mind if absent."""
    from minds.models import Mind

    if database_open(database):
        mind = Mind.objects.filter(name=f"{size} memories").first()
        if mind is not None:
            return mind
    print(f"Building database {database} with a mind of {size} memories (kept) …", flush=True)
    database_create(database)
    loaded = minds_load([size], seed=seed)
    nets_derive(loaded.minds)
    return Mind.objects.get(pk=loaded.minds[0].mind_id)


def _label(sql: str) -> str:
    text = re.sub(r"\s+", " ", sql).strip()
    return text[:LABEL_CHARS]


def _statements(captured) -> list[str]:
    """The captured statements one by one: the anchors' message (the HNSW settings and the lists,
    one execute) split in two, so that each part is explained on its own."""
    from memories.selectors.vector_plan import HNSW_SETTINGS_SQL

    statements = []
    for query in captured.captured_queries:
        sql = query["sql"]
        if sql.startswith("COPY"):
            continue
        if sql.startswith(HNSW_SETTINGS_SQL + ";\n"):
            statements.extend(sql.split(";\n", 1))
        else:
            statements.append(sql)
    return statements


def _explained(cursor, sql: str) -> dict | None:
    """Execution ms and shared buffers (hit + read) of one statement, or None for one that
    EXPLAIN does not take (SAVEPOINT, RELEASE)."""
    if not re.match(r"\s*(SELECT|WITH)\b", sql, re.IGNORECASE):
        cursor.execute(sql)
        return None
    cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
    plan = cursor.fetchone()[0]
    plan = plan[0] if isinstance(plan, list) else json.loads(plan)[0]
    top = plan["Plan"]
    return {
        "ms": plan["Execution Time"],
        "planning_ms": plan.get("Planning Time", 0.0),
        "buffers": top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0),
        "read": top.get("Shared Read Blocks", 0),
    }


def _plan_print(raw, mind, q: str, args: argparse.Namespace) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of statement `args.plan` of one call, the statements before it
    replayed first (they set the transaction's HNSW settings)."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from synapses.resonance.service import resonance_of

    resonance_of(mind=mind, q=q, limit=RESONANCE_LIMIT, ranking=args.ranking)
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        resonance_of(mind=mind, q=q, limit=RESONANCE_LIMIT, ranking=args.ranking)
        transaction.set_rollback(True)
    statements = _statements(captured)
    with raw.transaction(force_rollback=True), raw.cursor() as cursor:
        for sql in statements[: args.plan]:
            cursor.execute(sql)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + statements[args.plan])
        print(f"q = {q!r}")
        print("\n".join(row[0] for row in cursor.fetchall()))


class _CollectorClock:
    """The garbage collector's pauses while it is installed: per generation the collections and
    the milliseconds they took (gc.callbacks)."""

    def __init__(self):
        self.started = 0.0
        self.ms = 0.0
        self.collections = [0, 0, 0]

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.ms += (time.perf_counter() - self.started) * 1000
            self.collections[info["generation"]] += 1

    def reset(self) -> None:
        self.ms = 0.0
        self.collections = [0, 0, 0]


def _requests(mind, queries: list[str], args: argparse.Namespace) -> None:
    """The whole in-process request (`GET /synapses/resonance`, the latency table's path) and the
    request floor (an authenticated 404) interleaved, each with the collector's pauses inside it;
    with --cprofile a profile of each instead."""
    import gc

    from rest_framework.test import APIClient

    from bench.latency import FLOOR_PATH
    from minds.services import mind_key_issue

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {mind_key_issue(mind=mind, label='resonance-profile').plaintext}")
    params = [{"q": q, "limit": RESONANCE_LIMIT} for q in queries]  # the endpoint ranks by the setting

    def resonance(index: int) -> None:
        if (status := client.get("/synapses/resonance", params[index % len(params)]).status_code) != 200:
            raise RuntimeError(f"resonance answered {status}")

    def floor(index: int) -> None:
        if (status := client.get(FLOOR_PATH).status_code) != 404:
            raise RuntimeError(f"the floor answered {status}")

    parts = {"resonance": resonance, "floor": floor}
    for index in range(len(params)):
        resonance(index)  # warm this query's pages
    if args.cprofile:
        for name, part in parts.items():
            profile = cProfile.Profile()
            profile.enable()
            for index in range(len(params) * args.rounds):
                part(index)
            profile.disable()
            print(f"--- {name}: {len(params) * args.rounds} requests")
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        return
    if args.gc_freeze:
        gc.collect()
        gc.freeze()  # the objects of start-up and warm-up are never scanned again
    clock = _CollectorClock()
    gc.callbacks.append(clock)
    samples: dict[str, list[tuple[float, float, list[int]]]] = {name: [] for name in parts}
    try:
        for index in range(len(params) * args.rounds):
            for name in list(parts)[index % 2 :] + list(parts)[: index % 2]:
                clock.reset()
                started = time.perf_counter()
                parts[name](index)
                samples[name].append(((time.perf_counter() - started) * 1000, clock.ms, clock.collections))
    finally:
        gc.callbacks.remove(clock)
    print(f"mind of {args.size} memories, {len(params)} queries × {args.rounds} rounds, load {os.getloadavg()}")
    print(f"gc thresholds {gc.get_threshold()}, frozen objects {gc.get_freeze_count()}")
    for name, rows in samples.items():
        ms = np.asarray([r[0] for r in rows])
        paused = np.asarray([r[1] for r in rows])
        p50, p95 = np.percentile(ms, [50, 95])
        tail = ms >= p95
        print(
            f"{name:<10} p50/p95 {p50:.1f}/{p95:.1f} ms; without the collector's pauses "
            f"{np.percentile(ms - paused, 50):.1f}/{np.percentile(ms - paused, 95):.1f} ms; pauses "
            f"{paused.sum():.1f} ms in {sum(sum(r[2]) for r in rows)} collections "
            f"(generation 2: {sum(r[2][2] for r in rows)}), in the calls at or above p95 {paused[tail].sum():.1f} ms"
        )


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    django_setup()
    import psycopg
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from bench.corpus import search_queries
    from memories.embedders import get_embedder
    from memories.models import Memory
    from memories.selectors.vector_plan import hnsw_settings
    from synapses.resonance.service import resonance_of

    mind = _mind(args.size, args.database, args.seed)
    queries = search_queries(40, seed=args.seed + 7)[: args.queries]
    if args.request:
        _requests(mind, queries, args)
        return 0
    if args.cprofile:
        profile = cProfile.Profile()
        for q in queries:
            resonance_of(mind=mind, q=q, limit=RESONANCE_LIMIT, ranking=args.ranking)  # warm
        profile.enable()
        for q in queries:
            resonance_of(mind=mind, q=q, limit=RESONANCE_LIMIT, ranking=args.ranking)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
        return 0
    raw = psycopg.connect(**{**connection.get_connection_params(), "prepare_threshold": None})
    if args.plan is not None:
        _plan_print(raw, mind, queries[0], args)
        return 0
    literals = ["[" + ",".join(map(str, v.tolist())) + "]" for v in get_embedder().embed(queries)]
    hnsw_sql = f"SELECT id FROM {Memory._meta.db_table} ORDER BY embedding <=> %s::vector LIMIT {K}"  # noqa: S608
    service_ms: list[float] = []
    hnsw_ms: list[float] = []
    by_statement: dict[int, list[dict]] = {}
    labels: dict[int, str] = {}
    for q in queries:
        resonance_of(mind=mind, q=q, limit=RESONANCE_LIMIT, ranking=args.ranking)  # warm this query's pages
    for index, q in enumerate(queries):
        for _ in range(args.rounds):
            clock = time.perf_counter()
            resonance_of(mind=mind, q=q, limit=RESONANCE_LIMIT, ranking=args.ranking)
            service_ms.append((time.perf_counter() - clock) * 1000)
            clock = time.perf_counter()
            with raw.transaction(force_rollback=True), raw.cursor() as cursor:
                cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [hnsw_settings(K)["ef_search"]])
                cursor.execute(hnsw_sql, [literals[index]])
                cursor.fetchall()
            hnsw_ms.append((time.perf_counter() - clock) * 1000)
        with transaction.atomic(), CaptureQueriesContext(connection) as captured:
            resonance_of(mind=mind, q=q, limit=RESONANCE_LIMIT, ranking=args.ranking)
            transaction.set_rollback(True)
        statements = _statements(captured)
        with raw.transaction(force_rollback=True), raw.cursor() as cursor:
            for number, sql in enumerate(statements):
                measured = _explained(cursor, sql)
                if measured is not None:
                    by_statement.setdefault(number, []).append(measured)
                    labels.setdefault(number, _label(sql))
    raw.close()
    print(f"mind of {args.size} memories, {len(queries)} queries × {args.rounds} rounds, load {os.getloadavg()}")
    print(f"{'#':>2} {'statement':<{LABEL_CHARS}} {'exec p50/max ms':>16} {'plan ms':>8} {'buffers p50/max':>16}")
    for number in sorted(by_statement):
        rows = by_statement[number]
        ms = [r["ms"] for r in rows]
        buffers = [r["buffers"] for r in rows]
        print(
            f"{number:>2} {labels[number]:<{LABEL_CHARS}} {np.median(ms):>7.2f}/{max(ms):>8.2f} "
            f"{np.median([r['planning_ms'] for r in rows]):>8.2f} {np.median(buffers):>7.0f}/{max(buffers):>8.0f}"
        )
    p50, p95 = np.percentile(service_ms, [50, 95])
    h50, h95 = np.percentile(hnsw_ms, [50, 95])
    print(f"resonance_of p50/p95 {p50:.1f}/{p95:.1f} ms; bare HNSW top {K} p50/p95 {h50:.1f}/{h95:.1f} ms; "
          f"p95 ratio {p95 / h95:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
