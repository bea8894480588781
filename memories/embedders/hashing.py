"""The default embedder: deterministic feature hashing, no model, no network.

Features are the lower-cased words and the character trigrams of each word (with boundary
marks, so "deploy" and "deployed" share most of their trigrams). Each feature is hashed to a
dimension and a sign (CRC-32, stable across processes and machines, unlike Python's `hash`),
summed and L2-normalised. It knows no synonyms: "sister" and "sibling" stay unrelated. It
exists so the product works offline and tests are reproducible; semantic recall needs the
sentence-transformers backend.
"""

from __future__ import annotations

import functools
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


# Distinct words whose features (dimension and signed weight of the word and of each trigram)
# are kept between calls (words): a corpus repeats its words, so a text costs one lookup per word
# instead of hashing every trigram again. Bounded, so unusual tokens (ids, hashes) cannot grow it.
WORD_CACHE_SIZE = 65_536


def _punctuation_feature(text: str) -> list[tuple[str, float]]:
    """The one feature of a text without words: its characters, so the vector is still a unit vector."""
    return [(f"c:{text.strip() or '∅'}", WORD_WEIGHT)]


def _word_feature_names(word: str) -> list[tuple[str, float]]:
    """The word itself, then each trigram of it with boundary marks."""
    marked = f"<{word}>"
    return [(f"w:{word}", WORD_WEIGHT)] + [(f"t:{marked[i : i + 3]}", TRIGRAM_WEIGHT) for i in range(len(marked) - 2)]


def _hashed(features: list[tuple[str, float]], dimensions: int) -> tuple[np.ndarray, np.ndarray]:
    """Each feature's dimension and its weight with the sign its hash gives."""
    digests = [zlib.crc32(feature.encode("utf-8")) for feature, _ in features]
    dims = np.fromiter((digest % dimensions for digest in digests), dtype=np.intp, count=len(digests))
    signed = np.fromiter(
        (weight if digest & 0x80000000 else -weight for digest, (_, weight) in zip(digests, features, strict=True)),
        dtype=np.float64,
        count=len(digests),
    )
    return dims, signed


@functools.lru_cache(maxsize=WORD_CACHE_SIZE)
def _word_hashed(word: str, dimensions: int) -> tuple[np.ndarray, np.ndarray]:
    dims, signed = _hashed(_word_feature_names(word), dimensions)
    dims.setflags(write=False)  # shared by every later text with this word
    signed.setflags(write=False)
    return dims, signed


class HashingEmbedder:
    name = HASHING_EMBEDDER_NAME
    dimensions = EMBEDDING_DIMENSIONS
    # Below this cosine similarity a vector hit of /memory/search is dropped as unrelated: texts
    # sharing no word score 0.02 (median) to 0.16 (p99) (docs/embeddings.md → thresholds).
    search_min_similarity = 0.15

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            if words:
                parts = [_word_hashed(word, self.dimensions) for word in words]
                dims = np.concatenate([part[0] for part in parts])
                signed = np.concatenate([part[1] for part in parts])
            else:
                dims, signed = _hashed(_punctuation_feature(text), self.dimensions)
            # Every weight is ±1 or ±0.5, so these sums are exact in float64 and in float32 alike:
            # the vector does not depend on the order its features are added in.
            vectors[row] = np.bincount(dims, weights=signed, minlength=self.dimensions)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        # A zero row cannot happen (every text has a feature), but never divide by zero.
        return vectors / np.where(norms == 0, 1.0, norms)
