"""Acceptance 4: one promotion runs the same statements whether the net holds 10 or 1,000 knots
(and the mind 10 or 1,000 entities)."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.models import EMBEDDING_DIMENSIONS
from synapses.models import Edge, Entity, Knot, KnotPresence
from synapses.promotion.entities import memory_entities_resolve
from synapses.promotion.service import batch_promote, candidates_select
from tests.factories import knot_make, memory_make

pytestmark = pytest.mark.django_db

# The statements of one promotion (a batch of one) that creates a knot and writes its edges:
#   SAVEPOINT (the batch), claim (SELECT … FOR UPDATE SKIP LOCKED), advisory locks,
#   INSERT of the batch's explicit names,
#   SAVEPOINT (the memory), entities: SELECT by names and aliases,
#   match test: plan (count + HNSW settings), nearest knots,
#   INSERT knot with its presence and origin link (one statement),
#   edges: plan, candidates, bulk INSERT,
#   RELEASE (the memory), the mind's webhooks (the batch's one knot.created: one indexed SELECT),
#   RELEASE (the batch) — the memory's row in the pending table goes with its link's INSERT, by
#   trigger (the batch's UPDATE of promoted_at made this 20 before),
#   the span's log rows (the test settings write them synchronously): the minds they name,
#   SAVEPOINT, COPY, RELEASE.
STATEMENTS = 19


def _net_grow(memory, knots: int, *, seed: int) -> None:
    """`knots` knots of `memory`'s mind with random vectors, all sharing the theme "family", in
    two bulk inserts; and as many entities."""
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(knots, EMBEDDING_DIMENSIONS))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    now = timezone.now()
    rows = Knot.objects.bulk_create(
        Knot(
            mind=memory.mind,
            memory=memory,
            content=f"knot {seed} {n}",
            content_hash=f"{seed}-{n}",
            category="fact",
            observer="user",
            embedding=vector,
            embedding_model="hashing-v1",
            themes=["family"],
            weight_raw=0.5,
            weight_anchor=2.8,
            source_created_at=now,
        )
        for n, vector in enumerate(vectors)
    )
    KnotPresence.objects.bulk_create(
        KnotPresence(
            knot=knot,
            mind=memory.mind,
            presence_base=2.8,
            weight_present=2.8,
            reinforced_at=now,
            decayed_at=now,
        )
        for knot in rows
    )
    Entity.objects.bulk_create(Entity(mind=memory.mind, name=f"person {seed} {n}") for n in range(knots))


def _statements_of_one_promotion(mind, key: str, content: str) -> int:
    memory = memory_make(
        mind=mind, key=key, content=content, entities=["Mira"], tags=["family"], embedded=True, salience=0.9
    )
    (candidate,) = candidates_select(now=timezone.now(), memory_ids=[memory.pk])
    with CaptureQueriesContext(connection) as queries:
        (result,) = batch_promote([candidate], size=1).outcomes
    assert result.outcome == "created"
    assert result.pairs_written > 0  # the theme fires: the edge statements ran
    return len(queries)


def test_one_promotion_runs_the_same_statements_at_10_and_at_1000_knots(mind):
    holder = memory_make(
        mind=mind.mind, key="holder", content="the memory the grown knots belong to", embedded=True, salience=0.9
    )
    _net_grow(holder, 10, seed=1)
    at_10 = _statements_of_one_promotion(mind.mind, "lake", "Mira swam in the lake in June.")
    _net_grow(holder, 990, seed=2)
    assert Knot.objects.filter(mind=mind.mind).count() == 1001
    at_1000 = _statements_of_one_promotion(mind.mind, "taxes", "Quarterly returns were filed electronically by Mira.")
    assert at_10 == at_1000 == STATEMENTS
    assert Edge.objects.filter(mind=mind.mind).count() > 0


def test_entity_resolution_is_two_statements_at_10_and_at_1000_entities(mind):
    holder = memory_make(mind=mind.mind, key="holder", content="holder", embedded=True, salience=0.9)
    Entity.objects.bulk_create(Entity(mind=mind.mind, name=f"person {n}", aliases=[f"alias {n}"]) for n in range(10))
    counts = []
    for round_, total in enumerate((10, 1000)):
        if total > 10:
            Entity.objects.bulk_create(
                Entity(mind=mind.mind, name=f"person {n}", aliases=[f"alias {n}"]) for n in range(10, total)
            )
        with CaptureQueriesContext(connection) as queries:
            resolved = memory_entities_resolve(
                mind_id=holder.mind_id,
                names=[f"New {round_}"],
                content="person 7 met ALIAS 9 and person 999",
                now=timezone.now(),
            )
        counts.append(len(queries))
        expected = {"person 7", f"New {round_}"} | ({"person 999"} if total == 1000 else set())
        found = set(Entity.objects.filter(pk__in=resolved.ids).values_list("name", flat=True))
        assert found == expected | {"person 9"}
    assert counts == [2, 2]


def test_a_batch_that_knows_the_mind_above_the_bound_matches_in_one_message_under_the_nets_settings(
    mind, settings, monkeypatch
):
    from memories.selectors.vector_plan import HNSW_SETTINGS_SQL, under_hnsw_settings
    from synapses.net.selectors.candidates import NetFacts
    from synapses.promotion import knots as promotion

    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = 0  # one knot is above the bound: the HNSW plan
    holder = memory_make(
        mind=mind.mind, key="holder", content="Mira swam in the lake in June.", embedded=True, salience=0.9
    )
    knot = knot_make(
        memory=holder, weight_anchor=2.0, embedding=holder.embedding, embedding_model=holder.embedding_model
    )
    newcomer = memory_make(
        mind=mind.mind, key="newcomer", content="Mira swam in the lake in June.", embedded=True, salience=0.9
    )
    facts = NetFacts()
    with CaptureQueriesContext(connection) as first:
        found = promotion.nearest_other_knot(
            mind_id=mind.mind.pk, memory_id=newcomer.pk, vector=newcomer.embedding, facts=facts
        )
    assert (found.knot_id, found.plan, len(first)) == (knot.pk, "hnsw", 2)  # counted, then the rows
    assert facts.knots_above_bound == {mind.mind.pk}

    with CaptureQueriesContext(connection) as second:
        again = promotion.nearest_other_knot(
            mind_id=mind.mind.pk, memory_id=newcomer.pk, vector=newcomer.embedding, facts=facts
        )
    assert (again.knot_id, again.plan, len(second)) == (knot.pk, "hnsw", 1)
    assert second[0]["sql"].startswith(HNSW_SETTINGS_SQL.split("\n", 1)[0])  # the settings, then the rows

    # The rows' statement replaced by one that reads the settings it runs under, after they were
    # undone in this transaction: the message itself must set the net's (ef_search = the 10 rows
    # wanted, at least 40; the iterative scan).
    monkeypatch.setattr(
        promotion,
        "NEAREST_UNDER_SETTINGS_SQL",
        under_hnsw_settings(
            "SELECT current_setting('hnsw.ef_search')::int, 0.0,"
            " current_setting('hnsw.iterative_scan') = 'relaxed_order', ''"
        ),
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('hnsw.iterative_scan', 'off', true), set_config('hnsw.ef_search', '1', true)")
    read = promotion.nearest_other_knot(mind_id=mind.mind.pk, memory_id=newcomer.pk, vector=newcomer.embedding,
                                        facts=facts)  # fmt: skip
    assert (read.knot_id, read.is_active) == (40, True)
