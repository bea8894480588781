"""Evidence recall@k and latency percentiles of a LoCoMo run (pure: no Django, no database)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bench.locomo.dataset import CATEGORY_NAMES

# Decimals kept in the results: recall is a share, latency in milliseconds.
RECALL_DECIMALS = 4
LATENCY_DECIMALS = 2


def recall_at_k(evidence: frozenset[str], items: Sequence[Sequence[str]], k: int) -> float:
    """The share of `evidence` among the first `k` items; an item may stand for several turns
    (a knot linked to several memories), and each of them counts."""
    found = {turn for item in items[:k] for turn in item}
    return len(evidence & found) / len(evidence)


@dataclass(frozen=True)
class Outcome:
    """One system's answer to one question."""

    category: int
    recall: dict[int, float]  # k → recall@k
    results: int  # items returned (at the largest k)
    latency_ms: float


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), RECALL_DECIMALS) if values else 0.0


def _recalls(outcomes: list[Outcome], ks: Sequence[int]) -> dict[str, float]:
    return {f"recall@{k}": _mean([outcome.recall[k] for outcome in outcomes]) for k in ks}


def system_summary(outcomes: list[Outcome], ks: Sequence[int]) -> dict:
    """recall@k overall (mean over questions) and per category, latency p50/p95, and two counts:
    questions with any result, and questions with at least one evidence turn in the top k."""
    latencies = np.asarray([outcome.latency_ms for outcome in outcomes], dtype=float)
    p50, p95 = np.percentile(latencies, [50, 95]) if len(latencies) else (0.0, 0.0)
    by_category = {}
    for category in sorted({outcome.category for outcome in outcomes}):
        mine = [outcome for outcome in outcomes if outcome.category == category]
        by_category[str(category)] = {
            "name": CATEGORY_NAMES.get(category, str(category)),
            "questions": len(mine),
            **_recalls(mine, ks),
        }
    return {
        **_recalls(outcomes, ks),
        "by_category": by_category,
        "p50_ms": round(float(p50), LATENCY_DECIMALS),
        "p95_ms": round(float(p95), LATENCY_DECIMALS),
        "questions_with_results": sum(1 for outcome in outcomes if outcome.results > 0),
        **{f"questions_with_evidence@{k}": sum(1 for outcome in outcomes if outcome.recall[k] > 0) for k in ks},
    }
