"""`python -m bench suite`: the benchmarks of `make bench` (or `--scale`: `make bench-scale`) in turn, timed.

Each step is `python -m bench <step>` in a process of its own (each creates and drops its own
database); its output streams through, and at the end one table gives every step's duration,
its exit status and the total, with the load average before and after. A failed step does not
stop the ones after it; the suite's exit status is the first failure's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

# make bench: every table of the issue at 1k/10k/100k. Sample sizes: the endpoint table 100
# timed requests per scenario (the pipeline-log comparison 5 rounds of 100 on and 100 off),
# latency 60 rounds per operation and size, filtered search 100 queries per layout, load 20 s
# per scenario.
FULL_STEPS: tuple[tuple[str, ...], ...] = (
    ("--requests", "100", "--warmup", "20"),
    ("latency",),
    ("filtered-search", "--minds", "1", "10", "100", "--queries", "100"),
    ("load", "--seconds", "20"),
    ("promotion", "--knots", "100000", "--memories", "1000", "--workers", "1", "2"),
)
# make bench-scale: the layouts too slow for make bench.
SCALE_STEPS: tuple[tuple[str, ...], ...] = (
    ("filtered-search", "--minds", "1", "10", "100", "1000"),
    ("decay", "--knots", "1000000"),
)


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench suite", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="store_true", help="the bench-scale steps instead of make bench's")
    parser.add_argument("--locomo", metavar="PATH", help="also LoCoMo retrieval on this file (make bench LOCOMO=…)")
    parser.add_argument("--only", nargs="+", metavar="STEP", help="run only the steps with these names")
    return parser.parse_args(argv)


def _name(step: tuple[str, ...]) -> str:
    return "endpoints" if step[0].startswith("-") else step[0]


def steps_of(args: argparse.Namespace) -> list[tuple[str, ...]]:
    steps = list(SCALE_STEPS if args.scale else FULL_STEPS)
    if args.locomo and not args.scale:
        steps.append(("locomo", "--data", args.locomo, "--json", "bench/results/locomo-latest.json"))
    if not args.scale:
        steps.append(("plots",))
    if args.only:
        steps = [step for step in steps if _name(step) in args.only]
    return steps


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    load_before = os.getloadavg()
    done = []
    suite_clock = time.perf_counter()
    for step in steps_of(args):
        print(f"\n=== python -m bench {' '.join(step)}", flush=True)
        clock = time.perf_counter()
        status = subprocess.call([sys.executable, "-m", "bench", *step])  # noqa: S603 — our own module
        done.append((_name(step), time.perf_counter() - clock, status))
    total = time.perf_counter() - suite_clock
    print(f"\n{'step':<18} {'seconds':>8}  status")
    for name, seconds, status in done:
        print(f"{name:<18} {seconds:>8.1f}  {'ok' if status == 0 else f'exit {status}'}")
    label = "make bench-scale" if args.scale else "make bench"
    print(
        f"{label} took {total:.0f} s ({total / 60:.1f} min); load average before "
        f"{', '.join(f'{value:.2f}' for value in load_before)}, after {', '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    return next((status for _, _, status in done if status != 0), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
