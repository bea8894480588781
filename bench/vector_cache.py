"""Vectors kept on disk per (embedder name, text), so a benchmark sweep embeds each text once.

`vector_cache_enable()` wraps every embedder the process builds (memories.embedders.embedders_wrap):
each text's vector is looked up by the sha256 of the text in `var/bench-vectors/<name>.sqlite`,
and only the missing ones go to the model, in one call. The name is the embedder's
`embedding_model`, so another model (or another version of one) never reads these vectors.
For slow models only: a lookup costs more than hashing a text (bench/locomo/cli.py leaves
hashing uncached), and cached runs do not time the model.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from pathlib import Path

import numpy as np

CREATE_SQL = "CREATE TABLE IF NOT EXISTS vectors (text_sha256 TEXT PRIMARY KEY, vector BLOB NOT NULL)"
SELECT_SQL = "SELECT vector FROM vectors WHERE text_sha256 = ?"
INSERT_SQL = "INSERT OR REPLACE INTO vectors (text_sha256, vector) VALUES (?, ?)"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def cache_directory() -> Path:
    from django.conf import settings

    return Path(settings.VAR_DIR) / "bench-vectors"


class CachedEmbedder:
    """An embedder with the same name, dimensions and floor whose vectors come from disk when known."""

    def __init__(self, inner, directory: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.search_min_similarity = inner.search_min_similarity
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / f"{_UNSAFE.sub('_', self.name)}.sqlite"
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute(CREATE_SQL)
        self.hits = self.misses = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        keys = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts]
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        missing = []
        with self._lock:
            for row, key in enumerate(keys):
                found = self._db.execute(SELECT_SQL, (key,)).fetchone()
                if found is None:
                    missing.append(row)
                else:
                    vectors[row] = np.frombuffer(found[0], dtype=np.float32)
        if missing:
            computed = self.inner.embed([texts[row] for row in missing])
            vectors[missing] = computed
            with self._lock, self._db:
                self._db.executemany(
                    INSERT_SQL,
                    [(keys[row], computed[index].astype(np.float32).tobytes()) for index, row in enumerate(missing)],
                )
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        return vectors


def vector_cache_enable(directory: Path | None = None) -> None:
    """Cache the vectors of every embedder this process builds from now on."""
    from memories.embedders import embedders_wrap

    target = directory or cache_directory()
    embedders_wrap(lambda inner: CachedEmbedder(inner, target))
