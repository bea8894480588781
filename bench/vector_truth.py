"""The exact answer a vector search is measured against: the rows nearest to a query by the
stored vectors' distances, ties included, for recall@k beside the latency of every vector search."""

from __future__ import annotations

import numpy as np

# Distances this close to the k-th one count as equal (float rounding): any k rows of a tie are a
# correct answer.
DISTANCE_TOLERANCE = 1e-5


def exact_top(distances: np.ndarray, rows: np.ndarray, k: int) -> set[int]:
    """Rows of `rows` nearest by `distances` (every row's distance to the query): each row within
    the k-th smallest distance of `rows`, ties included."""
    mine = distances[rows]
    k = min(k, len(rows))
    kth = float(np.partition(mine, k - 1)[k - 1])
    return set(rows[mine <= kth + DISTANCE_TOLERANCE].tolist())
