"""bench/vector_cache.py: a text is embedded once per embedder name, whatever the batch it comes in."""

from __future__ import annotations

import numpy as np
import pytest

from bench.vector_cache import CachedEmbedder


class Counting:
    """An embedder whose vector of a text is 1 at the axis len(text) % 4; it records what it was asked."""

    dimensions = 4
    search_min_similarity = 0.1

    def __init__(self, name: str) -> None:
        self.name = name
        self.asked: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.asked += texts
        vectors = np.zeros((len(texts), 4), dtype=np.float32)
        for row, text in enumerate(texts):
            vectors[row, len(text) % 4] = 1.0
        return vectors


def test_each_text_is_embedded_once_and_comes_back_the_same(tmp_path):
    inner = Counting("model-a")
    cached = CachedEmbedder(inner, tmp_path)
    first = cached.embed(["ab", "abc"])
    again = CachedEmbedder(Counting("model-a"), tmp_path)  # another process: the file, not memory
    second = again.embed(["abc", "x", "ab"])
    assert inner.asked == ["ab", "abc"]
    assert again.inner.asked == ["x"]
    assert second.tolist() == [first[1].tolist(), [0, 1, 0, 0], first[0].tolist()]
    assert (again.hits, again.misses) == (2, 1)
    assert (again.name, again.dimensions, again.search_min_similarity) == ("model-a", 4, 0.1)


def test_another_model_never_reads_these_vectors(tmp_path):
    CachedEmbedder(Counting("model-a"), tmp_path).embed(["ab"])
    other = CachedEmbedder(Counting("openai:model/b"), tmp_path)
    other.embed(["ab"])
    assert other.inner.asked == ["ab"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["model-a.sqlite", "openai_model_b.sqlite"]


@pytest.mark.parametrize("texts", [[], ["only"]])
def test_empty_and_single_batches(tmp_path, texts):
    assert CachedEmbedder(Counting("m"), tmp_path).embed(texts).shape == (len(texts), 4)
