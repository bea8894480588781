"""manage.py reembed: new vectors after switching the embedder, in batches, only where needed."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from memories.models import Memory
from memories.services.memory import memory_store
from minds.access import caller_of
from minds.models import Mind
from tests.embedding_server import axis_vector, fake_server_fixture, vectors_reply  # noqa: F401 — a fixture

pytestmark = pytest.mark.django_db


def store(mind, content: str) -> Memory:
    return memory_store(
        mind=mind.mind, fields={"category": "fact", "content": content}, caller=caller_of(mind.mind.owner)
    ).memory


def openai_settings(server, model: str = "mini"):
    return override_settings(SYNAPSE_EMBEDDER="openai", SYNAPSE_OPENAI_URL=server.url, SYNAPSE_OPENAI_MODEL=model)


def reembed(*args: str) -> str:
    out = StringIO()
    call_command("reembed", *args, stdout=out)
    return out.getvalue()


def test_it_reembeds_only_memories_of_another_embedder(mind, fake_server):
    fake_server.reply = vectors_reply(lambda i, text: axis_vector(len(text), text))
    old_ones = [store(mind, "Office is in Berlin"), store(mind, "Anna is my sister")]
    # A run that was interrupted had moved the mind to openai (a server running it may store then).
    Mind.objects.filter(pk=mind.mind.pk).update(embedding_model="openai:mini")
    with openai_settings(fake_server):
        current = store(mind, "Lunch at noon")
        fake_server.requests.clear()
        output = reembed("--mind", mind.mind.pk)
    assert sorted(text for request in fake_server.requests for text in request["input"]) == [
        "Anna is my sister",
        "Office is in Berlin",
    ]
    for memory in old_ones:
        memory.refresh_from_db()
        assert memory.embedding_model == "openai:mini"
        # The fake server puts 3 and 4 at the axes len(text) and len(text) + 1.
        expected = np.zeros(384)
        expected[len(memory.content)], expected[len(memory.content) + 1] = 0.6, 0.8
        assert np.asarray(memory.embedding) == pytest.approx(expected, abs=1e-6)
    current.refresh_from_db()
    assert current.embedding_model == "openai:mini"
    assert f"{mind.mind.pk}: re-embedded 2 of 2 memories with openai:mini." in output


def test_force_reembeds_memories_that_already_have_the_current_embedder(mind):
    memory = store(mind, "Office is in Berlin")
    Memory.objects.filter(pk=memory.pk).update(embedding=[1.0] + [0.0] * 383)  # stale vector, current name
    output = reembed("--mind", mind.mind.pk)
    assert "re-embedded 0 of 0 memories" in output
    memory.refresh_from_db()
    assert np.asarray(memory.embedding)[0] == 1.0  # without --force the name says it is current
    reembed("--mind", mind.mind.pk, "--force")
    memory.refresh_from_db()
    assert np.asarray(memory.embedding)[0] != 1.0
    assert np.linalg.norm(memory.embedding) == pytest.approx(1.0, abs=1e-6)


def test_it_works_in_batches_and_draws_a_progress_bar(mind, fake_server):
    fake_server.reply = vectors_reply(axis_vector)
    for n in range(5):
        store(mind, f"memory number {n}")
    with openai_settings(fake_server):
        output = reembed("--mind", mind.mind.pk, "--batch", "2")
    assert [len(request["input"]) for request in fake_server.requests] == [2, 2, 1]
    bars = [line for line in output.splitlines() if "[" in line]
    assert bars == [
        f"{mind.mind.pk} [############------------------]  40% 2/5",
        f"{mind.mind.pk} [########################------]  80% 4/5",
        f"{mind.mind.pk} [##############################] 100% 5/5",
    ]


def test_the_batch_is_locked_without_loading_the_vectors_it_replaces(mind):
    memory = store(mind, "Office is in Berlin")
    Memory.objects.filter(pk=memory.pk).update(embedding_model="old-model")
    with CaptureQueriesContext(connection) as queries:
        reembed("--mind", mind.mind.pk)
    locks = [query["sql"] for query in queries.captured_queries if " FOR UPDATE" in query["sql"]]
    assert len(locks) == 1
    assert '"memories_memory"."embedding"' not in locks[0]
    memory.refresh_from_db()
    assert memory.embedding_model == "hashing-v1"


def test_memories_without_a_vector_are_embedded(mind):
    memory = store(mind, "Office is in Berlin")
    Memory.objects.filter(pk=memory.pk).update(embedding=None, embedding_model="")
    reembed("--mind", mind.mind.pk)
    memory.refresh_from_db()
    assert memory.embedding_model == "hashing-v1"
    assert memory.embedding is not None


def test_other_minds_are_left_alone_unless_all_is_given(mind, other_mind):
    mine, theirs = store(mind, "mine"), store(other_mind, "theirs")
    Memory.objects.filter(pk__in=[mine.pk, theirs.pk]).update(embedding_model="old-model")
    reembed("--mind", mind.mind.pk)
    assert dict(Memory.objects.values_list("pk", "embedding_model")) == {mine.pk: "hashing-v1", theirs.pk: "old-model"}
    reembed("--all")
    assert set(Memory.objects.values_list("embedding_model", flat=True)) == {"hashing-v1"}


def test_an_unknown_mind_is_an_error_that_says_what_to_do():
    with pytest.raises(CommandError, match=r"No mind with id 'm_nope'. `--all` re-embeds every mind."):
        reembed("--mind", "m_nope")


def test_a_failing_embedding_server_stops_the_command_with_its_message(mind, fake_server):
    store(mind, "Office is in Berlin")
    fake_server.reply = lambda body: (503, b"loading model")
    with openai_settings(fake_server), pytest.raises(CommandError, match="answered HTTP 503: loading model"):
        reembed("--mind", mind.mind.pk)
    assert Memory.objects.get(mind=mind.mind).embedding_model == "hashing-v1"


@pytest.mark.django_db(transaction=True)
def test_a_memory_rewritten_while_it_is_being_embedded_keeps_its_fresh_vector(mind, fake_server):
    memory = store(mind, "Office is in Berlin")

    def rewrite_then_answer(body):
        if body["input"] == ["Office is in Berlin"]:
            # Another writer changes the content after reembed read it and before it writes
            # (its own store embeds the new content through this same server).
            rewrite()
        # A vector per text (3 and 4 at the axes len(text), len(text) + 1): ours and the rewrite's differ.
        return vectors_reply(lambda i, text: axis_vector(len(text), text))(body)

    fresh_vectors = []

    def rewrite():
        rewritten = memory_store(
            mind=mind.mind,
            fields={"category": "fact", "key": memory.key, "content": "Office moved to Hamburg"},
            caller=caller_of(mind.mind.owner),
        ).memory
        fresh_vectors.append(np.asarray(rewritten.embedding))
        connection.close()  # this thread's own connection

    fake_server.reply = rewrite_then_answer
    with openai_settings(fake_server):
        output = reembed("--mind", mind.mind.pk)
    memory.refresh_from_db()
    assert memory.content == "Office moved to Hamburg"
    # The rewrite embedded its own content with the current (openai) embedder; ours was discarded.
    assert np.asarray(memory.embedding) == pytest.approx(fresh_vectors[0], abs=1e-6)
    assert [request["input"] for request in fake_server.requests] == [
        ["Office is in Berlin"],
        ["Office moved to Hamburg"],
    ]
    assert "re-embedded 0 of 1 memories" in output
    assert "1 changed meanwhile" in output
