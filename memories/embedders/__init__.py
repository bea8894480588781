"""Text → vector. One interface, three backends chosen by settings.SYNAPSE_EMBEDDER.

Every backend returns L2-normalised float32 vectors of `EMBEDDING_DIMENSIONS`, so cosine
similarity is a dot product and the HNSW index (vector_cosine_ops) holds any of them.
"""

from __future__ import annotations

from functools import cache
from typing import Protocol

import numpy as np
from django.conf import settings


class Embedder(Protocol):
    #: Stored with every vector (`embedding_model`), so a change of backend is detectable.
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """An (n, dimensions) float32 array of unit vectors, one row per text."""
        ...


@cache
def _embedder_for(backend: str) -> Embedder:
    if backend == "hashing":
        from memories.embedders.hashing import HashingEmbedder

        return HashingEmbedder()
    raise ValueError(f"Unknown embedder backend {backend!r}")


def get_embedder() -> Embedder:
    """The configured embedder, built once per process (models are expensive to load)."""
    return _embedder_for(settings.SYNAPSE_EMBEDDER)


def embed_text(text: str) -> np.ndarray:
    """One text → one unit vector."""
    return get_embedder().embed([text])[0]
