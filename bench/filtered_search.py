"""`python -m bench filtered-search`: one mind's vector search when 1, 10, 100 or 1,000 minds share a table.

For each layout (N equal-sized minds holding TOTAL_MEMORIES in all) it measures the product's own
semantic search (`memories.selectors.search.memories_semantic_search`, the code path of
`GET /memory/semantic-search` and of hybrid search's vector half) for one mind per query: its
recall@10 against that mind's exact top 10, whether the results come back in exact distance
order, and p50/p95 latency. Next to it, the unfiltered HNSW top 10 of the same table at the same
`hnsw.ef_search`, with its own recall@10, and the ratio of the two p95s.

The layout trick: one table, loaded once (COPY) and indexed once (HNSW built after loading),
holds every layout at once. Its own `mind_id` column is the 1-mind layout; one extra column per
further layout (`bench_mind_10`, …) holds that layout's mind of each row, with the same mind
indexes as `mind_id`. For each layout a schema `bench_minds_<N>` holds a view named
`memories_memory` that shows that column as `mind_id`; putting the schema first on the
connection's `search_path` makes the product's unchanged SQL and ORM queries run against that
layout. PostgreSQL inlines the view, so the plans are the plans of a real table (same HNSW
index, a mind index on the layout's column), and one 100k HNSW build serves all four layouts.

The exact top 10 is computed in numpy from the vectors the fixture stored, independently of
the database. Contents are distinct (bench/corpus.py), but two memories can still lie at the same
distance from a query: a returned memory counts as one of the top 10 when it belongs to the mind
and its exact distance is at most the 10th smallest exact distance of the mind (plus
DISTANCE_TOLERANCE for float rounding) — any 10 of a tie are a correct answer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import UTC, datetime

import numpy as np

from bench.corpus import memory_specs, search_queries
from bench.database import BENCH_DATABASE, database_create, database_drop, django_setup, server_versions
from bench.saving import result_save, started_at
from bench.vector_truth import exact_top

# Minds per layout; each layout splits TOTAL_MEMORIES into equal minds (issue: 1, 10, 100, 1,000).
DEFAULT_MIND_COUNTS = (1, 10, 100, 1000)
# Memories in the table, all layouts alike (rows).
DEFAULT_TOTAL_MEMORIES = 100_000
# Nearest neighbours compared (recall@K).
K = 10
# Timed queries per layout (each for another mind, round robin), after WARMUP_QUERIES untimed ones.
DEFAULT_QUERIES = 200
WARMUP_QUERIES = 20
DEFAULT_SEED = 20261201
# The selector's own choice of vector plan, or one plan forced (by moving its exact-scan bound).
PLANS = ("auto", "exact", "hnsw")
# Embedding batch while building the fixture (texts).
EMBED_BATCH = 2000
# Working memory of the index builds after loading (PostgreSQL setting; the HNSW graph of 100k
# 384-dim vectors fits in it, so the build never spills).
BUILD_MAINTENANCE_WORK_MEM = "1GB"
# Indexes built after loading instead of updated row by row during COPY.
INDEXES_BUILT_AFTER_LOADING = (
    "memory_embedding_hnsw",
    "memory_search_gin",
    "memory_mind_search_gin",
    "memory_tags_gin",
)
# The mind indexes of `mind_id` (memories.models.Memory.Meta) copied onto each layout's column.
MIND_INDEXES = ("memory_count_idx", "memory_mind_expires_idx")


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench filtered-search", description=__doc__.splitlines()[0])
    parser.add_argument("--minds", type=int, nargs="+", default=list(DEFAULT_MIND_COUNTS), help="mind counts")
    parser.add_argument("--memories", type=int, default=DEFAULT_TOTAL_MEMORIES, help="memories in the table")
    parser.add_argument("--queries", type=int, default=DEFAULT_QUERIES, help="timed queries per layout")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeat", type=int, default=1, help="measure every layout this many times")
    parser.add_argument(
        "--ef-search", type=int, nargs="+", help="hnsw.ef_search values to measure (default: SYNAPSE_HNSW_EF_SEARCH)"
    )
    parser.add_argument(
        "--plans",
        nargs="+",
        choices=PLANS,
        default=["auto"],
        help="auto: the selector's own choice; exact / hnsw: that plan forced, to compare them",
    )
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/*.json")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards (to explore it)")
    args = parser.parse_args(argv)
    if any(count < 1 or args.memories % count for count in args.minds):
        parser.error("every --minds count must be at least 1 and divide --memories")
    return args


def _column(mind_count: int) -> str:
    return "mind_id" if mind_count == 1 else f"bench_mind_{mind_count}"


def _schema(mind_count: int) -> str:
    return f"bench_minds_{mind_count}"


def _copy_value(value):
    """A Python value as COPY's text form takes it (psycopg escapes the string itself)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, list):
        return "{" + ",".join('"' + str(item).replace("\\", "\\\\").replace('"', '\\"') + '"' for item in value) + "}"
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, np.ndarray):
        # %.9g round-trips every float32 exactly, in one C-level format: ~4× faster than str() of each number.
        return ("[" + ",".join(["%.9g"] * len(value)) + "]") % tuple(value.tolist())
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


class Fixture:
    """The loaded table: row i has id `ids[i]`, vector `vectors[i]`, and mind `minds[n][i]` in the n-mind layout."""

    def __init__(self, ids: list[str], vectors: np.ndarray, minds: dict[int, list[str]]):
        self.ids = ids
        self.vectors = vectors
        self.minds = minds
        self.row_of = {pk: row for row, pk in enumerate(ids)}


def fixture_build(*, total: int, mind_counts: list[int], seed: int, hnsw: bool = True) -> tuple[Fixture, dict]:
    """Load `total` memories once, with one mind column per layout; build the indexes after loading
    (all but the HNSW index when `hnsw` is false: a text-only benchmark does not need it)."""
    from django.db import connection
    from django.utils import timezone

    from memories.embedders import get_embedder
    from memories.models import Memory, Source
    from memories.services.memory import memory_build
    from minds.models import Mind
    from minds.services import user_register

    timings = {}
    clock = time.perf_counter()
    owner = user_register(email="filtered@example.com", password="bench password that is long enough")
    minds_of_layout = {}
    for count in mind_counts:
        minds = Mind.objects.bulk_create([Mind(owner=owner, name=f"{count} minds: {i}") for i in range(count)])
        minds_of_layout[count] = minds
    table = Memory._meta.db_table
    extra = [count for count in mind_counts if count != 1]
    first_mind = minds_of_layout[1][0] if 1 in minds_of_layout else Mind.objects.create(owner=owner, name="only")
    with connection.cursor() as cursor:
        for count in extra:
            cursor.execute(f"ALTER TABLE {table} ADD COLUMN {_column(count)} varchar(40)")
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname = ANY(%s)",
            [table, list(INDEXES_BUILT_AFTER_LOADING + MIND_INDEXES)],
        )
        definitions = dict(cursor.fetchall())
        for name in INDEXES_BUILT_AFTER_LOADING:
            cursor.execute(f"DROP INDEX IF EXISTS {name}")

    # Each layout's minds are equal-sized and randomly interleaved, as memories of many agents
    # arrive over time (the worst case for an exact scan: the mind's rows spread over the table).
    rng = random.Random(seed)
    assignment = {}
    for count in mind_counts:
        slots = [index % count for index in range(total)]
        rng.shuffle(slots)
        assignment[count] = [minds_of_layout[count][slot].pk for slot in slots]

    specs = memory_specs(total, seed=seed)
    embedder = get_embedder()
    now = timezone.now()
    fields = [field for field in Memory._meta.concrete_fields if not field.generated]
    columns = [field.column for field in fields] + [_column(count) for count in extra]
    ids, vectors = [], np.zeros((total, embedder.dimensions), dtype=np.float32)
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for start in range(0, total, EMBED_BATCH):
            batch = specs[start : start + EMBED_BATCH]
            vectors[start : start + len(batch)] = embedder.embed([spec.content for spec in batch])
            for offset, spec in enumerate(batch):
                row = start + offset
                memory = memory_build(
                    mind=first_mind,
                    fields={"category": spec.category, "content": spec.content, "tags": spec.tags,
                            "priority": spec.priority},
                    key=spec.key, source=Source.AGENT, speaker=None, turn_id="", created_at=now, updated_at=now,
                )  # fmt: skip
                if 1 in assignment:
                    memory.mind_id = assignment[1][row]
                memory.embedding, memory.embedding_model = vectors[row], embedder.name
                ids.append(memory.pk)
                values = [_copy_value(getattr(memory, field.attname)) for field in fields]
                copy.write_row(values + [assignment[count][row] for count in extra])
    timings["load_s"] = round(time.perf_counter() - clock, 1)
    print(f"Loaded {total} memories ({timings['load_s']} s).", flush=True)

    with connection.cursor() as cursor:
        cursor.execute(f"SET maintenance_work_mem = '{BUILD_MAINTENANCE_WORK_MEM}'")
        for name in INDEXES_BUILT_AFTER_LOADING:
            if name not in definitions or (name == "memory_embedding_hnsw" and not hnsw):
                continue
            clock = time.perf_counter()
            cursor.execute(definitions[name])
            timings[f"{name}_build_s"] = round(time.perf_counter() - clock, 1)
        for count in extra:
            for name in MIND_INDEXES:
                definition = (
                    definitions[name].replace(name, f"{name}_{count}", 1).replace("(mind_id", f"({_column(count)}")
                )
                cursor.execute(definition)
        cursor.execute("RESET maintenance_work_mem")
        # Fresh statistics and visibility map, as autovacuum would have them after a while.
        cursor.execute(f"VACUUM ANALYZE {table}")
        for count in extra:
            cursor.execute(
                "SELECT string_agg(CASE WHEN attname = 'mind_id' THEN %s || ' AS mind_id'"
                " ELSE quote_ident(attname) END, ', ' ORDER BY attnum) FROM pg_attribute"
                " WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped"
                " AND attname NOT LIKE 'bench_mind_%%'",
                [_column(count), table],
            )
            select = cursor.fetchone()[0]
            cursor.execute(f"CREATE SCHEMA {_schema(count)}")
            view = f"CREATE VIEW {_schema(count)}.{table} AS SELECT {select} FROM public.{table}"  # noqa: S608 — ours
            cursor.execute(view)
    print("Indexes: " + ", ".join(f"{name} {value} s" for name, value in timings.items()), flush=True)
    return Fixture(ids=ids, vectors=vectors, minds=assignment), timings


def _recall(fixture: Fixture, returned: list[str], correct: set[int]) -> float:
    found = sum(1 for pk in returned if fixture.row_of[pk] in correct)
    return min(found, K) / K


def _percentiles(samples: list[float]) -> dict:
    p50, p95 = np.percentile(np.asarray(samples), [50, 95])
    return {"p50_ms": round(float(p50), 2), "p95_ms": round(float(p95), 2)}


def layout_measure(fixture: Fixture, *, mind_count: int, queries: list[str], ef_search: int, plan: str) -> dict:
    """Recall@K, order and latency of one mind's semantic search, and of the unfiltered HNSW top K."""
    from django.conf import settings
    from django.test import override_settings

    bound = {"auto": settings.SYNAPSE_EXACT_SCAN_MAX_ROWS, "exact": len(fixture.ids), "hnsw": -1}[plan]
    with override_settings(SYNAPSE_HNSW_EF_SEARCH=ef_search, SYNAPSE_EXACT_SCAN_MAX_ROWS=bound):
        result = _layout_measure(fixture, mind_count=mind_count, queries=queries)
    return {"plan_forced": plan != "auto", "exact_scan_max_rows": bound, **result}


def _layout_measure(fixture: Fixture, *, mind_count: int, queries: list[str]) -> dict:
    from django.db import connection, transaction

    from memories.embedders import get_embedder
    from memories.models import Memory
    from memories.selectors import search, vector_plan

    schema = "public" if mind_count == 1 else f"{_schema(mind_count)}, public"
    with connection.cursor() as cursor:
        cursor.execute(f"SET search_path TO {schema}")
    embedder = get_embedder()
    minds = fixture.minds[mind_count]
    rows_of_mind: dict[str, np.ndarray] = {}
    for row, mind in enumerate(minds):
        rows_of_mind.setdefault(mind, []).append(row)
    rows_of_mind = {mind: np.asarray(rows) for mind, rows in rows_of_mind.items()}
    mind_ids = sorted(rows_of_mind)
    all_rows = np.arange(len(fixture.ids))
    ef_search = vector_plan.hnsw_settings(K)["ef_search"]
    table = Memory._meta.db_table
    unfiltered_sql = f"SELECT id FROM public.{table} ORDER BY embedding <=> %s::vector LIMIT %s"  # noqa: S608

    mind_ms, mind_recall, out_of_order = [], [], 0
    all_ms, all_recall = [], []
    # Every row's exact cosine distance to every query (the vectors are unit vectors), once.
    query_vectors = embedder.embed(queries)
    distances_of = 1.0 - fixture.vectors @ query_vectors.T
    for index, q in enumerate([*queries[:WARMUP_QUERIES], *queries]):
        timed = index >= WARMUP_QUERIES
        mind_id = mind_ids[index % len(mind_ids)]
        clock = time.perf_counter()
        hits = search.memories_semantic_search(mind_id=mind_id, q=q, limit=K, threshold=-1.0)
        elapsed = (time.perf_counter() - clock) * 1000
        clock = time.perf_counter()
        with transaction.atomic(), connection.cursor() as cursor:
            vector = embedder.embed([q])[0]
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [ef_search])
            cursor.execute(unfiltered_sql, ["[" + ",".join(map(str, vector.tolist())) + "]", K])
            unfiltered = [row[0] for row in cursor.fetchall()]
        unfiltered_elapsed = (time.perf_counter() - clock) * 1000
        if not timed:
            continue
        distances = distances_of[:, index - WARMUP_QUERIES]
        correct = exact_top(distances, rows_of_mind[mind_id], K)
        mind_recall.append(_recall(fixture, [hit.memory.pk for hit in hits], correct))
        similarities = [hit.similarity for hit in hits]
        out_of_order += similarities != sorted(similarities, reverse=True)
        mind_ms.append(elapsed)
        correct_all = exact_top(distances, all_rows, K)
        all_recall.append(_recall(fixture, unfiltered, correct_all))
        all_ms.append(unfiltered_elapsed)
    # Which plan the selector chose for this layout's minds (all of them are the same size).
    with transaction.atomic():
        plan = search.vector_plan(mind_id=mind_ids[0], candidates=K).value
    with connection.cursor() as cursor:
        cursor.execute("RESET search_path")
    mind = {"recall_at_10": round(float(np.mean(mind_recall)), 4), **_percentiles(mind_ms)}
    unfiltered = {"recall_at_10": round(float(np.mean(all_recall)), 4), **_percentiles(all_ms)}
    return {
        "minds": mind_count,
        "memories_per_mind": len(fixture.ids) // mind_count,
        "queries": len(mind_ms),
        "vector_plan": plan,
        "ef_search": int(ef_search),
        "mind_search": {
            **mind,
            "min_recall_at_10": round(float(np.min(mind_recall)), 4),
            "lists_out_of_order": out_of_order,
        },
        "unfiltered_hnsw": unfiltered,
        "p95_ratio": round(mind["p95_ms"] / unfiltered["p95_ms"], 2),
    }


def _table(layouts: list[dict]) -> str:
    header = (
        f"{'minds':>6} {'per mind':>9} {'plan':>6} {'ef':>5} | {'recall@10':>9} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'unordered':>9} | {'unfiltered recall':>17} {'p50 ms':>7} {'p95 ms':>7} | {'p95 ratio':>9}  goal"
    )
    lines = [header, "-" * len(header)]
    for layout in layouts:
        mind, unfiltered = layout["mind_search"], layout["unfiltered_hnsw"]
        passed = mind["recall_at_10"] >= 0.98 and layout["p95_ratio"] <= 3 and not mind["lists_out_of_order"]
        lines.append(
            f"{layout['minds']:>6} {layout['memories_per_mind']:>9} {layout['vector_plan']:>6} "
            f"{layout['ef_search']:>5} | {mind['recall_at_10']:>9.3f} {mind['p50_ms']:>7.2f} {mind['p95_ms']:>7.2f} "
            f"{mind['lists_out_of_order']:>9} | "
            f"{unfiltered['recall_at_10']:>17.3f} {unfiltered['p50_ms']:>7.2f} {unfiltered['p95_ms']:>7.2f} | "
            f"{layout['p95_ratio']:>9.2f}  {'PASS' if passed else 'FAIL'}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    django_setup()
    from django.db import connection

    started = datetime.now(UTC)
    print(f"Creating database {BENCH_DATABASE} …", flush=True)
    database_create()
    layouts = []
    try:
        connection.ensure_connection()
        # Never a server-side prepared statement: a generic plan would outlive the settings the
        # selector changes per query (Django's client-side binding does not prepare either).
        connection.connection.prepare_threshold = None
        fixture, build = fixture_build(total=args.memories, mind_counts=args.minds, seed=args.seed)
        queries = search_queries(args.queries, seed=args.seed)
        from django.conf import settings

        for repeat in range(args.repeat):
            for count in args.minds:
                for ef_search in args.ef_search or [settings.SYNAPSE_HNSW_EF_SEARCH]:
                    for plan in args.plans:
                        print(f"… {count} minds, ef_search {ef_search}, plan {plan} (run {repeat + 1})", flush=True)
                        measured = layout_measure(
                            fixture, mind_count=count, queries=queries, ef_search=ef_search, plan=plan
                        )
                        layouts.append({"run": repeat + 1, **measured})
                        print(_table(layouts[-1:]).splitlines()[-1], flush=True)
        machine = {
            "cpu_count": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),
            **server_versions(),
        }
    finally:
        if not args.keep:
            database_drop()
    print()
    print(_table(layouts))
    print(
        f"Load average {machine['load_average_1m']}, PostgreSQL {machine['postgres']}, pgvector {machine['pgvector']}"
    )
    result = {
        "benchmark": "filtered-search",
        "started_at": started_at(started),
        "machine": machine,
        "config": {
            "memories": args.memories,
            "queries": args.queries,
            "seed": args.seed,
            "k": K,
            "embedder": "hashing",
        },
        "build": build,
        "layouts": layouts,
    }
    if not args.no_save:
        result_save("filtered-search", result, started=started)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
