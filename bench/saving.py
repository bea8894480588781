"""Where every benchmark writes its JSON: `bench/results/<name>-<UTC time>.json` and `<name>-latest.json`."""

from __future__ import annotations

import json
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
