"""`python -m bench embedder-cost`: what each embedder costs — the cost table of docs/embeddings.md.

    python -m bench embedder-cost [--embedders hashing minilm-onnx] [--memories 1000] [--requests 60]

For each embedder, in one throw-away database (a mind of `--memories` corpus memories per
embedder, bench/corpus.py):

- texts/s: `--texts` corpus texts embedded in one call with 1 and 2 threads (SYNAPSE_EMBEDDER_THREADS;
  hashing is single-threaded Python, so it has one figure), and one text alone (a store's embedding);
- store and query latency in-process (DRF's APIClient, the whole middleware and view stack):
  POST /memory, GET /memory/search, GET /memory/semantic-search, p50 and p95 of `--requests`;
- RSS of a web process (the WSGI application after stores and searches) and a worker process
  (promotion of the new memories, which embeds them into knots), each a fresh process of its own.

The standard benchmarks stay on hashing (bench.database.django_setup); this one is where the
other embedders' costs are measured. Other work on the machine skews every figure: the load
average is printed and saved beside them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime

import numpy as np

from bench.corpus import memory_specs, new_memory_bodies, search_queries
from bench.database import database_create, database_drop, django_setup, server_versions
from bench.saving import machine_of, result_report

COST_DATABASE = "bench_embedder_cost"
DEFAULT_EMBEDDERS = ("hashing", "minilm-onnx")
DEFAULT_MEMORIES = 1_000
DEFAULT_REQUESTS = 60
DEFAULT_WARMUP = 5
DEFAULT_TEXTS = 1_000
DEFAULT_SEED = 20261207
THREAD_COUNTS = (1, 2)
# Texts embedded one by one for the single-text figure (texts).
SINGLE_TEXTS = 50
# Requests a probe process answers (web) or memories it promotes (worker) before its RSS is read.
PROBE_ROUNDS = 10
PASSWORD = "bench password that is long enough"  # noqa: S105 — a throw-away database's user
LATENCY_OPERATIONS = ("store", "search", "semantic_search")


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench embedder-cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedders", nargs="+", default=list(DEFAULT_EMBEDDERS))
    parser.add_argument("--memories", type=int, default=DEFAULT_MEMORIES, help="memories of each embedder's mind")
    parser.add_argument("--requests", type=int, default=DEFAULT_REQUESTS, help="timed requests per operation")
    parser.add_argument("--warmup", type=int, default=DEFAULT_WARMUP)
    parser.add_argument("--texts", type=int, default=DEFAULT_TEXTS, help="texts of the throughput figure")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--database", default=COST_DATABASE)
    parser.add_argument("--no-rss", action="store_true", help="skip the web and worker processes")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/*.json")
    parser.add_argument("--probe", nargs=4, metavar=("ROLE", "EMBEDDER", "MIND_KEY", "MIND"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def _percentiles(seconds: list[float], cpu_seconds: list[float]) -> dict:
    """Wall-clock p50/p95 and the median CPU time of this process (the load-independent part:
    Django, the view and the embedding, not PostgreSQL's work)."""
    values = np.asarray(seconds) * 1000
    return {
        "n": len(values),
        "p50_ms": round(float(np.percentile(values, 50)), 2),
        "p95_ms": round(float(np.percentile(values, 95)), 2),
        "cpu_p50_ms": round(float(np.percentile(np.asarray(cpu_seconds) * 1000, 50)), 2),
    }


def throughput(backend: str, texts: list[str]) -> dict:
    """Texts per second with each thread count, and one text's embedding time."""
    from django.test import override_settings

    from memories.embedders import get_embedder

    result = {}
    for threads in THREAD_COUNTS if backend == "minilm-onnx" else THREAD_COUNTS[:1]:
        with override_settings(SYNAPSE_EMBEDDER=backend, SYNAPSE_EMBEDDER_THREADS=threads):
            embedder = get_embedder()
        embedder.embed(texts[:64])  # the first pass pays for allocations
        started, cpu_started = time.perf_counter(), time.process_time()
        embedder.embed(texts)
        result[f"texts_per_s_{threads}_threads"] = round(len(texts) / (time.perf_counter() - started), 1)
        # Per second of this process's CPU time: what the embedder costs apart from the machine's load.
        result[f"texts_per_cpu_s_{threads}_threads"] = round(len(texts) / (time.process_time() - cpu_started), 1)
    with override_settings(SYNAPSE_EMBEDDER=backend, SYNAPSE_EMBEDDER_THREADS=1):
        embedder = get_embedder()
    single, single_cpu = [], []
    for text in texts[:SINGLE_TEXTS]:
        started, cpu_started = time.perf_counter(), time.process_time()
        embedder.embed([text])
        single.append(time.perf_counter() - started)
        single_cpu.append(time.process_time() - cpu_started)
    result["one_text"] = _percentiles(single, single_cpu)
    return result


def mind_build(backend: str, *, memories: int, seed: int) -> tuple[str, str]:
    """A mind of `memories` corpus memories embedded by `backend`; returns its Mind Key and id."""
    from django.db import connection
    from django.test import override_settings
    from django.utils import timezone

    from memories.embedders import get_embedder
    from memories.models import Memory, Source
    from memories.services.memory import memory_build
    from minds.services import mind_create, user_register

    owner = user_register(email=f"cost-{backend}@example.com", password=PASSWORD)
    mind, issued = mind_create(owner=owner, name=f"Cost of {backend}")
    specs = memory_specs(memories, seed=seed)
    with override_settings(SYNAPSE_EMBEDDER=backend):
        embedder = get_embedder()
    vectors = embedder.embed([spec.content for spec in specs])
    now = timezone.now()
    rows = []
    for spec, vector in zip(specs, vectors, strict=True):
        fields = {"category": spec.category, "content": spec.content, "tags": spec.tags, "priority": spec.priority}
        memory = memory_build(
            mind=mind, fields=fields, key=spec.key, source=Source.AGENT, speaker=None, turn_id="",
            created_at=now, updated_at=now,
        )  # fmt: skip
        memory.embedding, memory.embedding_model = vector, embedder.name
        rows.append(memory)
    Memory.objects.bulk_create(rows)
    mind.embedding_model = embedder.name
    mind.save(update_fields=["embedding_model"])
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return issued.plaintext, mind.pk


def latency(backend: str, key: str, *, requests: int, warmup: int, seed: int) -> dict:
    """p50/p95 of a store, a hybrid search and a semantic search, in-process."""
    from django.test import override_settings
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    bodies = new_memory_bodies(warmup + requests, seed=seed)
    queries = search_queries(warmup + requests, seed=seed)
    operations = {
        "store": lambda i: client.post("/memory", bodies[i], format="json"),
        "search": lambda i: client.get("/memory/search", {"q": queries[i]}),
        "semantic_search": lambda i: client.get("/memory/semantic-search", {"q": queries[i]}),
    }
    result = {}
    with override_settings(SYNAPSE_EMBEDDER=backend, SYNAPSE_EMBEDDER_THREADS=1):
        for name, call in operations.items():
            timings, cpu_timings = [], []
            for index in range(warmup + requests):
                started, cpu_started = time.perf_counter(), time.process_time()
                response = call(index)
                elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
                if response.status_code not in (200, 201):
                    raise SystemExit(f"{name} answered {response.status_code}: {response.content[:300]!r}")
                if index >= warmup:
                    timings.append(elapsed)
                    cpu_timings.append(cpu)
            result[name] = _percentiles(timings, cpu_timings)
    return result


def probe(role: str, backend: str, key: str, mind_id: str) -> None:
    """In a fresh process: do a web's or a worker's work with `backend`, print the RSS (MB) as JSON."""
    import psutil
    from django.test import override_settings

    with override_settings(SYNAPSE_EMBEDDER=backend, SYNAPSE_EMBEDDER_THREADS=1):
        if role == "web":
            from rest_framework.test import APIClient

            from memoryproject.wsgi import application  # noqa: F401 — what gunicorn loads

            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
            for index, body in enumerate(new_memory_bodies(PROBE_ROUNDS, seed=DEFAULT_SEED + 7)):
                assert client.post("/memory", body, format="json").status_code in (200, 201)
                assert client.get("/memory/search", {"q": f"{body['content']} {index}"}).status_code == 200
        else:
            from memories.models import Memory
            from synapses.tasks import memories_promote

            ids = list(Memory.objects.filter(mind_id=mind_id).order_by("id").values_list("id", flat=True))
            memories_promote(ids[:PROBE_ROUNDS])
    print(json.dumps({"rss_mb": round(psutil.Process().memory_info().rss / 2**20, 1)}))


def rss(backend: str, key: str, mind_id: str, database: str) -> dict:
    result = {}
    for role in ("web", "worker"):
        output = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench",
                "embedder-cost",
                "--database",
                database,
                "--probe",
                role,
                backend,
                key,
                mind_id,
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        result[f"{role}_rss_mb"] = json.loads(output.strip().splitlines()[-1])["rss_mb"]
    return result


def _table(rows: dict[str, dict]) -> str:
    header = (
        f"{'embedder':<13} {'texts/s 1t':>10} {'texts/s 2t':>10} {'/CPU-s 1t':>9} {'1 text p50':>11} "
        f"{'store':>15} {'search':>15} {'semantic':>17} {'web RSS':>8} {'worker RSS':>10}"
    )
    lines = [header, "-" * len(header)]
    for backend, row in rows.items():
        pair = {
            name: f"{row[name]['p50_ms']:.0f}/{row[name]['p95_ms']:.0f} ({row[name]['cpu_p50_ms']:.0f})"
            for name in LATENCY_OPERATIONS
        }

        lines.append(
            f"{backend:<13} {row['texts_per_s_1_threads']:>10} {row.get('texts_per_s_2_threads', '—'):>10} "
            f"{row['texts_per_cpu_s_1_threads']:>9} "
            f"{row['one_text']['p50_ms']:>5.0f} ({row['one_text']['cpu_p50_ms']:.0f}) "
            f"{pair['store']:>15} {pair['search']:>15} {pair['semantic_search']:>17} "
            f"{row.get('web_rss_mb', '—'):>8} {row.get('worker_rss_mb', '—'):>10}"
        )
    note = "(ms, in-process: p50/p95 wall, in brackets the p50 CPU time of this process; RSS in MB)"
    return "\n".join(lines) + "\n" + note


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    django_setup(embedder="hashing")
    if args.probe:
        from django.conf import settings

        settings.DATABASES["default"]["NAME"] = args.database
        probe(*args.probe)
        return 0
    started = datetime.now(UTC)
    texts = [spec.content for spec in memory_specs(args.texts, seed=args.seed + 1)]
    database_create(args.database)
    rows: dict[str, dict] = {}
    try:
        for backend in args.embedders:
            print(f"{backend}: throughput …", flush=True)
            row = throughput(backend, texts)
            print(f"{backend}: a mind of {args.memories} memories, then latency …", flush=True)
            key, mind_id = mind_build(backend, memories=args.memories, seed=args.seed)
            row |= latency(backend, key, requests=args.requests, warmup=args.warmup, seed=args.seed)
            if not args.no_rss:
                print(f"{backend}: RSS of a web and a worker process …", flush=True)
                row |= rss(backend, key, mind_id, args.database)
            rows[backend] = row
        machine = machine_of(server_versions())
    finally:
        database_drop(args.database)
    result_report(
        "embedder-cost",
        table=_table(rows),
        machine=machine,
        started=started,
        save=not args.no_save,
        parameters={"memories": args.memories, "requests": args.requests, "texts": args.texts},
        embedders=rows,
    )
    return 0
