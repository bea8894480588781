"""`python -m bench plots`: PNG plots for docs/benchmarks.md from the latest results JSON.

- `docs/bench-latency.png`: p95 against mind size per operation (in-process, HTTP), with the bare
  SQL it runs and the bare HNSW top 10 beside it (bench/results/latency-latest.json).
- `docs/bench-locomo.png`: recall@k per category per system (bench/results/locomo-latest.json),
  when that file exists.
- `docs/bench-throughput.png`: requests per second and p95 per operation against concurrent
  clients over HTTP (the client levels of bench/results/load-latest.json), when it has them.

matplotlib is an optional requirement (requirements-bench.txt); without it this says so and stops.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from bench.saving import RESULTS_DIR

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs"
# Figure size of one operation's panel (inches) and the resolution (dots per inch).
PANEL_INCHES = (3.6, 3.0)
DPI = 110
# Operations side by side before the next row of panels starts.
PANELS_PER_ROW = 3
# The series of a latency panel: JSON part → legend label.
LATENCY_SERIES = {
    "in_process": "endpoint in-process",
    "http": "endpoint over HTTP",
    "bare_sql": "its bare SQL",
    "bare_hnsw": "bare HNSW top 10",
    "floor_in_process": "floor (404) in-process",
}


def latency_plot(result: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    operations = list(dict.fromkeys(row["operation"] for row in result["rows"]))
    columns = min(len(operations), PANELS_PER_ROW)
    rows_of_panels = -(-len(operations) // columns)
    figure, axes = plt.subplots(
        rows_of_panels, columns, figsize=(PANEL_INCHES[0] * columns, PANEL_INCHES[1] * rows_of_panels), squeeze=False
    )
    for axis in axes.flat[len(operations) :]:
        axis.set_visible(False)
    for axis, operation in zip(axes.flat, operations, strict=False):
        rows = sorted((row for row in result["rows"] if row["operation"] == operation), key=lambda row: row["size"])
        sizes = [row["size"] for row in rows]
        for part, label in LATENCY_SERIES.items():
            if all(part in row for row in rows):
                axis.plot(sizes, [row[part]["p95_ms"] for row in rows], marker="o", label=label)
        axis.set_xscale("log")
        axis.set_title(operation)
        axis.set_xlabel("memories in the mind")
        axis.set_ylabel("p95 ms")
        axis.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize="small")
    load = result["machine"].get("load_average")
    figure.suptitle(f"Latency against mind size ({result['started_at'][:16]}, load average {load})")
    figure.tight_layout()
    figure.savefig(out, dpi=DPI)
    plt.close(figure)


def locomo_plot(result: dict, out: Path, *, k: int = 10) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    systems = list(result["systems"])
    categories = sorted({category for system in result["systems"].values() for category in system["by_category"]})
    figure, axis = plt.subplots(figsize=(7, 3.5))
    width = 0.8 / len(systems)
    for index, name in enumerate(systems):
        by_category = result["systems"][name]["by_category"]
        values = [by_category.get(category, {}).get(f"recall@{k}", 0) for category in categories]
        axis.bar(np.arange(len(categories)) + index * width, values, width, label=name)
    first = next(iter(result["systems"].values()))["by_category"]
    labels = [f"{category} {first.get(category, {}).get('name', '')}".strip() for category in categories]
    axis.set_xticks(np.arange(len(categories)) + width * (len(systems) - 1) / 2, labels)
    axis.set_xlabel("LoCoMo category")
    axis.set_ylabel(f"recall@{k}")
    axis.set_title(f"LoCoMo evidence recall@{k} per category ({result.get('embedder', '?')} embedder)")
    axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(out, dpi=DPI)
    plt.close(figure)


def throughput_plot(result: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (rate_axis, p95_axis) = plt.subplots(1, 2, figsize=(PANEL_INCHES[0] * 2, PANEL_INCHES[1]))
    for embedder in dict.fromkeys(level["embedder"] for level in result["levels"]):
        levels = sorted((lv for lv in result["levels"] if lv["embedder"] == embedder), key=lambda lv: lv["clients"])
        clients = [level["clients"] for level in levels]
        rate_axis.plot(clients, [level["agent_requests_per_second"] for level in levels], marker="o", label=embedder)
        for operation in ("store", "recall", "search"):
            # A level where no request of the operation finished has no p95: a gap, not a zero.
            p95 = [level["operations"][operation]["p95_ms"] or float("nan") for level in levels]
            p95_axis.plot(clients, p95, marker="o", label=f"{operation} ({embedder})")
    for axis, label in ((rate_axis, "requests / s"), (p95_axis, "p95 ms")):
        axis.set_xscale("log")
        axis.set_xlabel("concurrent clients")
        axis.set_ylabel(label)
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize="small")
    figure.suptitle(f"Throughput against clients over HTTP ({result['started_at'][:16]})")
    figure.tight_layout()
    figure.savefig(out, dpi=DPI)
    plt.close(figure)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench plots", description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=Path, default=RESULTS_DIR / "latency-latest.json")
    parser.add_argument("--locomo", type=Path, default=RESULTS_DIR / "locomo-latest.json")
    parser.add_argument("--load", type=Path, default=RESULTS_DIR / "load-latest.json")
    parser.add_argument("--out", type=Path, default=DOCS_DIR)
    args = parser.parse_args(argv)
    if importlib.util.find_spec("matplotlib") is None:
        print("Plots: skipped — matplotlib is not installed (pip install -r requirements-bench.txt).")
        return 0
    written = []
    if args.latency.exists():
        latency_plot(json.loads(args.latency.read_text()), args.out / "bench-latency.png")
        written.append("bench-latency.png")
    if args.locomo.exists():
        result = json.loads(args.locomo.read_text())
        if result.get("systems") and all("by_category" in system for system in result["systems"].values()):
            locomo_plot(result, args.out / "bench-locomo.png")
            written.append("bench-locomo.png")
    if args.load.exists():
        result = json.loads(args.load.read_text())
        if result.get("levels"):
            throughput_plot(result, args.out / "bench-throughput.png")
            written.append("bench-throughput.png")
    print("Plots: " + (", ".join(str(args.out / name) for name in written) if written else "no results to plot yet."))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
