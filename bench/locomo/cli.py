"""`python -m bench locomo`: retrieval quality on LoCoMo, every system in the same run and database.

    python -m bench locomo --data PATH [--conversations N] [--embedder hashing|minilm-onnx|sentence-transformers]
                           [--k 5,10,20] [--systems vector,fulltext,hybrid,synapse] [--json OUT]
                           [--turn-time turn-order|session-date]

Builds a throw-away database (bench.database), stores every conversation as a mind, asks every
question of categories 1–4 with at least one evidence turn of every system, prints the table and,
with --json, writes the results. The method: docs/benchmarks.md → LoCoMo retrieval.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.database import database_create, database_drop, django_setup, server_versions
from bench.locomo.dataset import DEFAULT_TURN_TIME, TURN_TIMES

# The embedders a run can use (SYNAPSE_EMBEDDER values that need no server).
EMBEDDERS = ("hashing", "minilm-onnx", "sentence-transformers")
DEFAULT_KS = "5,10,20"
# The run's throw-away database: its own name, so it never drops the latency benchmark's under it.
LOCOMO_DATABASE = "bench_locomo"
_DATABASE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def database_use(name: str) -> None:
    """Point Django at the existing database `name` (a --keep run's), migrated to this code's schema."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    connections.close_all()
    settings.DATABASES["default"]["NAME"] = name
    call_command("migrate", verbosity=0, interactive=False)


def database_release() -> None:
    """Flush the pipeline log and close every connection, leaving the database in place."""
    from django.db import connections

    from pipelinelog.writer import writer

    writer.stop()
    connections.close_all()


def _ks(text: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--k takes whole numbers separated by commas, like {DEFAULT_KS}.") from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError(f"--k takes whole numbers of at least 1, like {DEFAULT_KS}.")
    return ks


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench locomo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--conversations", type=int, help="only the first N conversations of the file")
    parser.add_argument("--embedder", choices=EMBEDDERS, default="hashing", help="SYNAPSE_EMBEDDER for the run")
    parser.add_argument(
        "--no-vector-cache",
        action="store_true",
        help="embed every text again (by default a model's vectors are kept per text in var/bench-vectors/; "
        "hashing is never cached)",
    )
    parser.add_argument("--k", type=_ks, default=_ks(DEFAULT_KS), help=f"cut-offs of recall@k (default {DEFAULT_KS})")
    parser.add_argument("--systems", help="comma-separated subset of the systems (default: all)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the results as JSON to OUT")
    parser.add_argument(
        "--turn-time",
        choices=TURN_TIMES,
        default=DEFAULT_TURN_TIME,
        help="a turn's event_time: its own minute in the session's order, or the session's date "
        f"(default {DEFAULT_TURN_TIME}; with --reuse, what the --keep run stored)",
    )
    parser.add_argument(
        "--database",
        default=LOCOMO_DATABASE,
        help=f"throw-away database, created and dropped (default {LOCOMO_DATABASE})",
    )
    parser.add_argument("--keep", action="store_true", help="leave the database (for --reuse) instead of dropping it")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="ask the questions of a database a --keep run left (stored and promoted), writing nothing new",
    )
    args = parser.parse_args(argv)
    if args.conversations is not None and args.conversations < 1:
        parser.error("--conversations must be at least 1.")
    if not args.data.is_file():
        parser.error(f"--data {args.data}: no such file.")
    if not _DATABASE_NAME.fullmatch(args.database):
        parser.error("--database takes lower-case letters, digits and _, at most 63, not starting with a digit.")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    django_setup(embedder=args.embedder)
    if args.embedder != "hashing" and not args.no_vector_cache:
        from bench.vector_cache import vector_cache_enable

        vector_cache_enable()  # a sweep embeds each text once (bench/vector_cache.py)
    from bench.locomo.dataset import dataset_load
    from bench.locomo.harness import locomo_run, results_table
    from bench.locomo.systems import SYSTEMS
    from memories.embedders import get_embedder

    names = [name.strip() for name in args.systems.split(",")] if args.systems else list(SYSTEMS)
    unknown = [name for name in names if name not in SYSTEMS]
    if unknown:
        print(f"Unknown system(s): {', '.join(unknown)}. Known: {', '.join(SYSTEMS)}.")
        return 2
    conversations = dataset_load(args.data, conversations=args.conversations)
    started = datetime.now(UTC)
    clock = time.perf_counter()
    print(f"Creating database for LoCoMo ({args.data.name}, {len(conversations)} conversations) …", flush=True)
    if args.reuse:
        database_use(args.database)
    else:
        database_create(args.database)
    try:
        result = locomo_run(
            conversations,
            systems=[SYSTEMS[name] for name in names],
            ks=args.k,
            reuse=args.reuse,
            turn_time=args.turn_time,
        )
        versions = server_versions()
    finally:
        if args.keep or args.reuse:
            database_release()
        else:
            database_drop(args.database)
    result = {
        "embedder": args.embedder,
        "embedding_model": get_embedder().name,
        **result,
        "data": args.data.name,
        "started_at": started.isoformat().replace("+00:00", "Z"),
        "duration_s": round(time.perf_counter() - clock, 1),
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_1m": round(os.getloadavg()[0], 2),
            **versions,
        },
    }
    print()
    print(
        f"LoCoMo {result['data']}: {result['conversations']} conversations, {result['turns']} turns, "
        f"{result['questions']} questions (categories 1–4 with an evidence turn; "
        f"{result['skipped_evidence']} evidence strings named no turn), embedder {result['embedding_model']}"
    )
    print(results_table(result))
    if result["prepare_s"]:
        print(f"\nPrepare steps (promotion into the net): {result['prepare_s']} s for {result['turns']} turns")
    machine = result["machine"]
    print(f"\n{result['duration_s']} s; {machine['cpu_count']} CPUs, PostgreSQL {machine['postgres']}, "
          f"pgvector {machine['pgvector']}, load average {machine['load_average_1m']}")  # fmt: skip
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"Saved {args.json}")
    if result["questions"] == 0:
        print("No question of categories 1–4 names an evidence turn: nothing was measured.")
        return 1
    return 0
