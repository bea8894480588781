"""`python -m bench latency`: each endpoint against the database's own limit, at several mind sizes.

One database holds one mind per size (1k, 10k, 100k memories by default: each mind's neighbours
are the other sizes' minds). For every operation and size, each timed round runs, in an order
that rotates round by round:

- the endpoint in-process (DRF's `APIClient`: the whole middleware and view stack, no socket),
- the endpoint over HTTP (gunicorn on loopback, configured by `memoryproject/gunicorn_conf.py`
  as `manage.py serve` starts it),
- the bare SQL the endpoint runs: its queries, captured once per input with Django's
  `CaptureQueriesContext` (in a transaction rolled back afterwards), replayed statement by
  statement on a psycopg connection without server-side prepares (`prepare_threshold=None`)
  inside a transaction that is rolled back,
- the bare HNSW top 10 of the whole table at the product's `hnsw.ef_search`,
- the request floor: an authenticated request answering 404, in-process and over HTTP.

So every figure stands beside the database's own cost of the same work measured under the same
load. Rows with a vector part also carry its recall against the exact nearest neighbours
(numpy over the stored vectors). Every mind also gets its long-term net, derived on the server
from its memories (nets_derive), so recall with `q` runs its resonance section and resonance
(`GET /synapses/resonance`) gets rows of its own; knot promotion is measured by
`python -m bench promotion` (PENDING_OPERATIONS).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

import numpy as np

from bench.corpus import CAPTURE_INPUTS, memory_specs, new_memory_bodies, search_queries
from bench.database import (
    BENCH_THROTTLE_RATE,
    database_create,
    database_drop,
    database_open,
    django_setup,
    server_versions,
)
from bench.saving import result_save, started_at
from bench.vector_truth import exact_top
from memoryproject.embedded.port import free_port as _free_port

# A database of its own, so this benchmark and filtered-search can run side by side.
LATENCY_DATABASE = "bench_synapse_latency"
# Memories of the benchmarked minds, one mind per size (issue: 1k, 10k, 100k).
DEFAULT_SIZES = (1_000, 10_000, 100_000)
# Timed rounds per operation and size, after WARMUP rounds: 60 rounds give each p95 three
# samples above it (the p99 stays rough), and keep the whole table inside make bench's budget.
DEFAULT_REQUESTS = 60
DEFAULT_WARMUP = 5
# The bare HNSW query runs in every this-many-th round only (rounds): it is the same query for
# every operation and, at ef_search 1000, the costliest part of a round (~0.2 s).
HNSW_ROUND_EVERY = 2
DEFAULT_SEED = 20261201
# Nearest neighbours of the bare HNSW query and of semantic search's recall (recall@K).
K = 10
# The goal (reported, not gated): in-process p95 at most this many times the bare SQL's p95.
GOAL_RATIO = 2.0
# Operations of the synapse model measured elsewhere (python -m bench promotion).
PENDING_OPERATIONS = ("knot promotion (python -m bench promotion)",)
# Edge pairs per knot of the derived nets (pairs; each written in both directions), as the net
# fixture's default (bench/net_fixture.py).
NET_EDGE_PAIRS = 3
# Items one resonance request asks for (knots): the limit the bench's rows use.
RESONANCE_LIMIT = 10
# Seconds to wait for gunicorn to answer its first request.
SERVER_START_TIMEOUT = 60
# Path of the request floor: a memory id that does not exist (404 after authentication).
FLOOR_PATH = "/memory/mem_doesnotexist00"


@dataclass(frozen=True)
class Operation:
    name: str
    method: str
    path: str
    # Number of vector neighbours the operation's vector part asks for (None: it has none).
    vector_k: int | None


# The operations' names, in the table's order (`--only` picks among them).
OPERATION_NAMES = ("recall", "recall ?q", "search", "semantic search", "resonance", "store")


def operations() -> list[Operation]:
    from memories.selectors.search import SEARCH_MIN_CANDIDATES

    # Store last: the reads all see the mind as loaded.
    return [
        Operation("recall", "GET", "/memory/recall", None),
        Operation("recall ?q", "GET", "/memory/recall", None),  # q adds the resonance section
        Operation("search", "GET", "/memory/search", SEARCH_MIN_CANDIDATES),
        Operation("semantic search", "GET", "/memory/semantic-search", K),
        Operation("resonance", "GET", "/synapses/resonance", RESONANCE_LIMIT),
        Operation("store", "POST", "/memory", None),
    ]


@dataclass
class BenchMind:
    size: int
    mind_id: str
    key: str
    rows: np.ndarray  # the mind's rows in Loaded.vectors


@dataclass
class Loaded:
    ids: list[str]
    vectors: np.ndarray
    minds: list[BenchMind]
    load_s: float


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench latency", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="memories per mind")
    parser.add_argument("--requests", type=int, default=DEFAULT_REQUESTS, help="timed rounds per operation")
    parser.add_argument("--warmup", type=int, default=DEFAULT_WARMUP)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-http", action="store_true", help="in-process only (no gunicorn)")
    parser.add_argument("--no-peer", action="store_true", help="skip the mem0 peer even when it is installed")
    parser.add_argument("--peer-max-size", type=int, default=10_000, help="largest mind the peer loads")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/*.json")
    parser.add_argument("--database", default=LATENCY_DATABASE, help="the throw-away database's name")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards (for --reuse)")
    parser.add_argument(
        "--reuse", action="store_true", help="use the minds a --keep run left in --database instead of building them"
    )
    parser.add_argument(
        "--only", nargs="+", metavar="OPERATION", choices=OPERATION_NAMES,
        help=f"measure only these operations (default: all): {', '.join(OPERATION_NAMES)}",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if min(args.sizes) < 1 or args.requests < 1 or args.warmup < 0:
        parser.error("--sizes and --requests must be at least 1, --warmup at least 0")
    return args


# --- the fixture ------------------------------------------------------------------------------


def minds_load(sizes: list[int], *, seed: int) -> Loaded:
    """One mind per size, loaded with COPY; the indexes built after loading (bench/filtered_search.py)."""
    from django.db import connection
    from django.utils import timezone

    from bench.filtered_search import BUILD_MAINTENANCE_WORK_MEM, EMBED_BATCH, INDEXES_BUILT_AFTER_LOADING
    from bench.fixture import MemoryRows
    from memories.embedders import get_embedder
    from memories.models import Memory
    from minds.services import mind_create, user_register

    clock = time.perf_counter()
    owner = user_register(email="latency@example.com", password="bench password that is long enough")
    table = Memory._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname = ANY(%s)",
            [table, list(INDEXES_BUILT_AFTER_LOADING)],
        )
        definitions = dict(cursor.fetchall())
        for name in definitions:
            cursor.execute(f"DROP INDEX {name}")
    embedder = get_embedder()
    total = sum(sizes)
    ids: list[str] = []
    vectors = np.zeros((total, embedder.dimensions), dtype=np.float32)
    minds = []
    now = timezone.now()
    for index, size in enumerate(sizes):
        mind, issued = mind_create(owner=owner, name=f"{size} memories")
        memory_rows = MemoryRows(mind, now=now)
        first = len(ids)
        specs = memory_specs(size, seed=seed + index)
        with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({memory_rows.columns}) FROM STDIN") as copy:
            for start in range(0, size, EMBED_BATCH):
                batch = specs[start : start + EMBED_BATCH]
                embedded = embedder.embed([spec.content for spec in batch])
                vectors[first + start : first + start + len(batch)] = embedded
                for spec, vector in zip(batch, embedded, strict=True):
                    # What an agent's POST /memory would store, with the store's defaults.
                    values = memory_rows.values(
                        spec, created_at=now, updated_at=now, embedding=vector, embedding_model=embedder.name
                    )
                    ids.append(values["id"])
                    copy.write_row(memory_rows.row(values))
        minds.append(BenchMind(size, mind.pk, issued.plaintext, np.arange(first, first + size)))
    with connection.cursor() as cursor:
        cursor.execute(f"SET maintenance_work_mem = '{BUILD_MAINTENANCE_WORK_MEM}'")
        for definition in definitions.values():
            cursor.execute(definition)
        cursor.execute("RESET maintenance_work_mem")
        cursor.execute("VACUUM ANALYZE")
    return Loaded(ids=ids, vectors=vectors, minds=minds, load_s=round(time.perf_counter() - clock, 1))


def minds_reopen(sizes: list[int]) -> Loaded | None:
    """The minds of `sizes` a kept run left in the current database (a new Mind Key each; ids
    and vectors read back), or None when one of them is missing. Stores of the kept run stay in
    their minds: reused minds hold a few hundred memories more than their size, without knots."""
    from memories.models import Memory
    from minds.models import Mind
    from minds.services import mind_key_issue

    clock = time.perf_counter()
    found = {mind.name: mind for mind in Mind.objects.filter(name__in=[f"{size} memories" for size in sizes])}
    if len(found) != len(set(sizes)):
        return None
    ids: list[str] = []
    vectors: list[np.ndarray] = []
    minds = []
    for size in sizes:
        mind = found[f"{size} memories"]
        first = len(ids)
        for pk, embedding in Memory.objects.filter(mind=mind).order_by("id").values_list("id", "embedding"):
            ids.append(pk)
            vectors.append(np.asarray(embedding, dtype=np.float32))
        issued = mind_key_issue(mind=mind, label="latency --reuse")
        minds.append(BenchMind(size, mind.pk, issued.plaintext, np.arange(first, len(ids))))
    return Loaded(ids=ids, vectors=np.vstack(vectors), minds=minds, load_s=round(time.perf_counter() - clock, 1))


def nets_derive(minds: list[BenchMind]) -> float:
    """Each mind's long-term net, derived on the server from its memories as promotion would leave
    it (one knot per memory: content, vector, tags as themes, event time, weight_anchor =
    damp(salience); its presence, fresh and active; its origin link), plus NET_EDGE_PAIRS edge
    pairs per knot to other knots of the mind spread by a fixed stride (layer `embedding`, the
    weaker anchor's weight). The knots' indexes are built after the rows. Seconds taken."""
    from django.db import connection
    from django.utils import timezone

    from bench.net_fixture import BUILD_MAINTENANCE_WORK_MEM
    from memories.models import Memory
    from synapses.constants import DAMPING_EXPONENT, WEIGHT_CAP
    from synapses.models import Edge, Knot, KnotPresence, MemoryKnot

    clock = time.perf_counter()
    knot, presence = Knot._meta.db_table, KnotPresence._meta.db_table
    mind_ids = [mind.mind_id for mind in minds]
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname <> %s"
            " AND (indexdef ILIKE '%%USING hnsw%%' OR indexdef ILIKE '%%USING gin%%')",
            [knot, f"{knot}_pkey"],
        )
        definitions = dict(cursor.fetchall())
        for name in definitions:
            cursor.execute(f"DROP INDEX {name}")
        # damp(): WEIGHT_CAP · sin(min(raw / WEIGHT_CAP, 1) · π/2) ^ DAMPING_EXPONENT (synapses.net.geometry).
        cursor.execute(
            f"""INSERT INTO {knot} (mind_id, memory_id, content, content_hash, category, observer, emotion, arousal,
                    attributes, embedding, embedding_model, themes, entities, event_time, event_precision,
                    weight_raw, weight_anchor, activation_count, created_at, source_created_at)
                SELECT m.mind_id, m.id, m.content, m.content_hash, m.category, m.speaker, '', NULL, '{{}}'::jsonb,
                       m.embedding, m.embedding_model, m.tags, '{{}}', m.event_time, m.event_precision, m.salience,
                       %(cap)s * power(sin(least(m.salience / %(cap)s, 1) * pi() / 2), %(exponent)s), 1, m.created_at,
                       m.created_at
                  FROM {Memory._meta.db_table} m WHERE m.mind_id = ANY(%(minds)s)""",  # noqa: S608 — our table names
            {"cap": WEIGHT_CAP, "exponent": DAMPING_EXPONENT, "minds": mind_ids},
        )
        cursor.execute(
            f"""INSERT INTO {presence} (knot_id, mind_id, presence_base, weight_present, reinforced_at, decayed_at,
                    is_active)
                SELECT id, mind_id, weight_anchor, weight_anchor, %(now)s, %(now)s, true FROM {knot}
                 WHERE mind_id = ANY(%(minds)s)""",  # noqa: S608
            {"now": now, "minds": mind_ids},
        )
        cursor.execute(
            f"""INSERT INTO {MemoryKnot._meta.db_table} (mind_id, memory_id, content_hash, knot_id, kind, created_at)
                SELECT mind_id, memory_id, content_hash, id, 'origin', created_at FROM {knot}
                 WHERE mind_id = ANY(%(minds)s)""",  # noqa: S608
            {"minds": mind_ids},
        )
        # Fresh statistics first: planned on the empty table's, the pairing join below became a
        # nested loop whose temporary files filled the disk (a one-mind build of 100,000 knots).
        cursor.execute(f"ANALYZE {knot}")
        # Knot n of a mind of `size` knots pairs with knots (n·31 + j·7919) mod size, j = 1..pairs: a
        # fixed spread over the whole mind, no two knots of a pair the same.
        cursor.execute(
            f"""WITH numbered AS (
                    SELECT id, mind_id, weight_anchor, row_number() OVER (PARTITION BY mind_id ORDER BY id) - 1 AS n,
                           count(*) OVER (PARTITION BY mind_id) AS size
                      FROM {knot} WHERE mind_id = ANY(%(minds)s)
                ), pairs AS (
                    SELECT a.mind_id, a.id AS a, b.id AS b, least(a.weight_anchor, b.weight_anchor) AS weight
                      FROM numbered a, generate_series(1, %(pairs)s) AS j(j)
                      JOIN numbered b ON true
                     WHERE b.mind_id = a.mind_id AND b.n = (a.n * 31 + j.j * 7919) %% a.size AND b.id <> a.id
                )
                INSERT INTO {Edge._meta.db_table} (mind_id, source_id, target_id, weight_raw, weight_anchor, layers,
                    shared_entities, shared_themes, time_distance, cosine_initial, layer_count, created_at)
                SELECT mind_id, s, t, weight, weight, ARRAY['embedding'], '{{}}', '{{}}', NULL, NULL, 1, %(now)s
                  FROM pairs, LATERAL (VALUES (a, b), (b, a)) AS d(s, t)
                ON CONFLICT DO NOTHING""",  # noqa: S608
            {"minds": mind_ids, "pairs": NET_EDGE_PAIRS, "now": now},
        )
        cursor.execute(f"SET maintenance_work_mem = '{BUILD_MAINTENANCE_WORK_MEM}'")
        for definition in definitions.values():
            cursor.execute(definition)
        cursor.execute("RESET maintenance_work_mem")
        cursor.execute("VACUUM ANALYZE")
    return round(time.perf_counter() - clock, 1)


# --- the HTTP server --------------------------------------------------------------------------


def _database_url() -> str:
    """The bench database as a DATABASE_URL for the gunicorn processes (same server, same user)."""
    from urllib.parse import quote

    from django.db import connection

    params = connection.get_connection_params()
    host = params.get("host") or ""
    query = {"host": host} if host.startswith("/") else {}
    netloc = f"{quote(params.get('user') or '')}:{quote(params.get('password') or '')}@"
    if host and not host.startswith("/"):
        netloc += host + (f":{params['port']}" if params.get("port") else "")
    url = f"postgresql://{netloc}/{params['dbname']}"
    return url + ("?" + urlencode(query) if query else "")


class Server:
    """gunicorn on a free loopback port, as `manage.py serve` runs it, serving the bench database."""

    def __init__(self):
        from django.conf import settings

        self.port = _free_port()
        env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "DEBUG": "false",
            "SYNAPSE_EMBEDDER": "hashing",
            "THROTTLE_MIND_KEY": BENCH_THROTTLE_RATE,
            "SECRET_KEY": settings.SECRET_KEY,
            "MIND_KEY_PEPPER": settings.MIND_KEY_PEPPER,
            "LOG_LEVEL": "ERROR",  # not a line per enqueued promotion and per 404 (a warning)
        }
        argv = [sys.executable, "-m", "gunicorn", "-c", "python:memoryproject.gunicorn_conf"]
        argv += ["--bind", f"127.0.0.1:{self.port}", "--access-logfile", "/dev/null", "memoryproject.wsgi"]
        self.process = subprocess.Popen(argv, cwd=settings.BASE_DIR, env=env, start_new_session=True)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("gunicorn did not start; run it by hand to see why") from None
                time.sleep(0.2)

    def client(self, key: str) -> HttpClient:
        return HttpClient(self.port, key)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class HttpClient:
    """One keep-alive connection with the Mind Key; returns (status, body bytes)."""

    def __init__(self, port: int, key: str):
        self.port = port
        self.headers = {"Authorization": f"Bearer {key}", "Host": "127.0.0.1"}
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, *, params: dict | None = None, body: dict | None = None):
        url = path + ("?" + urlencode(params) if params else "")
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.connection.request(method, url, body=data, headers=headers)
            response = self.connection.getresponse()
        except (http.client.HTTPException, OSError):  # the server closed an idle keep-alive connection
            self.connection.close()
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            self.connection.request(method, url, body=data, headers=headers)
            response = self.connection.getresponse()
        return response.status, response.read()


# --- one operation at one size ------------------------------------------------------------------


def _inputs(operation: Operation, *, seed: int, count: int) -> list[dict]:
    """Request inputs: {"params": …} for reads, {"body": …} for stores (a new key each)."""
    if operation.name == "store":
        return [{"body": body} for body in new_memory_bodies(count, seed=seed)]
    if operation.name == "recall":
        return [{"params": None}] * count
    queries = search_queries(CAPTURE_INPUTS, seed=seed)
    extra = {"limit": RESONANCE_LIMIT} if operation.name == "resonance" else {}
    return [{"params": {"q": queries[index % len(queries)], **extra}} for index in range(count)]


def _in_process(client, operation: Operation, given: dict):
    if operation.method == "POST":
        return client.post(operation.path, given["body"], format="json").status_code
    return client.get(operation.path, given["params"] or {}).status_code


def _captured_sql(client, operation: Operation, inputs: list[dict]) -> list[list[str]]:
    """Each input's SQL statements, as the endpoint sends them (the request rolled back)."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    captured = []
    for given in inputs:
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            status = _in_process(client, operation, given)
            transaction.set_rollback(True)
        if status >= 400:
            raise RuntimeError(f"{operation.name} answered {status} while capturing its SQL")
        # A COPY's rows travel outside its statement (the pipeline log's synchronous writer uses
        # one): it cannot be replayed as text, and the buffered writer of production sends it on
        # a connection of its own anyway.
        captured.append([query["sql"] for query in queries.captured_queries if not query["sql"].startswith("COPY")])
    return captured


def _percentiles(samples: list[float]) -> dict:
    p50, p95, p99 = np.percentile(np.asarray(samples), [50, 95, 99])
    return {"p50_ms": round(float(p50), 2), "p95_ms": round(float(p95), 2), "p99_ms": round(float(p99), 2)}


def _vector_literal(vector: np.ndarray) -> str:
    return "[" + ",".join(map(str, vector.tolist())) + "]"


def operation_measure(
    operation: Operation,
    mind: BenchMind,
    *,
    client,
    http_client: HttpClient | None,
    raw,
    seed: int,
    requests: int,
    warmup: int,
) -> dict:
    """Interleaved rounds of the endpoint (in-process, HTTP), its bare SQL, the bare HNSW top 10
    and the request floor; p50/p95/p99 of each, and the ratios of the p95s."""
    from memories.embedders import get_embedder
    from memories.models import Memory
    from memories.selectors.vector_plan import hnsw_settings

    rounds = warmup + requests
    # Stores: the capture's keys and the timed requests' keys differ, so the replay (rolled back)
    # never meets a key a timed store committed; in-process and HTTP stores use distinct keys too.
    capture_inputs = _inputs(operation, seed=seed + 7, count=CAPTURE_INPUTS)
    if operation.name == "store":
        for given in capture_inputs:
            given["body"] = {**given["body"], "key": given["body"]["key"].replace("bench_new_", "bench_capture_")}
    captured = _captured_sql(client, operation, capture_inputs)
    timed_inputs = _inputs(operation, seed=seed + 7, count=2 * rounds if operation.name == "store" else rounds)
    queries = search_queries(CAPTURE_INPUTS, seed=seed + 7)
    query_vectors = get_embedder().embed(queries)
    literals = [_vector_literal(vector) for vector in query_vectors]
    ef_search = hnsw_settings(K)["ef_search"]
    hnsw_sql = f"SELECT id FROM {Memory._meta.db_table} ORDER BY embedding <=> %s::vector LIMIT {K}"  # noqa: S608

    def bare_sql(index: int) -> None:
        with raw.transaction(force_rollback=True), raw.cursor() as cursor:
            for statement in captured[index % len(captured)]:
                cursor.execute(statement)
                if cursor.description is not None:
                    cursor.fetchall()

    def bare_hnsw(index: int) -> None:
        with raw.transaction(force_rollback=True), raw.cursor() as cursor:
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [ef_search])
            cursor.execute(hnsw_sql, [literals[index % len(literals)]])
            cursor.fetchall()

    def endpoint_in_process(index: int) -> None:
        given = timed_inputs[2 * index if operation.name == "store" else index]
        status = _in_process(client, operation, given)
        if status >= 400:
            raise RuntimeError(f"{operation.name} answered {status} in-process")

    def endpoint_http(index: int) -> None:
        given = timed_inputs[2 * index + 1 if operation.name == "store" else index]
        status, body = http_client.request(
            operation.method, operation.path, params=given.get("params"), body=given.get("body")
        )
        if status >= 400:
            raise RuntimeError(f"{operation.name} answered {status} over HTTP: {body[:200]!r}")

    def floor_in_process(index: int) -> None:
        if client.get(FLOOR_PATH).status_code != 404:
            raise RuntimeError("the floor request did not answer 404")

    def floor_http(index: int) -> None:
        status, _ = http_client.request("GET", FLOOR_PATH)
        if status != 404:
            raise RuntimeError(f"the floor request answered {status} over HTTP")

    parts = {
        "in_process": endpoint_in_process,
        "bare_sql": bare_sql,
        "bare_hnsw": bare_hnsw,
        "floor_in_process": floor_in_process,
    }
    if http_client is not None:
        parts |= {"http": endpoint_http, "floor_http": floor_http}
    names = list(parts)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for index in range(rounds):
        shift = index % len(names)  # a different part goes first each round
        for name in names[shift:] + names[:shift]:
            if name == "bare_hnsw" and index % HNSW_ROUND_EVERY:
                continue
            clock = time.perf_counter()
            parts[name](index)
            elapsed = (time.perf_counter() - clock) * 1000
            if index >= warmup:
                samples[name].append(elapsed)
    result = {name: _percentiles(values) for name, values in samples.items()}
    bare = result["bare_sql"]["p95_ms"]
    ratios = {"in_process_vs_sql": round(result["in_process"]["p95_ms"] / bare, 2)}
    ratios["in_process_vs_hnsw"] = round(result["in_process"]["p95_ms"] / result["bare_hnsw"]["p95_ms"], 2)
    if "http" in result:
        ratios["http_vs_sql"] = round(result["http"]["p95_ms"] / bare, 2)
    statements = [len(statements) for statements in captured]
    return {
        "operation": operation.name,
        "path": operation.path,
        "size": mind.size,
        "statements": round(float(np.mean(statements)), 1),
        "ef_search": int(ef_search),
        "samples": {name: len(values) for name, values in samples.items()},
        **result,
        "p95_ratios": ratios,
    }


# --- recall of the vector parts -------------------------------------------------------------------


def vector_recall(loaded: Loaded, mind: BenchMind, *, k: int, seed: int) -> float:
    """Recall@k of the mind's semantic search (the selector behind semantic search and hybrid
    search's vector half) against the exact top k of the mind's stored vectors."""
    from memories.embedders import get_embedder
    from memories.selectors.search import memories_semantic_search

    queries = search_queries(CAPTURE_INPUTS, seed=seed + 7)
    vectors = get_embedder().embed(queries)
    row_of = {pk: row for row, pk in enumerate(loaded.ids)}
    found = []
    for q, vector in zip(queries, vectors, strict=True):
        distances = 1.0 - loaded.vectors @ vector
        correct = exact_top(distances, mind.rows, k)
        hits = memories_semantic_search(mind_id=mind.mind_id, q=q, limit=k, threshold=-1.0)
        found.append(min(sum(1 for hit in hits if row_of.get(hit.memory.pk) in correct), k) / min(k, len(mind.rows)))
    return round(float(np.mean(found)), 4)


def resonance_vector_recall(loaded: Loaded, mind: BenchMind, *, k: int, seed: int) -> float:
    """Recall@k of resonance's vector list (the nearest active knots, the anchors' vector half)
    against the exact top k of the mind's vectors (each knot holds its memory's vector). The
    list's first k as a resonance of `limit` k fetches it (anchor_list_sizes: 60 rows at k = 10,
    and an HNSW scan of as many), not a list of only k rows."""
    from memories.embedders import get_embedder
    from synapses import constants
    from synapses.config import synapse_settings
    from synapses.models import Knot
    from synapses.resonance.anchors import anchor_list_sizes, anchor_rows

    queries = search_queries(CAPTURE_INPUTS, seed=seed + 7)
    vectors = get_embedder().embed(queries)
    row_of = {pk: row for row, pk in enumerate(loaded.ids)}
    fetched = anchor_list_sizes(
        limit=k, relevance=synapse_settings.RESONANCE_RANKING == constants.RANKING_RELEVANCE
    ).fetched
    found = []
    for q, vector in zip(queries, vectors, strict=True):
        correct = exact_top(1.0 - loaded.vectors @ vector, mind.rows, k)
        rows = anchor_rows(mind_id=mind.mind_id, q=q, vector=vector, candidates=fetched)
        nearest = [knot_id for knot_id, found_by, *_ in sorted(rows, key=lambda row: row[2]) if found_by == "vector"]
        memory_of = dict(Knot.objects.filter(pk__in=nearest).values_list("pk", "memory_id"))
        hits = sum(1 for knot_id in nearest[:k] if row_of.get(memory_of.get(knot_id)) in correct)
        found.append(min(hits, k) / min(k, len(mind.rows)))
    return round(float(np.mean(found)), 4)


def unfiltered_recall(loaded: Loaded, raw, *, seed: int) -> float:
    """Recall@K of the bare HNSW top K of the whole table against the exact top K."""
    from memories.embedders import get_embedder
    from memories.models import Memory
    from memories.selectors.vector_plan import hnsw_settings

    queries = search_queries(CAPTURE_INPUTS, seed=seed + 7)
    vectors = get_embedder().embed(queries)
    row_of = {pk: row for row, pk in enumerate(loaded.ids)}
    all_rows = np.arange(len(loaded.ids))
    found = []
    sql = f"SELECT id FROM {Memory._meta.db_table} ORDER BY embedding <=> %s::vector LIMIT {K}"  # noqa: S608
    for vector in vectors:
        with raw.transaction(force_rollback=True), raw.cursor() as cursor:
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [hnsw_settings(K)["ef_search"]])
            cursor.execute(sql, [_vector_literal(vector)])
            returned = [row[0] for row in cursor.fetchall()]
        correct = exact_top(1.0 - loaded.vectors @ vector, all_rows, K)
        found.append(min(sum(1 for pk in returned if row_of.get(pk) in correct), K) / K)
    return round(float(np.mean(found)), 4)


# --- the table ------------------------------------------------------------------------------------


def _cell(part: dict | None) -> str:
    return "—" if part is None else f"{part['p50_ms']:.1f}/{part['p95_ms']:.1f}/{part['p99_ms']:.1f}"


def table(rows: list[dict], *, unfiltered: dict[int, float]) -> str:
    header = (
        f"{'operation':<16} {'size':>7} {'SQL':>4} | {'in-process p50/95/99':>20} {'HTTP p50/95/99':>20} | "
        f"{'bare SQL':>17} {'bare HNSW':>17} {'floor in-proc':>17} {'floor HTTP':>17} | "
        f"{'in/SQL':>6} {'HTTP/SQL':>8} {'in/HNSW':>7} | {'recall':>6} {'HNSW rec.':>9}  goal ≤{GOAL_RATIO:g}×"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        ratios = row["p95_ratios"]
        recall = "—" if row.get("vector_recall") is None else f"{row['vector_recall']:.3f}"
        http_ratio = f"{ratios['http_vs_sql']:>8.2f}" if "http_vs_sql" in ratios else f"{'—':>8}"
        goal = "met" if ratios["in_process_vs_sql"] <= GOAL_RATIO else "not met"
        lines.append(
            f"{row['operation']:<16} {row['size']:>7} {row['statements']:>4g} | {_cell(row['in_process']):>20} "
            f"{_cell(row.get('http')):>20} | {_cell(row['bare_sql']):>17} {_cell(row['bare_hnsw']):>17} "
            f"{_cell(row['floor_in_process']):>17} {_cell(row.get('floor_http')):>17} | "
            f"{ratios['in_process_vs_sql']:>6.2f} {http_ratio} {ratios['in_process_vs_hnsw']:>7.2f} | "
            f"{recall:>6} {unfiltered[row['size']]:>9.3f}  {goal}"
        )
    lines.append(f"{'(elsewhere)':<16} " + "; ".join(PENDING_OPERATIONS))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = arguments(argv)
    django_setup()

    import psycopg
    from django.db import connection
    from rest_framework.test import APIClient

    from bench.peer import peer_available, peer_run, peer_table

    started = datetime.now(UTC)
    loaded = minds_reopen(args.sizes) if args.reuse and database_open(args.database) else None
    server = None
    rows: list[dict] = []
    peer = None
    if loaded is not None:
        net_s = 0.0
        print(f"Reusing the minds of {args.sizes} in {args.database} ({loaded.load_s} s).", flush=True)
    else:
        print(f"Creating database {args.database} …", flush=True)
        database_create(args.database)
    try:
        if loaded is None:
            loaded = minds_load(args.sizes, seed=args.seed)
            print(f"Loaded {len(loaded.ids)} memories in minds of {args.sizes} ({loaded.load_s} s).", flush=True)
            net_s = nets_derive(loaded.minds)
            print(f"Derived each mind's long-term net ({net_s} s).", flush=True)
        # Never a server-side prepared statement (a generic plan would outlive per-query settings).
        raw = psycopg.connect(**{**connection.get_connection_params(), "prepare_threshold": None})
        if not args.no_http:
            server = Server()
        unfiltered = {}
        hnsw_recall = unfiltered_recall(loaded, raw, seed=args.seed)
        for mind in loaded.minds:
            unfiltered[mind.size] = hnsw_recall
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {mind.key}")
            http_client = server.client(mind.key) if server else None
            # Before any store adds memories the fixture's vectors do not hold.
            recalls = {
                k: vector_recall(loaded, mind, k=k, seed=args.seed)
                for k in {operation.vector_k for operation in operations()} - {None}
            }
            recalls["resonance"] = resonance_vector_recall(loaded, mind, k=RESONANCE_LIMIT, seed=args.seed)
            for operation in operations():
                if args.only and operation.name not in args.only:
                    continue
                print(f"… {operation.name} at {mind.size}", flush=True)
                row = operation_measure(
                    operation, mind, client=client, http_client=http_client, raw=raw, seed=args.seed,
                    requests=args.requests, warmup=args.warmup,
                )  # fmt: skip
                if operation.vector_k is not None:
                    row["vector_recall"] = recalls.get(operation.name, recalls[operation.vector_k])
                    row["vector_recall_k"] = operation.vector_k
                rows.append(row)
                print(table([row], unfiltered=unfiltered).splitlines()[2], flush=True)
        raw.close()
        if server:
            server.stop()
            server = None
        if args.no_peer:
            peer = {"skipped": "--no-peer"}
        elif not peer_available():
            peer = {"skipped": "mem0ai is not installed (pip install -r requirements-peer.txt)"}
        else:
            peer = peer_run(loaded, sizes=[s for s in args.sizes if s <= args.peer_max_size], seed=args.seed)
        machine = {
            "cpu_count": os.cpu_count(),
            "load_average": [round(value, 2) for value in os.getloadavg()],
            **server_versions(),
        }
    finally:
        if server:
            server.stop()
        if args.keep:
            from django.db import connections

            from pipelinelog.writer import writer

            writer.stop()
            connections.close_all()
            print(f"Kept database {args.database} (--reuse runs on it).", flush=True)
        else:
            database_drop(args.database)
    print()
    print(table(rows, unfiltered=unfiltered))
    print()
    print(peer_table(peer, rows))
    print(
        f"Machine: {machine['cpu_count']} CPUs, load average {machine['load_average']}, "
        f"PostgreSQL {machine['postgres']}, pgvector {machine['pgvector']}"
    )
    result = {
        "benchmark": "latency",
        "started_at": started_at(started),
        "machine": machine,
        "config": {"sizes": args.sizes, "only": args.only, "requests": args.requests, "warmup": args.warmup,
                   "seed": args.seed,
                   "embedder": "hashing", "load_s": loaded.load_s, "net_s": net_s,
                   "unfiltered_hnsw_recall_at_10": hnsw_recall},
        "rows": rows,
        "pending": list(PENDING_OPERATIONS),
        "peer": peer,
    }  # fmt: skip
    if not args.no_save:
        result_save("latency", result, started=started)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
