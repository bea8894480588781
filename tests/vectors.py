"""Vectors and weights written out by hand for the tests of the net: unit vectors at chosen
cosines (to an axis, or to the embedding of a query text) and §1's damping as a reference."""

from __future__ import annotations

import math

import numpy as np

from memories.embedders import get_embedder
from memories.models import EMBEDDING_DIMENSIONS


def unit(*components: tuple[int, float]) -> list[float]:
    """A unit vector from (axis, value) components: unit((0, 0.9), (1, math.sqrt(0.19)))."""
    vector = np.zeros(EMBEDDING_DIMENSIONS)
    for index, value in components:
        vector[index] = value
    return (vector / np.linalg.norm(vector)).tolist()


def axis(index: int) -> list[float]:
    """A unit vector along one axis: two different axes have cosine 0."""
    return unit((index, 1.0))


def at_cosine(cosine: float, *, base: int = 0, other: int = 1) -> list[float]:
    """A unit vector whose cosine to axis(base) is `cosine`."""
    return unit((base, cosine), (other, math.sqrt(1 - cosine**2)))


def query_vector(q: str) -> np.ndarray:
    """The configured embedder's vector of the query text `q`."""
    return np.asarray(get_embedder().embed([q])[0], dtype=np.float64)


def at_cosine_to_query(q: str, cosine: float, *, axis: int) -> list[float]:
    """A unit vector whose cosine to the embedding of `q` is exactly `cosine`: `cosine·q + √(1−cosine²)·u`
    with u the unit part of basis vector `axis` orthogonal to q."""
    qv = query_vector(q)
    basis = np.zeros(EMBEDDING_DIMENSIONS)
    basis[axis] = 1.0
    u = basis - (basis @ qv) * qv
    u /= np.linalg.norm(u)
    return list(cosine * qv + np.sqrt(1.0 - cosine**2) * u)


def damp_reference(raw: float) -> float:
    """§1's damping, written out here so the tests do not check the code against itself."""
    return 10 * math.sin(min(raw / 10, 1) * math.pi / 2) ** 0.5
