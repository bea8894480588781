"""An embedder that asks any OpenAI-compatible `/v1/embeddings` server (OpenAI, Ollama, vLLM, …).

Request: `POST <SYNAPSE_OPENAI_URL>` with `{"model", "input": [texts], "dimensions": 384,
"encoding_format": "float"}` and `Authorization: Bearer <SYNAPSE_OPENAI_API_KEY>` when a key is
set. Servers that cannot shorten their vectors ignore `dimensions`; a vector of another size is
refused with a clear error instead of being stored (the HNSW column has a fixed dimension).
Only the standard library is used (urllib): no HTTP client is pinned in requirements.txt.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.parse
import urllib.request

import numpy as np

from memories.embedders import EmbedderUnavailable
from memories.models import EMBEDDING_DIMENSIONS

# Texts per HTTP request. OpenAI accepts up to 2,048 inputs; smaller batches keep a slow local
# server (Ollama on CPU) well inside the timeout.
OPENAI_BATCH_SIZE = 128
# How much of an error body is quoted in our error message (characters).
ERROR_BODY_QUOTE_CHARS = 300


class OpenAIEmbedder:
    dimensions = EMBEDDING_DIMENSIONS
    # Any model may sit behind the URL, so nothing is known about its similarity scale: keep
    # every vector hit of /memory/search (docs/embeddings.md → thresholds).
    search_min_similarity = 0.0

    def __init__(self, *, url: str, model: str, api_key: str = "", timeout: float = 30) -> None:
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in ("http", "https"):
            # urlopen would also open file:// and ftp:// URLs; an embedder has no business there.
            raise EmbedderUnavailable(f"SYNAPSE_OPENAI_URL must be an http(s) URL, not {url!r}.")
        self.url = url
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.name = f"openai:{model}"

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        batches = [
            self._embed_batch(texts[start : start + OPENAI_BATCH_SIZE])
            for start in range(0, len(texts), OPENAI_BATCH_SIZE)
        ]
        vectors = np.concatenate(batches).astype(np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if np.any(norms == 0):
            raise EmbedderUnavailable(f"The embedding server at {self.url} returned an all-zero vector.")
        return vectors / norms

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        payload = json.dumps(
            {"model": self.model, "input": texts, "dimensions": self.dimensions, "encoding_format": "float"}
        ).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=payload, headers=headers, method="POST")  # noqa: S310
        try:
            # The scheme was checked in __init__ (http/https only).
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                body = response.read()
        except urllib.error.HTTPError as error:
            quoted = error.read(ERROR_BODY_QUOTE_CHARS).decode("utf-8", "replace")
            raise EmbedderUnavailable(
                f"The embedding server at {self.url} answered HTTP {error.code}: {quoted}"
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise EmbedderUnavailable(
                f"The embedding server at {self.url} could not be reached ({reason}); timeout {self.timeout} s."
            ) from None
        return self._vectors_from(body, expected=len(texts))

    def _vectors_from(self, body: bytes, *, expected: int) -> np.ndarray:
        try:
            data = json.loads(body)["data"]
            rows = sorted(data, key=lambda item: item["index"])
            vectors = [[float(value) for value in row["embedding"]] for row in rows]
        except (ValueError, KeyError, TypeError):
            raise EmbedderUnavailable(
                f"The embedding server at {self.url} did not answer in the OpenAI embeddings format "
                '({"data": [{"index": 0, "embedding": [...]}, ...]}).'
            ) from None
        if len(vectors) != expected or [row["index"] for row in rows] != list(range(expected)):
            raise EmbedderUnavailable(
                f"The embedding server at {self.url} returned {len(vectors)} vectors for {expected} texts."
            )
        sizes = sorted({len(vector) for vector in vectors})
        if sizes != [self.dimensions]:
            raise EmbedderUnavailable(
                f"The embedding server at {self.url} returned vectors of {', '.join(map(str, sizes))} dimensions "
                f"for model {self.model!r}; Synapse needs {self.dimensions}. Choose a model that supports the "
                f"`dimensions` parameter or natively makes {self.dimensions}-dimensional vectors."
            )
        if not all(math.isfinite(value) for vector in vectors for value in vector):
            raise EmbedderUnavailable(f"The embedding server at {self.url} returned non-finite numbers.")
        return np.asarray(vectors, dtype=np.float32)
