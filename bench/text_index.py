"""`python -m bench text-index`: the full-text query of a 20,000-memory mind among four others of the
same size, with a GIN index that finds the words of every mind (intersected with a mind index)
and with a mind-leading GIN index (`btree_gin`: mind, search_vector).

The product's own index leads with `mind_id`; the layout's view shows another column as
`mind_id`, so for this layout that index is a plain index on `search_vector` ("before"), and
the benchmark adds the layout's mind-leading index ("after").

It times the product's own text selector (`bench.fulltext.text_ranking`, the
text list of hybrid search) per query, round robin over the minds, and records EXPLAIN (ANALYZE,
BUFFERS) of a few queries, both ways. The table is bench/filtered_search.py's (one load, the
layout a view over one of its mind columns).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime

import numpy as np

import bench.database
from bench.corpus import search_queries
from bench.database import database_create, database_drop, django_setup, server_versions
from bench.filtered_search import _column, _schema, fixture_build
from bench.saving import result_save

# Minds and memories: 5 × 20,000 (the "20,000-memory mind among other minds").
MINDS = 5
TOTAL_MEMORIES = 100_000
DEFAULT_QUERIES = 200
WARMUP_QUERIES = 20
DEFAULT_SEED = 20261201
# Candidates the text list asks for (memories.selectors.search.SEARCH_MIN_CANDIDATES).
TEXT_LIMIT = 50
# Queries whose plans are recorded: a rare word, a common word, a phrase, an OR.
EXPLAINED_QUERIES = ("insolvenz", "PostgreSQL", '"release 2.3.1"', "Docker OR Redis")
MIND_SEARCH_INDEX = "bench_mind_search_gin"
# A database of its own, so it can run next to the other benchmarks.
TEXT_INDEX_DATABASE = "bench_text_index"


def _explain(sql: str, params: dict) -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0][0]
    nodes, stack = [], [plan["Plan"]]
    while stack:
        node = stack.pop()
        nodes.append(node["Node Type"] + (f" on {node['Index Name']}" if "Index Name" in node else ""))
        stack.extend(node.get("Plans", []))
    return {
        "execution_ms": round(plan["Execution Time"], 2),
        "shared_buffers": plan["Plan"].get("Shared Hit Blocks", 0) + plan["Plan"].get("Shared Read Blocks", 0),
        "rows": plan["Plan"]["Actual Rows"],
        "nodes": nodes,
    }


def _measure(minds: list[str], queries: list[str]) -> dict:
    from django.utils import timezone

    from bench.fulltext import text_ranking
    from memories.selectors.search import tsquery_params
    from memories.selectors.sql import TEXT_SQL

    samples, found = [], []
    for index, q in enumerate([*queries[:WARMUP_QUERIES], *queries]):
        clock = time.perf_counter()
        ids = text_ranking(mind_id=minds[index % len(minds)], q=q, limit=TEXT_LIMIT)
        elapsed = (time.perf_counter() - clock) * 1000
        if index >= WARMUP_QUERIES:
            samples.append(elapsed)
            found.append(len(ids))
    p50, p95 = np.percentile(np.asarray(samples), [50, 95])
    explained = {}
    for q in EXPLAINED_QUERIES:
        params = {"mind_id": minds[0], "now": timezone.now(), **tsquery_params(q), "candidates": TEXT_LIMIT}
        explained[q] = _explain(TEXT_SQL, params)
    return {
        "p50_ms": round(float(p50), 2),
        "p95_ms": round(float(p95), 2),
        "mean_results": round(float(np.mean(found)), 1),
        "explain": explained,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench text-index", description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=DEFAULT_QUERIES)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args(argv)
    django_setup()
    from django.db import connection

    from memories.models import Memory

    started = datetime.now(UTC)
    bench.database.BENCH_DATABASE = TEXT_INDEX_DATABASE
    print(f"Creating database {TEXT_INDEX_DATABASE} …", flush=True)
    database_create()
    try:
        fixture, _ = fixture_build(total=TOTAL_MEMORIES, mind_counts=[MINDS], seed=args.seed, hnsw=False)
        minds = sorted(set(fixture.minds[MINDS]))
        queries = search_queries(args.queries, seed=args.seed)
        table = Memory._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(f"SET search_path TO {_schema(MINDS)}, public")
        print("… GIN on search_vector (this layout's mind is not its first column)", flush=True)
        before = _measure(minds, queries)
        with connection.cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
            clock = time.perf_counter()
            cursor.execute(
                f"CREATE INDEX {MIND_SEARCH_INDEX} ON public.{table} USING gin ({_column(MINDS)}, search_vector)"
            )
            build_s = round(time.perf_counter() - clock, 1)
            cursor.execute(f"ANALYZE public.{table}")
            cursor.execute(
                f"SELECT pg_relation_size('public.{MIND_SEARCH_INDEX}'), pg_relation_size('memory_mind_search_gin')"
            )
            mind_index_bytes, index_bytes = cursor.fetchone()
        print("… with the mind-leading GIN index", flush=True)
        after = _measure(minds, queries)
        machine = {"cpu_count": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2), **server_versions()}
    finally:
        database_drop()
    for name, result in (("search_vector GIN", before), ("(mind, search_vector) GIN", after)):
        print(
            f"{name:<26} p50 {result['p50_ms']:.2f} ms, p95 {result['p95_ms']:.2f} ms, {result['mean_results']} results"
        )
        for q, plan in result["explain"].items():
            nodes = ", ".join(plan["nodes"])
            print(f"    {q!r:<22} {plan['execution_ms']:>7.2f} ms {plan['shared_buffers']:>6} buffers  {nodes}")
    print(
        f"Mind-leading index: {mind_index_bytes / 2**20:.1f} MiB (search_vector alone: "
        f"{index_bytes / 2**20:.1f} MiB), built in {build_s} s"
    )
    print(f"Load average {machine['load_average_1m']}")
    result = {
        "benchmark": "text-index",
        "started_at": started.isoformat().replace("+00:00", "Z"),
        "machine": machine,
        "config": {"minds": MINDS, "memories": TOTAL_MEMORIES, "queries": args.queries, "limit": TEXT_LIMIT},
        "search_vector_gin": before,
        "mind_search_vector_gin": {**after, "bytes": mind_index_bytes, "build_s": build_s},
        "search_vector_gin_bytes": index_bytes,
    }
    if not args.no_save:
        result_save("text-index", result, started=started)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
