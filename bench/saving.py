"""Where every benchmark writes its JSON: `bench/results/<name>-<UTC time>.json` and `<name>-latest.json`."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def result_save(name: str, result: dict, *, started: datetime) -> Path:
    """Write `result` twice — stamped with `started` and as the latest of `name` — and say where."""
    RESULTS_DIR.mkdir(exist_ok=True)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    stamped = RESULTS_DIR / f"{name}-{stamp}.json"
    stamped.write_text(text)
    (RESULTS_DIR / f"{name}-latest.json").write_text(text)
    print(f"Saved bench/results/{stamped.name} and bench/results/{name}-latest.json")
    return stamped


def started_at(started: datetime) -> str:
    """The run's start as ISO 8601 UTC with a Z, as every result records it."""
    return started.isoformat().replace("+00:00", "Z")


def machine_of(server: dict[str, str]) -> dict:
    """What a result records of the machine: cores, the 1-minute load average now, and `server`
    (bench.database.server_versions: PostgreSQL's and pgvector's versions)."""
    return {"cpu_count": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2), **server}


def result_report(
    name: str, *, table: str, machine: dict, started: datetime, save: bool = True, **sections: object
) -> dict:
    """Print a bench's result table with the load and the server beside it, then save the result
    (`started_at`, `machine` and `sections`, in that order) as `name` unless `save` is false."""
    print()
    print(table)
    print(f"Load average {machine['load_average_1m']}, PostgreSQL {machine['postgres']}")
    result = {"started_at": started_at(started), "machine": machine, **sections}
    if save:
        result_save(name, result, started=started)
    return result
