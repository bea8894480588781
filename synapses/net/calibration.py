"""Thresholds from a cosine distribution (docs/synapse-model.md §10). Pure: numpy, no Django.

    pair_cosines(vectors, max_knots, rng)   the knot-to-knot cosines: every pair, or every pair of a sample
    percentiles(cosines)                    the distribution at PERCENTILES
    light_edits(text)                       the same memory as a client might store it again
    thresholds_suggest(cosines, duplicates) each threshold at the percentile that reproduces its derivation

The embedding, usage, anchor and gravity thresholds are points in the tail of "how similar are
two different knots" in one embedder's space, each re-read at the percentile where the
original's value sat in its own distribution (THRESHOLD_RULES). The match threshold separates
different knots from the same memory stored twice: with the cosines of knots to light edits of
themselves it is their 1st percentile (99 % of such duplicates still match), as the original put
0.82 just under its lowest true duplicate (0.830) and above its highest false pair (0.788) —
but never below the knot pairs' p99.99, which it is without duplicates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# The percentiles a calibration prints (percent).
PERCENTILES: tuple[float, ...] = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99)
# Knots whose pairs are all compared (knots): 2,000 give 1,999,000 pairs, a 32 MB matrix; a larger
# mind is sampled down to this many, uniformly, and all pairs of the sample are compared.
MAX_CALIBRATION_KNOTS = 2_000
# Rows of the pair matrix computed at once (rows): bounds the working memory to ~16 MB.
_GRAM_BLOCK_ROWS = 1_000


@dataclass(frozen=True)
class ThresholdRule:
    """Where one threshold sits in the knot-pair cosine distribution, and why."""

    name: str
    percentile: float  # percent
    reason: str


# The threshold that separates different knots from duplicates.
MATCH = "MATCH_THRESHOLD"
# The match threshold from light-edit duplicates: the percentile of their cosines (percent).
DUPLICATE_PERCENTILE = 1
# Characters a light edit drops: anything but word characters and whitespace.
_PUNCTUATION = re.compile(r"[^\w\s]")
# Words a text needs before a light edit drops one of them (words).
_MIN_WORDS_TO_DROP = 4


# The original's values, read against its own knot-pair distribution (median 0.26, p99 0.568;
# 0.80 let 0.02 % of pairs through): each threshold keeps its place in the tail.
THRESHOLD_RULES: tuple[ThresholdRule, ...] = (
    ThresholdRule("EMBEDDING_THRESHOLD", 99, "the original set 0.55 from its p99 of 0.568"),
    ThresholdRule(MATCH, 99.99, "the original's 0.82 sat above its p99.98 (0.80 let 0.02 % pass)"),
    ThresholdRule("USAGE_THRESHOLD", 99, "the original's 0.55, equal to its embedding threshold"),
    ThresholdRule("ANCHOR_FLOOR", 90, "the original's 0.40 at the top of its noise hill (0.10-0.40)"),
    ThresholdRule("GRAVITY_THRESHOLD", 90, "the original lowered it to 0.40 with the anchor floor"),
)


@dataclass(frozen=True)
class Suggestion:
    name: str
    percentile: float
    value: float  # cosine, rounded down to 0.01
    reason: str


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def sample_indices(total: int, *, max_knots: int = MAX_CALIBRATION_KNOTS, rng: np.random.Generator) -> np.ndarray:
    """All of range(total), or `max_knots` of them drawn uniformly without replacement, sorted."""
    if total <= max_knots:
        return np.arange(total)
    return np.sort(rng.choice(total, size=max_knots, replace=False))


def pair_cosines(vectors: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """The cosine of every unordered pair of distinct rows (i < j), as one flat array."""
    matrix = _unit_rows(np.asarray(vectors))
    n = len(matrix)
    parts = []
    for start in range(0, n, _GRAM_BLOCK_ROWS):
        block = matrix[start : start + _GRAM_BLOCK_ROWS] @ matrix.T
        rows, cols = np.triu_indices(len(block), k=start + 1, m=n)
        parts.append(block[rows, cols])
    return np.concatenate(parts) if parts else np.empty(0)


def percentiles(cosines: np.ndarray, points: Sequence[float] = PERCENTILES) -> dict[float, float]:
    """The distribution at `points` (percent), linear interpolation between ranks."""
    if len(cosines) == 0:
        raise ValueError("no pairs: a calibration needs at least two knots")
    values = np.percentile(cosines, points)
    return {point: float(value) for point, value in zip(points, values, strict=True)}


def light_edits(text: str) -> list[str]:
    """The text as a client might store the same memory again: lower-cased without punctuation,
    and (from four words on) without its middle word. Edits equal to the text are left out."""
    edits = [" ".join(_PUNCTUATION.sub("", text).lower().split())]
    words = text.split()
    if len(words) >= _MIN_WORDS_TO_DROP:
        middle = len(words) // 2
        edits.append(" ".join(words[:middle] + words[middle + 1 :]))
    return [edit for edit in dict.fromkeys(edits) if edit and edit != text]


def _floor_hundredth(value: float) -> float:
    return math.floor(value * 100 + 1e-9) / 100


def thresholds_suggest(
    cosines: np.ndarray, duplicates: np.ndarray | None = None, rules: Sequence[ThresholdRule] = THRESHOLD_RULES
) -> list[Suggestion]:
    """Each rule's percentile of the knot-pair `cosines`, rounded down to 0.01 (as 0.568 became
    0.55, never up); the match threshold from the light-edit `duplicates` when there are any."""
    at = percentiles(cosines, sorted({rule.percentile for rule in rules}))
    suggestions = []
    for rule in rules:
        value, percentile, reason = at[rule.percentile], rule.percentile, rule.reason
        if rule.name == MATCH and duplicates is not None and len(duplicates):
            # Keep 99 % of light-edit duplicates, unless that lets more than the pairs' p99.99 of
            # different knots match: a false match costs a memory its own knot, a missed one only
            # adds a knot.
            keep = percentiles(duplicates, (DUPLICATE_PERCENTILE,))[DUPLICATE_PERCENTILE]
            if keep >= value:
                value, percentile = keep, DUPLICATE_PERCENTILE
                reason = f"p{DUPLICATE_PERCENTILE} of light-edit duplicates: 99 % of them still match"
            else:
                reason = f"pairs' p99.99: the duplicates' p{DUPLICATE_PERCENTILE} ({keep:.2f}) lets more pairs match"
        suggestions.append(Suggestion(rule.name, percentile, _floor_hundredth(value), reason))
    return suggestions


def share_at_or_above(cosines: np.ndarray, value: float) -> float:
    """The share of `cosines` at or above `value` (0..1)."""
    return float(np.mean(np.asarray(cosines) >= value)) if len(cosines) else 0.0


def calibration_table(
    *,
    cosines: np.ndarray,
    current: Mapping[str, float | None],
    knots: int,
    sampled: int,
    duplicates: np.ndarray | None = None,
) -> str:
    """The printed report: what was compared, the percentiles, the suggestions next to the current values.

    `passes` is the share of knot pairs at or above a suggested value: for the embedding
    threshold about 1 %, for the match threshold the different knots that would count as one.
    """
    how = "all" if sampled == knots else "a uniform sample"
    lines = [f"knots: {knots}; compared: {sampled} ({how}), {len(cosines):,} pairs", "", "percentile  cosine"]
    lines += [f"p{point:<10g} {value:.4f}" for point, value in percentiles(cosines).items()]
    lines += [f"{'mean':<11} {float(np.mean(cosines)):.4f}", f"{'max':<11} {float(np.max(cosines)):.4f}", ""]
    if duplicates is not None and len(duplicates):
        dup = percentiles(duplicates, (1, 5, 50))
        lines += [
            f"light-edit duplicates: {len(duplicates):,} pairs, p1 {dup[1]:.4f}, p5 {dup[5]:.4f}, p50 {dup[50]:.4f}",
            "",
        ]
    lines.append(f"{'threshold':<20} {'at':<8} {'suggested':>9} {'current':>8} {'passes':>9}  why")
    for s in thresholds_suggest(cosines, duplicates):
        now = current.get(s.name)
        shown = "-" if now is None else f"{now:.2f}"
        passes = f"{100 * share_at_or_above(cosines, s.value):.4f}%"
        lines.append(f"{s.name:<20} p{s.percentile:<7g} {s.value:>9.2f} {shown:>8} {passes:>9}  {s.reason}")
    return "\n".join(lines)
