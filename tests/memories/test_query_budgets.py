"""Exact query budgets of the hot paths, through the API as an agent calls them.

Every budget counts the same frame, written once here instead of per test:
- AUTH (1): the Mind Key's row (`minds_mindkey`); the key was used just before, so its
  `last_used_at` needs no UPDATE;
- LOG (4): the pipeline log's flush at the end of the request — the mind's row checked, then a
  SAVEPOINT, the COPY of the log rows and its RELEASE;
- WEBHOOKS (1, writes only): the mind's enabled webhooks read for the change's event
  (webhooks.receivers), none here;
- EMBEDDER (1, where vectors are written or compared without the mind's row at hand): the
  mind's recorded embedder, read so that a mind never mixes vectors of two embedders — a store,
  an upsert and a search check the row the Mind Key's lookup read; a rewrite by sync or import
  reads it; the mind's first vectors also record it (CLAIM, after a read).
The agent's mind holds one memory before each test, so its embedder is recorded: the budgets are
those of a mind in use, and the first store's one more is its own test.
Inside a test every transaction is a savepoint (SAVEPOINT … RELEASE, 2 statements) of the test's
own; in production the same two are BEGIN and COMMIT.

A batch's budget (sync, import) is the same for 3 and for 30 rows: set-based, one statement per
kind of write (up to 100 rows per UPDATE), never one per row.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

AUTH = 1
LOG = 4
TRANSACTION = 2  # SAVEPOINT + RELEASE of the service's transaction
WEBHOOKS = 1  # the mind's enabled webhooks, read once per write's event
EMBEDDER = 1  # the mind's recorded embedder, read before its vectors are written or compared
CLAIM = 1  # the UPDATE recording it, on the mind's first vectors


@pytest.fixture
def agent(mind):
    """The mind's agent client, its key already used once (no `last_used_at` write to come), its
    mind's embedder recorded by a first memory."""
    assert mind.agent.get("/memory/stats").status_code == 200
    store(mind.agent, key="first", content="The first memory records the embedder")
    return mind.agent


def store(client, **fields):
    response = client.post("/memory", {"category": "fact", **fields}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def test_storing_a_new_memory_costs_thirteen_queries(agent, django_assert_num_queries):
    # The lock query finding no (category, key); the INSERT in its own savepoint (2 + 1); the audit row.
    with django_assert_num_queries(AUTH + TRANSACTION + 1 + 3 + 1 + WEBHOOKS + LOG):
        store(agent, key="city", content="Berlin")


def test_a_minds_first_memory_costs_one_more_query_the_record_of_its_embedder(mind, django_assert_num_queries):
    assert mind.agent.get("/memory/stats").status_code == 200
    with django_assert_num_queries(AUTH + TRANSACTION + EMBEDDER + CLAIM + 1 + 3 + 1 + WEBHOOKS + LOG):
        store(mind.agent, key="city", content="Berlin")


def test_an_upsert_that_changes_the_memory_costs_eleven_queries(agent, django_assert_num_queries):
    store(agent, key="city", content="Berlin")
    # The lock query finding the memory; its UPDATE; the audit row.
    with django_assert_num_queries(AUTH + TRANSACTION + 3 + WEBHOOKS + LOG):
        store(agent, key="city", content="Hamburg")


def test_a_patch_costs_fourteen_queries(agent, django_assert_num_queries):
    memory = store(agent, key="city", content="Berlin")
    # The access check's read of the memory; the lock query; the UPDATE in its own savepoint
    # (2 + 1, a concurrent write may take the key); the audit row.
    with django_assert_num_queries(AUTH + 1 + TRANSACTION + 1 + 3 + 1 + WEBHOOKS + LOG):
        assert agent.patch(f"/memory/{memory['id']}", {"priority": "high"}, format="json").status_code == 200


def _items(count: int, suffix: str = "") -> dict:
    return {"memories": [{"category": "fact", "key": f"k{n}", "content": f"fact {n}{suffix}"} for n in range(count)]}


@pytest.mark.parametrize("count", [3, 30])
def test_a_sync_of_new_memories_costs_thirteen_queries_whatever_its_size(agent, count, django_assert_num_queries):
    # The lock query; one bulk INSERT in its savepoint (2 + 1); one bulk INSERT of the audit rows.
    with django_assert_num_queries(AUTH + TRANSACTION + 1 + 3 + 1 + WEBHOOKS + LOG):
        assert agent.post("/memory/sync", _items(count), format="json").status_code == 200


@pytest.mark.parametrize("count", [3, 30])
def test_a_sync_rewriting_memories_costs_fifteen_queries_whatever_its_size(agent, count, django_assert_num_queries):
    agent.post("/memory/sync", _items(count), format="json")
    # The lock query; the empty insert's savepoint (2, no INSERT); the bulk UPDATE of the stamps
    # and the bulk UPDATE of the rewritten contents and vectors; the audit rows.
    with django_assert_num_queries(AUTH + TRANSACTION + EMBEDDER + 1 + 2 + 2 + 1 + WEBHOOKS + LOG):
        assert agent.post("/memory/sync", _items(count, " (new)"), format="json").status_code == 200


def _document(count: int, suffix: str, updated_at: str) -> dict:
    memories = [
        {"category": "fact", "key": f"i{n}", "content": f"fact {n}{suffix}", "updated_at": updated_at}
        for n in range(count)
    ]
    return {"format_version": 1, "memories": memories}


@pytest.mark.parametrize("count", [3, 30])
def test_an_import_costs_thirteen_queries_whatever_its_size(agent, count, django_assert_num_queries):
    # Creating: the lock query; one bulk INSERT in its savepoint (2 + 1); the audit rows.
    with django_assert_num_queries(AUTH + TRANSACTION + 1 + 3 + 1 + WEBHOOKS + LOG):
        body = agent.post("/mind/import", _document(count, "", "2020-01-01T00:00:00Z"), format="json").json()
    assert body["created"] == count
    # Replacing with a later version: the lock query; the empty insert's savepoint (2); one bulk
    # UPDATE (up to 100 rows); the audit rows.
    with django_assert_num_queries(AUTH + TRANSACTION + EMBEDDER + 1 + 2 + 1 + 1 + WEBHOOKS + LOG):
        body = agent.post("/mind/import", _document(count, "!", "2025-06-01T00:00:00Z"), format="json").json()
    assert body["updated"] == count


def test_recall_costs_seven_queries(agent, django_assert_num_queries):
    agent.post("/memory/sync", _items(30), format="json")
    # The counts (one aggregate) and the memories shown (one SELECT).
    with django_assert_num_queries(AUTH + 2 + LOG):
        assert agent.get("/memory/recall").status_code == 200


def test_search_costs_ten_queries(agent, django_assert_num_queries):
    agent.post("/memory/sync", _items(30), format="json")
    # In one read transaction: the vector index settings (set_config), the fused text + vector
    # ranking, and the memories of the hits.
    with django_assert_num_queries(AUTH + TRANSACTION + 3 + LOG):
        assert agent.get("/memory/search?q=fact").status_code == 200
