"""The default embedder: deterministic feature hashing, no model, no network.

Features are the lower-cased words and the character trigrams of each word (with boundary
marks, so "deploy" and "deployed" share most of their trigrams). Each feature is hashed to a
dimension and a sign (CRC-32, stable across processes and machines, unlike Python's `hash`),
summed and L2-normalised. It knows no synonyms: "sister" and "sibling" stay unrelated. It
exists so the product works offline and tests are reproducible; semantic recall needs the
sentence-transformers backend.
"""

from __future__ import annotations

import re
import zlib

import numpy as np

from memories.models import EMBEDDING_DIMENSIONS

# Bump the version in the name whenever the features change: stored vectors must be re-embedded.
HASHING_EMBEDDER_NAME = "hashing-v1"
# Relative weight of a whole word against one of its trigrams: words carry the meaning.
WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.5

_WORD = re.compile(r"\w+", re.UNICODE)


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(text.lower())
    if not words:
        # Punctuation only: hash its characters so the vector is still a unit vector.
        stripped = text.strip() or "∅"
        return [(f"c:{stripped}", WORD_WEIGHT)]
    features: list[tuple[str, float]] = []
    for word in words:
        features.append((f"w:{word}", WORD_WEIGHT))
        marked = f"<{word}>"
        features.extend((f"t:{marked[i : i + 3]}", TRIGRAM_WEIGHT) for i in range(len(marked) - 2))
    return features


class HashingEmbedder:
    name = HASHING_EMBEDDER_NAME
    dimensions = EMBEDDING_DIMENSIONS
    # Below this cosine similarity a vector hit of /memory/search is dropped as unrelated: texts
    # sharing no word score 0.02 (median) to 0.16 (p99) (docs/embeddings.md → thresholds).
    search_min_similarity = 0.15

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = zlib.crc32(feature.encode("utf-8"))
                sign = 1.0 if digest & 0x80000000 else -1.0
                vectors[row, digest % self.dimensions] += sign * weight
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        # A zero row cannot happen (every text has a feature), but never divide by zero.
        return vectors / np.where(norms == 0, 1.0, norms)
