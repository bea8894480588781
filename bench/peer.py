"""The peer in the latency run: mem0 (`mem0ai`, requirements-peer.txt) without an LLM.

mem0 runs as its library does when told not to infer (`add(..., infer=False)` stores the text as
it is): telemetry off, the OpenAI embedder and LLM configured against a closed loopback port (it
never calls them with `infer=False`; a call would fail at once instead of reaching a network),
and the project's hashing embedder swapped in after construction, so both systems search the
same vectors. Its pgvector store lives in the same PostgreSQL server and database as ours
(its own table, HNSW over cosine, as mem0 creates it). Each of our benchmarked minds up to
`--peer-max-size` memories becomes one mem0 user holding the same contents; the same queries
are asked of both; recall@10 is measured against the exact top 10 of the same vectors.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time

import numpy as np

from bench.corpus import CAPTURE_INPUTS, new_memory_bodies, search_queries
from bench.vector_truth import exact_top

# mem0's table in the bench database.
PEER_COLLECTION = "mem0_bench"
# Timed searches per mind size (after PEER_WARMUP untimed ones), and timed extra adds.
PEER_SEARCHES = 100
PEER_WARMUP = 10
PEER_ADDS = 100
K = 10


def peer_available() -> bool:
    return importlib.util.find_spec("mem0") is not None and importlib.util.find_spec("psycopg_pool") is not None


class _HashingForMem0:
    """mem0's embedder interface (`embed(text, memory_action)`) over the project's embedder."""

    def __init__(self):
        from memories.embedders import get_embedder

        self.embedder = get_embedder()

    def embed(self, text, memory_action=None):
        return self.embedder.embed([text])[0].tolist()

    def embed_batch(self, texts, memory_action="add"):
        return [vector.tolist() for vector in self.embedder.embed(list(texts))]


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound and released: nothing listens there afterwards
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _mem0(history_dir: str):
    from django.db import connection
    from psycopg.conninfo import make_conninfo

    os.environ["MEM0_TELEMETRY"] = "False"
    import logging

    from mem0 import Memory

    logging.getLogger("mem0").setLevel(logging.WARNING)  # a line per inserted vector otherwise

    params = connection.get_connection_params()
    conninfo = make_conninfo(
        **{name: value for name, value in params.items() if name in ("dbname", "user", "password", "host", "port")}
    )
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    config = {
        "vector_store": {
            "provider": "pgvector",
            "config": {"connection_string": conninfo, "collection_name": PEER_COLLECTION, "embedding_model_dims": 384},
        },
        "embedder": {"provider": "openai", "config": {"api_key": "unused", "openai_base_url": dead}},
        "llm": {"provider": "openai", "config": {"api_key": "unused", "openai_base_url": dead}},
        "history_db_path": os.path.join(history_dir, "history.db"),
    }
    memory = Memory.from_config(config)
    memory.embedding_model = _HashingForMem0()
    return memory


def _percentiles(samples: list[float]) -> dict:
    p50, p95 = np.percentile(np.asarray(samples), [50, 95])
    return {"p50_ms": round(float(p50), 2), "p95_ms": round(float(p95), 2)}


def peer_run(loaded, *, sizes: list[int], seed: int) -> dict:
    """mem0's add and search at each size: p50/p95, and recall@10 against exact search."""
    from memories.embedders import get_embedder

    embedder = get_embedder()
    queries = search_queries(CAPTURE_INPUTS, seed=seed + 7)
    query_vectors = embedder.embed(queries)
    results = {"system": "mem0ai (infer=False, hashing embedder, pgvector in the same database)", "sizes": []}
    with tempfile.TemporaryDirectory() as history_dir:
        memory = _mem0(history_dir)
        from memories.models import Memory as OurMemory

        for mind in [mind for mind in loaded.minds if mind.size in sizes]:
            print(f"… mem0: loading {mind.size} memories", flush=True)
            user = f"user_{mind.size}"
            contents = dict(
                OurMemory.objects.filter(mind_id=mind.mind_id).values_list("id", "content")
            )  # the same texts as our mind
            row_of_id = {}
            load_ms = []
            for row in mind.rows:
                clock = time.perf_counter()
                added = memory.add([{"role": "user", "content": contents[loaded.ids[row]]}], user_id=user, infer=False)
                load_ms.append((time.perf_counter() - clock) * 1000)
                row_of_id[added["results"][0]["id"]] = int(row)
            search_ms, found, returned = [], [], []
            for index in range(PEER_WARMUP + PEER_SEARCHES):
                q = queries[index % len(queries)]
                clock = time.perf_counter()
                hits = memory.search(q, top_k=K, filters={"user_id": user}, threshold=0.0)["results"]
                elapsed = (time.perf_counter() - clock) * 1000
                if index < PEER_WARMUP:
                    continue
                search_ms.append(elapsed)
                returned.append(len(hits))
                distances = 1.0 - loaded.vectors @ query_vectors[index % len(queries)]
                correct = exact_top(distances, mind.rows, K)
                found.append(min(sum(1 for hit in hits if row_of_id.get(hit["id"]) in correct), K) / K)
            add_ms = []
            for body in new_memory_bodies(PEER_ADDS, seed=seed + 99):
                clock = time.perf_counter()
                memory.add([{"role": "user", "content": body["content"]}], user_id=user, infer=False)
                add_ms.append((time.perf_counter() - clock) * 1000)
            results["sizes"].append(
                {
                    "size": mind.size,
                    "add": _percentiles(add_ms),
                    "add_while_loading": _percentiles(load_ms),
                    "search": _percentiles(search_ms),
                    "recall_at_10": round(float(np.mean(found)), 4),
                    "mean_results_of_10": round(float(np.mean(returned)), 1),
                }
            )
    return results


def peer_table(peer: dict | None, rows: list[dict]) -> str:
    """Ours (store, semantic search in-process) next to mem0's add and search at the same sizes."""
    if peer is None or "skipped" in peer:
        return f"Peer (mem0): skipped — {peer['skipped'] if peer else 'not run'}."
    ours = {(row["operation"], row["size"]): row for row in rows}
    header = (
        f"{'size':>7} | {'ours: store p50/p95':>20} {'mem0 add p50/p95':>18} | "
        f"{'ours: semantic p50/p95':>23} {'recall@10':>9} | {'mem0 search p50/p95':>20} {'recall@10':>9} {'rows':>5}"
    )
    lines = ["Peer: " + peer["system"], header, "-" * len(header)]
    for entry in peer["sizes"]:
        store = ours.get(("store", entry["size"]))
        semantic = ours.get(("semantic search", entry["size"]))

        def pair(part: dict | None) -> str:
            return "—" if part is None else f"{part['p50_ms']:.1f}/{part['p95_ms']:.1f}"

        our_recall = "—" if semantic is None else f"{semantic['vector_recall']:.3f}"
        lines.append(
            f"{entry['size']:>7} | {pair(store and store['in_process']):>20} {pair(entry['add']):>18} | "
            f"{pair(semantic and semantic['in_process']):>23} {our_recall:>9} | "
            f"{pair(entry['search']):>20} {entry['recall_at_10']:>9.3f} {entry['mean_results_of_10']:>5}"
        )
    return "\n".join(lines)
