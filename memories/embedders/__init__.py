"""Text → vector. One interface, four backends chosen by settings.SYNAPSE_EMBEDDER.

Every backend returns L2-normalised float32 vectors of `EMBEDDING_DIMENSIONS`, so cosine
similarity is a dot product and the HNSW index (vector_cosine_ops) holds any of them.

| SYNAPSE_EMBEDDER        | module                   | `name` (stored as `embedding_model`)        |
|-------------------------|--------------------------|---------------------------------------------|
| `hashing`               | `hashing.py`             | `hashing-v1`                                 |
| `minilm-onnx` (new installations) | `onnx_minilm.py` | `all-MiniLM-L6-v2-onnx-int8`             |
| `sentence-transformers` | `sentence_transformers.py` | `sentence-transformers/all-MiniLM-L6-v2`  |
| `openai`                | `openai.py`              | `openai:<SYNAPSE_OPENAI_MODEL>`              |

SYNAPSE_EMBEDDER unset: the installation's recorded backend (`installation.py`).

Thresholds on similarities (semantic-search's default, the synapse model's match and anchor
thresholds) depend on the embedder: see docs/embeddings.md and docs/synapse-model.md §10.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import numpy as np
from django.conf import settings

from memoryproject.core.domain import Unavailable


class Embedder(Protocol):
    #: Stored with every vector (`embedding_model`), so a change of backend is detectable.
    name: str
    dimensions: int
    #: Cosine similarity below which /memory/search drops a vector-only candidate as unrelated.
    #: Depends on the model (docs/synapse-model.md §10); measured per embedder in docs/embeddings.md.
    search_min_similarity: float

    def embed(self, texts: list[str]) -> np.ndarray:
        """An (n, dimensions) float32 array of unit vectors, one row per text."""
        ...


class EmbedderUnavailable(Unavailable):
    """The embedder could not produce vectors (server down, wrong answer, model missing).

    A domain error, so a request that needs a vector answers a clear 503 in the error shape of
    the API instead of a 500 (memoryproject.core.exceptions); management commands print the message.
    """

    code = "embedder_unavailable"
    default_message = "The embedding backend is unavailable; try again later."


_lock = threading.Lock()
_built: dict[tuple, Embedder] = {}
# Applied, in order, to every embedder built (embedders_wrap): the benchmarks' vector cache.
_wrappers: list[Callable[[Embedder], Embedder]] = []


def embedders_wrap(wrapper: Callable[[Embedder], Embedder]) -> None:
    """Wrap every embedder this process builds from now on (the ones built so far are dropped)."""
    with _lock:
        _wrappers.append(wrapper)
        _built.clear()


def _config_key() -> tuple:
    """What identifies the configured embedder; a change (e.g. override_settings) builds a new one."""
    backend = embedder_backend()
    if backend == "openai":
        return (
            backend,
            settings.SYNAPSE_OPENAI_URL,
            settings.SYNAPSE_OPENAI_MODEL,
            settings.SYNAPSE_OPENAI_API_KEY,
            settings.SYNAPSE_OPENAI_TIMEOUT,
        )
    if backend == "minilm-onnx":
        return (backend, settings.SYNAPSE_EMBEDDER_THREADS)
    return (backend,)


def embedder_backend() -> str:
    """The SYNAPSE_EMBEDDER value in force: the setting, else the installation's record (one query per process)."""
    from memories.embedders.installation import configured_backend

    return configured_backend()


def _build(key: tuple) -> Embedder:
    backend = key[0]
    if backend == "hashing":
        from memories.embedders.hashing import HashingEmbedder

        return HashingEmbedder()
    if backend == "minilm-onnx":
        from memories.embedders.onnx_minilm import OnnxMiniLMEmbedder

        return OnnxMiniLMEmbedder(threads=key[1])
    if backend == "sentence-transformers":
        from memories.embedders.sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder()
    if backend == "openai":
        from memories.embedders.openai import OpenAIEmbedder

        _, url, model, api_key, timeout = key
        return OpenAIEmbedder(url=url, model=model, api_key=api_key, timeout=timeout)
    raise ValueError(
        f"Unknown embedder backend {backend!r}; use hashing, minilm-onnx, sentence-transformers or openai."
    )


def get_embedder() -> Embedder:
    """The configured embedder, built once per process (models are expensive to load)."""
    key = _config_key()
    embedder = _built.get(key)
    if embedder is None:
        with _lock:  # two threads must not load a 90 MB model twice
            embedder = _built.get(key)
            if embedder is None:
                embedder = _build(key)
                for wrapper in _wrappers:
                    embedder = wrapper(embedder)
                _built[key] = embedder
    return embedder
