"""Recall with resonance on small nets written by hand; every expectation is worked out below
from docs/synapse-model.md §5 (ranking = presence × shell factor × sector factor)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.embedders import get_embedder
from memories.models import EMBEDDING_DIMENSIONS, Memory
from memoryproject.core.domain import ValidationFailed
from pipelinelog.models import LogEntry
from synapses.models import Edge, Entity, Goal, Knot, KnotPresence, LinkKind, MemoryKnot
from synapses.net.geometry import damp
from synapses.resonance.service import resonance_of
from tests.factories import edge_make, knot_make, memory_make
from tests.vectors import at_cosine_to_query, query_vector

Q = "zebra"


@pytest.fixture(autouse=True)
def _seed_ranking(settings):
    """These worked examples are the original's ranking (presence × shell × sector); the
    relevance ranking has its own (tests/synapses/test_resonance_relevance.py)."""
    settings.SYNAPSE_RESONANCE_RANKING = "seed"


def _far(axis: int) -> list[float]:
    """A vector at cosine 0 to the query: such a knot can only be an anchor by full text."""
    return at_cosine_to_query(Q, 0.0, axis=axis)


@pytest.fixture
def zoo(mind):
    """One anchor by full text (A) and a net around it:

        A→B 5, A→C 4, A→D 3, A→E 1        shell 1 follows A's top 3: B, C, D (not E)
        B→A 9, B→F 2, B→G 1.5, B→H 0.5    from B (came from A) the top 2 without A: F, G
        C→X 9 (X inactive), C→B 1          from C: X is skipped, B again (kept at shell 1)
        D→A 6                              from D: only the way back, locked: nothing
    X also matches the query by text, but is inactive.
    """
    m = mind.mind
    spec = {
        "A": ("the zebra grazes", 2.0, "joy", True),
        "B": ("a quiet morning", 4.0, "trust", True),
        "C": ("rain on the roof", 3.0, "sadness", True),
        "D": ("a blue door", 1.0, "", True),
        "E": ("an old bicycle", 9.0, "", True),
        "F": ("the river bend", 2.0, "", True),
        "G": ("a paper kite", 8.0, "", True),
        "H": ("a wooden spoon", 9.5, "", True),
        "X": ("the zebra sleeps", 9.0, "", False),
    }
    knots = {
        name: knot_make(
            memory=memory_make(mind=m, content=content, salience=0.7),
            embedding=_far(axis),
            presence=present,
            emotion=emotion,
            is_active=active,
            embedding_model=get_embedder().name,
            linked=True,
        )
        for axis, (name, (content, present, emotion, active)) in enumerate(spec.items())
    }
    k = knots
    for source, target, weight in [
        ("A", "B", 5), ("A", "C", 4), ("A", "D", 3), ("A", "E", 1),
        ("B", "A", 9), ("B", "F", 2), ("B", "G", 1.5), ("B", "H", 0.5),
        ("C", "X", 9), ("C", "B", 1), ("D", "A", 6),
    ]:  # fmt: skip
        edge_make(source=k[source], target=k[target], weight_anchor=weight)
    return m, knots


def _ids(result) -> list[int]:
    return [item["knot_id"] for item in result["items"]]


def test_shell_one_in_the_default_mode_ranked_with_the_mood(zoo):
    m, k = zoo
    result = resonance_of(mind=m, q=Q, mood="joy", limit=3)
    # A 2.0 × 1 × 1 = 2.0; B 4.0 × 0.75 × 0.9 (trust) = 2.7; C 3.0 × 0.75 × 0.6 (sadness) = 1.35; D 0.75.
    assert _ids(result) == [k["B"].pk, k["A"].pk, k["C"].pk]
    assert [item["rank_weight"] for item in result["items"]] == pytest.approx([2.7, 2.0, 1.35])
    assert [item["shell"] for item in result["items"]] == [1, 0, 1]
    assert (result["anchor_count"], result["hop_depth"], result["mode"], result["mood"]) == (1, 1, "default", "joy")
    b = result["items"][0]
    ab = Edge.objects.get(source=k["A"], target=k["B"])
    assert b["path"] == [
        {
            "from_knot_id": k["A"].pk,
            "edge_id": ab.pk,
            "layers": ["embedding"],
            "shared_entities": [],
            "shared_themes": [],
        }
    ]
    assert result["items"][1]["path"] == []


def test_without_a_mood_only_presence_and_shell_rank(zoo):
    m, k = zoo
    # B 3.0, C 2.25, A 2.0, D 0.75
    assert _ids(resonance_of(mind=m, q=Q, limit=3)) == [k["B"].pk, k["C"].pk, k["A"].pk]


def test_two_shells_follow_two_edges_each_under_the_predecessor_lock_and_skip_inactive_knots(zoo):
    m, k = zoo
    result = resonance_of(mind=m, q=Q, mode="bier", limit=10)
    # G 8 × 0.5 = 4.0; B 3.0; C 2.25; A 2.0; F 2 × 0.5 = 1.0; D 0.75. G is there only because
    # B's strongest edge (back to A) is locked; E (A's 4th edge), H (B's 3rd) and X (inactive) never.
    assert _ids(result) == [k[n].pk for n in ("G", "B", "C", "A", "F", "D")]
    assert [i["rank_weight"] for i in result["items"]] == pytest.approx([4.0, 3.0, 2.25, 2.0, 1.0, 0.75])
    g = result["items"][0]
    assert g["shell"] == 2
    assert [step["from_knot_id"] for step in g["path"]] == [k["A"].pk, k["B"].pk]
    assert g["path"][1]["edge_id"] == Edge.objects.get(source=k["B"], target=k["G"]).pk
    # B was reached again in shell 2 (C→B); dedup kept its shell-1 entry.
    assert result["items"][1]["shell"] == 1


def test_a_mode_of_depth_zero_gives_the_anchors_only(zoo):
    m, k = zoo
    result = resonance_of(mind=m, q=Q, mode="werkstatt", limit=3)
    assert _ids(result) == [k["A"].pk] and result["hop_depth"] == 0


def test_an_empty_net_resonates_with_nothing(mind):
    result = resonance_of(mind=mind.mind, q=Q, limit=3)
    assert result["items"] == [] and result["anchor_count"] == 0


def test_an_unknown_mode_is_refused_listing_the_known_ones(zoo):
    m, _ = zoo
    with pytest.raises(ValidationFailed) as raised:
        resonance_of(mind=m, q=Q, mode="disco", limit=3)
    message = raised.value.fields["mode"][0]
    assert "disco" in message and "werkstatt" in message and "feuerwerk" in message


def test_a_minds_own_mode_sets_the_depth(zoo):
    m, k = zoo
    m.settings = {"modes": {"tief": {"hop_depth": 2, "gravity_factor": 0.0}}}
    m.save()
    result = resonance_of(mind=m, q=Q, mode="tief", limit=1)
    assert _ids(result) == [k["G"].pk] and result["hop_depth"] == 2


def test_the_anchor_floor_and_the_gravity_threshold_are_the_embedders_calibrated_values(settings):
    from synapses.config import synapse_settings

    # The knot-pair cosines' p90 of the LoCoMo development split (docs/synapse-model.md §10), but
    # hashing's floor near its p99 (measured on LoCoMo, docs/benchmarks.md).
    settings.SYNAPSE_EMBEDDER = "hashing"
    assert (synapse_settings.ANCHOR_FLOOR, synapse_settings.GRAVITY_THRESHOLD) == (0.50, 0.39)
    settings.SYNAPSE_EMBEDDER = "sentence-transformers"
    assert (synapse_settings.ANCHOR_FLOOR, synapse_settings.GRAVITY_THRESHOLD) == (0.56, 0.56)
    settings.SYNAPSE_EMBEDDER = "openai"  # no calibrated row: the original's values
    assert (synapse_settings.ANCHOR_FLOOR, synapse_settings.GRAVITY_THRESHOLD) == (0.40, 0.40)


def test_the_anchor_floor_admits_a_vector_hit_at_or_above_it_only(mind, settings):
    m = mind.mind
    floor = settings.SYNAPSE_ANCHOR_FLOOR = 0.45
    above = knot_make(
        memory=memory_make(mind=m, content="first words", salience=0.7),
        embedding=at_cosine_to_query(Q, floor + 0.01, axis=1),
        presence=5.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    below = knot_make(
        memory=memory_make(mind=m, content="second words", salience=0.7),
        embedding=at_cosine_to_query(Q, floor - 0.01, axis=2),
        presence=9.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    close = knot_make(
        memory=memory_make(mind=m, content="third words", salience=0.7),
        embedding=at_cosine_to_query(Q, 0.95, axis=3),
        presence=1.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    result = resonance_of(mind=m, q=Q, mode="werkstatt", limit=10)
    assert _ids(result) == [above.pk, close.pk]
    assert below.pk not in _ids(result)


def test_further_anchors_fill_the_list_when_spreading_yields_too_few(mind):
    m = mind.mind
    knots = [
        knot_make(
            memory=memory_make(mind=m, content=f"zebra number {i}", salience=0.7),
            embedding=_far(i),
            presence=float(i),
            embedding_model=get_embedder().name,
            linked=True,
        )
        for i in range(1, 6)
    ]
    result = resonance_of(mind=m, q=Q, limit=5)
    assert sorted(_ids(result)) == sorted(knot.pk for knot in knots)
    assert result["anchor_count"] == 3
    assert [i["weight_present"] for i in result["items"]] == [5.0, 4.0, 3.0, 2.0, 1.0]
    assert len(resonance_of(mind=m, q=Q, limit=2)["items"]) == 2


def test_items_carry_every_linked_memory_the_superseded_flag_and_entity_names(mind):
    m = mind.mind
    anna = Entity.objects.create(mind=m, name="Anna")
    first = memory_make(mind=m, content="zebra stripes at the zoo", salience=0.7)
    k1 = knot_make(
        memory=first,
        embedding=_far(1),
        presence=3.0,
        entities=[anna.pk],
        themes=["family"],
        embedding_model=get_embedder().name,
        linked=True,
    )
    twin = memory_make(mind=m, content="zebra stripes at the zoo!", key="twin", salience=0.7)
    MemoryKnot.objects.create(mind=m, memory=twin, content_hash=twin.content_hash, knot=k1, kind=LinkKind.DUPLICATE)
    # A memory promoted, then edited, then promoted again: its first knot is an earlier version.
    changed = memory_make(mind=m, content="a zebra in the old text", key="changed", salience=0.7)
    old = knot_make(memory=changed, embedding=_far(2), presence=2.0, embedding_model=get_embedder().name, linked=True)
    Memory.objects.filter(pk=changed.pk).update(
        content="new text", content_hash=hashlib.sha256(b"new text").hexdigest()
    )
    changed.refresh_from_db()
    new = knot_make(memory=changed, embedding=_far(3), presence=1.0, embedding_model=get_embedder().name, linked=True)
    friend = knot_make(
        memory=memory_make(mind=m, content="my sister visits", salience=0.7),
        embedding=_far(4),
        presence=8.0,
        entities=[anna.pk],
        embedding_model=get_embedder().name,
        linked=True,
    )
    edge_make(
        source=k1, target=friend, weight_anchor=2.0, layers=("entity", "themes"), entities=[anna.pk], themes=["family"]
    )

    items = {item["knot_id"]: item for item in resonance_of(mind=m, q=Q, limit=10)["items"]}
    assert set(items) == {k1.pk, old.pk, friend.pk}  # `new` matches nothing
    assert items[k1.pk]["memory_id"] == first.pk
    assert items[k1.pk]["memory_ids"] == [first.pk, twin.pk]
    assert items[k1.pk]["entities"] == ["Anna"] and items[k1.pk]["themes"] == ["family"]
    assert items[old.pk]["superseded"] is True and items[k1.pk]["superseded"] is False
    assert new.pk not in items
    assert items[friend.pk]["path"][0]["shared_entities"] == ["Anna"]
    assert items[friend.pk]["path"][0]["shared_themes"] == ["family"]


def test_one_span_logs_the_anchors_the_shells_and_the_outcome(zoo):
    m, k = zoo
    resonance_of(mind=m, q=Q, mode="bier", limit=3)
    rows = LogEntry.objects.filter(node="synapses.resonance")
    assert rows.filter(kind="span_start").count() == 1
    anchors = rows.get(kind="decision").content
    assert [a["knot_id"] for a in anchors["anchors"]] == [k["A"].pk] and anchors["anchors"][0]["text_match"] is True
    output = rows.get(kind="output").content
    # shell 1: B, C, D; shell 2: F, G (from B) and B again (from C).
    assert output["outcome"] == "resonance" and output["shells"] == {"0": 1, "1": 3, "2": 3}
    assert [i["knot_id"] for i in output["items"]] == [k["G"].pk, k["B"].pk, k["C"].pk]


def test_reading_writes_no_weight(zoo):
    m, _ = zoo
    before = list(KnotPresence.objects.order_by("pk").values_list("weight_present", "presence_base"))
    weights = list(Knot.objects.order_by("pk").values_list("weight_raw", "weight_anchor", "activation_count"))
    resonance_of(mind=m, q=Q, mode="glut", limit=10)
    assert list(KnotPresence.objects.order_by("pk").values_list("weight_present", "presence_base")) == before
    assert list(Knot.objects.order_by("pk").values_list("weight_raw", "weight_anchor", "activation_count")) == weights


# --- gravity -----------------------------------------------------------------------------------


def _goal(m, *, motivation: float, cosine: float) -> Goal:
    return Goal.objects.create(
        mind=m,
        statement="find the zebra",
        motivation=motivation,
        embedding=at_cosine_to_query(Q, cosine, axis=7),
        embedding_model=get_embedder().name,
    )


def _gravity_rows():
    return LogEntry.objects.filter(kind="calculation", content__calculation="perception_gravity")


def test_a_goal_below_the_threshold_leaves_the_search_vector_raw(zoo):
    m, _ = zoo
    _goal(m, motivation=0.5, cosine=0.6)  # activation 0.3 < 0.4
    result = resonance_of(mind=m, q=Q, mode="glut", limit=3)
    row = _gravity_rows().get().content
    assert row["outcome"] == "no_active_goals" and row["cosine_to_raw"] == 1.0 and row["factor"] == 0.0
    assert row["goals"][0]["activation"] == pytest.approx(0.3) and row["goals"][0]["counted"] is False
    assert result["gravity"]["outcome"] == "no_active_goals"


def test_an_active_goal_moves_the_search_vector_and_the_move_is_logged(zoo):
    m, _ = zoo
    goal = _goal(m, motivation=1.0, cosine=0.6)  # activation 0.6 ≥ 0.4
    resonance_of(mind=m, q=Q, mode="glut", limit=3)
    row = _gravity_rows().get().content
    # shifted = 0.7·q + 0.3·0.6·g with g = 0.6·q + 0.8·u: (0.808·q + 0.144·u), cosine 0.808 / |…|.
    assert row["outcome"] == "shifted" and row["factor"] == 0.3
    assert row["cosine_to_raw"] == pytest.approx(0.808 / np.hypot(0.808, 0.144), abs=1e-5)
    assert row["goals"] == [
        {"goal_id": goal.pk, "similarity": pytest.approx(0.6, abs=1e-5), "motivation": 1.0,
         "activation": pytest.approx(0.6, abs=1e-5), "counted": True}
    ]  # fmt: skip


def test_an_instruction_searches_with_the_raw_vector(zoo):
    m, _ = zoo
    _goal(m, motivation=1.0, cosine=0.9)
    result = resonance_of(mind=m, q=Q, mode="glut", intent="instruction", limit=3)
    row = _gravity_rows().get().content
    assert row["outcome"] == "instruction" and row["cosine_to_raw"] == 1.0
    assert result["gravity"]["factor"] == 0.0


def test_gravity_can_bring_up_an_anchor_the_raw_query_misses(mind, settings):
    m = mind.mind
    settings.SYNAPSE_ANCHOR_FLOOR = 0.40  # the original's floor, which the numbers below were worked out for
    # The knot sits at cosine 0.35 to the raw query, below the floor. The goal lies halfway
    # between query and knot (cosine 0.8216 to both, so it counts with motivation 1).
    # werkstatt (f 0.05): cosine(shifted, knot) = 0.3662 / 0.9840 = 0.372 — still below.
    # glut (f 0.3): shifted = 0.7·q + 0.2465·goal, cosine to the knot 0.4475 / 0.9134 = 0.490.
    qv = query_vector(Q)
    knot_vec = np.asarray(at_cosine_to_query(Q, 0.35, axis=9))
    goal_vec = (qv + knot_vec) / np.linalg.norm(qv + knot_vec)  # cosine to q: √((1+0.35)/2) = 0.8216
    knot = knot_make(
        memory=memory_make(mind=m, content="striped animals", salience=0.7),
        embedding=list(knot_vec),
        presence=1.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    Goal.objects.create(mind=m, statement="s", motivation=1.0, embedding=list(goal_vec),
                        embedding_model=get_embedder().name)  # fmt: skip
    assert resonance_of(mind=m, q=Q, mode="werkstatt", limit=3)["items"] == []
    assert _ids(resonance_of(mind=m, q=Q, mode="glut", limit=3)) == [knot.pk]


# --- the number of statements ------------------------------------------------------------------


def _net_of(m, size: int, rng: np.random.Generator) -> None:
    """`size` knots that all match the query by text, each with edges to its next four."""
    memories = Memory.objects.bulk_create(
        [
            Memory(mind=m, category="fact", key=f"n{i}", content=f"zebra {i}",
                   content_hash=hashlib.sha256(f"zebra {i}".encode()).hexdigest(), source="agent", speaker="user",
                   confidence=1.0, salience=0.7)
            for i in range(size)
        ]
    )  # fmt: skip
    vectors = rng.normal(size=(size, EMBEDDING_DIMENSIONS))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    knots = Knot.objects.bulk_create(
        [
            Knot(mind=m, memory=memory, content=memory.content, content_hash=memory.content_hash, category="fact",
                 observer="user", embedding=list(vectors[i]), embedding_model="test", weight_raw=0.7,
                 weight_anchor=damp(0.7), source_created_at=memory.created_at)
            for i, memory in enumerate(memories)
        ]
    )  # fmt: skip
    KnotPresence.objects.bulk_create(
        [
            KnotPresence(knot=knot, mind=m, presence_base=1.0 + i % 7, weight_present=1.0 + i % 7,
                         reinforced_at=knot.created_at, decayed_at=knot.created_at)
            for i, knot in enumerate(knots)
        ]
    )  # fmt: skip
    MemoryKnot.objects.bulk_create(
        [MemoryKnot(mind=m, memory_id=k.memory_id, content_hash=k.content_hash, knot=k, kind="origin") for k in knots]
    )
    Edge.objects.bulk_create(
        [
            Edge(mind=m, source=knot, target=knots[(i + step) % size], weight_raw=step, weight_anchor=step,
                 layers=["embedding"], layer_count=1)
            for i, knot in enumerate(knots)
            for step in (1, 2, 3, 4)
        ]
    )  # fmt: skip


def _statements(m, *, limit: int) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        result = resonance_of(mind=m, q=Q, mode="glut", limit=limit)
    assert len(result["items"]) == limit
    return [q["sql"] for q in captured.captured_queries]


def test_the_statements_of_a_resonance_do_not_grow_with_the_net_or_the_results(owner, settings):
    from minds.services import mind_create

    # The log's own writes (a fixed few per span) are counted by the log's tests.
    settings.PIPELINE_LOG_ENABLED = False
    rng = np.random.default_rng(11)
    small, _ = mind_create(owner=owner.user, name="small")
    large, _ = mind_create(owner=owner.user, name="large")
    _net_of(small, 10, rng)
    _net_of(large, 1000, rng)
    counts = {(size, limit): len(_statements(m, limit=limit)) for size, m in ((10, small), (1000, large))
              for limit in (3, 10)}  # fmt: skip
    # goals; the plan (the count), anchors; three shells (glut); the knots' details = 7.
    assert counts == {(10, 3): 7, (10, 10): 7, (1000, 3): 7, (1000, 10): 7}


def test_a_large_minds_plan_and_common_lexemes_are_read_once_then_one_statement_brings_the_anchors(owner, settings):
    from minds.services import mind_create
    from synapses.resonance.anchors import net_facts_forget

    settings.PIPELINE_LOG_ENABLED = False
    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = 0  # every mind is large: the HNSW plan
    net_facts_forget()
    rng = np.random.default_rng(12)
    small, _ = mind_create(owner=owner.user, name="small")
    large, _ = mind_create(owner=owner.user, name="large")
    _net_of(small, 10, rng)
    _net_of(large, 1000, rng)
    counts = {(size, call): len(_statements(m, limit=10)) for size, m in ((10, small), (1000, large))
              for call in ("first", "second")}  # fmt: skip
    # First call: goals, the count, the common lexemes, the settings with the anchors (one
    # message), three shells, the details = 8; then the count and the lexemes are known: 6.
    assert counts == {(10, "first"): 8, (10, "second"): 6, (1000, "first"): 8, (1000, "second"): 6}


def test_after_the_facts_expire_a_large_mind_is_counted_again(mind, settings, monkeypatch):
    from synapses import constants

    settings.PIPELINE_LOG_ENABLED = False
    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = 0
    m = mind.mind
    knot_make(
        memory=memory_make(mind=m, content="the zebra grazes", salience=0.7),
        embedding=_far(1),
        presence=1.0,
        embedding_model=get_embedder().name,
        linked=True,
    )
    monkeypatch.setattr(constants, "NET_FACTS_SECONDS", 0.0)  # every fact expires at once
    resonance_of(mind=m, q=Q, mode="werkstatt", limit=3)
    with CaptureQueriesContext(connection) as captured:
        resonance_of(mind=m, q=Q, mode="werkstatt", limit=3)
    # The second call reads the count and the common lexemes again, as a first one does.
    texts = [q["sql"] for q in captured.captured_queries]
    assert any("SELECT count(*)" in sql for sql in texts)
    assert any("most_common_elems" in sql for sql in texts)


def test_the_hnsw_settings_hold_in_the_anchors_statement_of_a_large_mind(mind, settings, monkeypatch):
    # Bound 0: the HNSW plan. The anchors statement replaced by one that reads the settings it
    # runs under: the net's own (ef_search = the 20 rows wanted, at least 40; iterative scan).
    from memories.selectors.vector_plan import VectorPlan, under_hnsw_settings
    from synapses.resonance import anchors as resonance
    from synapses.resonance import sql

    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = 0
    knot_make(
        memory=memory_make(mind=mind.mind, content="the zebra grazes", salience=0.7),
        embedding=_far(1),
        presence=1.0,
        embedding_model=get_embedder().name,
        linked=True,
    )  # 1 knot > bound 0
    monkeypatch.setitem(
        sql.ANCHORS_SQL,
        (VectorPlan.HNSW, sql.text_list_of(VectorPlan.HNSW, excluding=False)),
        under_hnsw_settings(
            "SELECT current_setting('hnsw.iterative_scan'), current_setting('hnsw.ef_search'), %(mind_id)s"
        ),
    )
    resonance.anchor_rows(mind_id=mind.mind.pk, q=Q, vector=query_vector(Q), candidates=20)
    # The first call counted the mind (a statement that sets the settings too, and inside this
    # test's transaction they last); undone, so the second call, which knows the mind above the
    # bound and counts nothing, must bring them itself.
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('hnsw.iterative_scan', 'off', true), set_config('hnsw.ef_search', '1', true)")
    rows = resonance.anchor_rows(mind_id=mind.mind.pk, q=Q, vector=query_vector(Q), candidates=20)
    assert rows == [("relaxed_order", "40", mind.mind.pk)]


@pytest.mark.parametrize(
    ("limit", "relevance", "sizes"),
    [
        # relevance: per list max(limit, RELEVANCE_MIN_CANDIDATES 30), wanted twice that
        (10, True, (60, 30)),
        (50, True, (100, 50)),
        # seed: wanted max(limit, ANCHOR_COUNT 3) + 3, each list at least ANCHOR_MIN_CANDIDATES 20
        (10, False, (13, 20)),
        (1, False, (6, 20)),
    ],
)
def test_the_anchor_lists_are_sized_by_the_limit_and_the_ranking(limit, relevance, sizes):
    from synapses.resonance.anchors import anchor_list_sizes

    assert anchor_list_sizes(limit=limit, relevance=relevance) == sizes
    assert anchor_list_sizes(limit=limit, relevance=relevance).fetched == max(sizes)  # each list brings as many


@pytest.mark.parametrize(("ranking", "fetched"), [("relevance", 60), ("seed", 20)])
def test_a_resonance_of_ten_fetches_each_anchor_list_as_long_as_its_sizes_say(zoo, monkeypatch, ranking, fetched):
    # The benchmark measures the vector list's recall at these lengths (bench/latency.py): a
    # resonance that fetched other lengths would make that figure another search's.
    from synapses.resonance import anchors as resonance

    asked: list[int] = []
    real = resonance.anchor_and_pending_rows

    def recording(**kwargs):
        asked.append(kwargs["candidates"])
        return real(**kwargs)

    monkeypatch.setattr(resonance, "anchor_and_pending_rows", recording)
    m, _ = zoo
    resonance_of(mind=m, q=Q, limit=10, ranking=ranking)
    assert asked == [fetched]


# --- the text list of a large mind -------------------------------------------------------------


def _text_ids(rows) -> set[int]:
    return {knot_id for knot_id, found_by, *_ in rows if found_by == "text"}


def _vector_ids(rows) -> set[int]:
    return {knot_id for knot_id, found_by, *_ in rows if found_by == "vector"}


@pytest.fixture
def orchard(mind, settings, monkeypatch):
    """A mind on the HNSW plan (bound 0) whose text list reads at most 2 matches per term:

        A "a zebra at dusk"          far        the query's rare word (1 of 9 knots)
        B1…B5 "an apple …"           far        the common word: 6 of 9 knots hold it
        C "the apple tree"           cos 0.9    common word, and in the vector list
        D, E                         cos 0.8, 0.7, no query word
    The vector list (3 candidates) is C, D, E.
    """
    from synapses import constants

    settings.SYNAPSE_EXACT_SCAN_MAX_ROWS = 0
    monkeypatch.setattr(constants, "TEXT_TERM_MATCHES", 2)
    m = mind.mind
    q = "zebra apple"
    knots = {
        "A": knot_make(
            memory=memory_make(mind=m, content="a zebra at dusk", salience=0.7),
            embedding=at_cosine_to_query(q, 0.0, axis=1),
            presence=1.0,
            embedding_model=get_embedder().name,
            linked=True,
        )
    }
    for n in range(1, 6):
        content = f"an apple number {n}"
        knots[f"B{n}"] = knot_make(
            memory=memory_make(mind=m, content=content, salience=0.7),
            embedding=at_cosine_to_query(q, 0.0, axis=1 + n),
            presence=1.0,
            embedding_model=get_embedder().name,
            linked=True,
        )
    for name, content, cosine, axis in [("C", "the apple tree", 0.9, 7), ("D", "a blue door", 0.8, 8),
                                        ("E", "an old bicycle", 0.7, 9)]:  # fmt: skip
        knots[name] = knot_make(
            memory=memory_make(mind=m, content=content, salience=0.7),
            embedding=at_cosine_to_query(q, cosine, axis=axis),
            presence=1.0,
            embedding_model=get_embedder().name,
            linked=True,
        )
    return m, q, knots


def test_a_large_mind_reads_every_match_of_a_rare_term_and_a_common_term_only_in_the_vector_list(orchard):
    from synapses.resonance.anchors import anchor_rows

    m, q, k = orchard
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Knot._meta.db_table}")
    rows = anchor_rows(mind_id=m.pk, q=q, vector=query_vector(q), candidates=3)
    assert _vector_ids(rows) == {k["C"].pk, k["D"].pk, k["E"].pk}
    # "zebra": 1 of the mind's 9 knots by the statistics, within the bound: read (A). "apple": 6 of
    # 9, over it: its matches are not read, only the vector list's knots are tried (C); B1…B5 not.
    assert _text_ids(rows) == {k["A"].pk, k["C"].pk}


def test_a_large_mind_without_statistics_counts_no_term_as_common(orchard):
    from synapses.resonance.anchors import anchor_rows

    m, q, k = orchard
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stats WHERE tablename = %s", [Knot._meta.db_table])
        if cursor.fetchone()[0]:
            pytest.skip("the test database's knots table has statistics already")
    rows = anchor_rows(mind_id=m.pk, q=q, vector=query_vector(q), candidates=3)
    # Every term is read (up to 2 matches per term, in one scan), so far apples come in too, as
    # the 3 best by ts_rank_cd of A, the apples read and C.
    assert k["A"].pk in _text_ids(rows)
    assert _text_ids(rows) & {k[f"B{n}"].pk for n in range(1, 6)}


def test_the_common_lexemes_reach_postgresql_whole_whatever_characters_they_hold(db):
    from synapses.resonance.anchors import text_array

    lexemes = ["apple", 'say"hi', "back\\slash", "it's", "a,b", "{brace}", " spaced ", "NULL", ""]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[], %s::text[]", [text_array(lexemes), text_array([])])
        assert cursor.fetchone() == (lexemes, [])


def test_a_large_mind_leaves_out_the_matches_of_an_excluded_word_and_still_reads_no_common_term(orchard):
    from synapses.resonance.anchors import anchor_rows

    m, q, k = orchard
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Knot._meta.db_table}")
    # "zebra" is rare (A), "apple" common (read only in the vector list: C); "-tree" leaves C out
    # and "-dusk" leaves A out. Ranking every match instead would bring the far apples B1…B5.
    tree = anchor_rows(mind_id=m.pk, q=f"{q} -tree", vector=query_vector(q), candidates=3)
    dusk = anchor_rows(mind_id=m.pk, q=f"{q} -dusk", vector=query_vector(q), candidates=3)
    assert (_text_ids(tree), _text_ids(dusk)) == ({k["A"].pk}, {k["C"].pk})
    assert _vector_ids(tree) == {k["C"].pk, k["D"].pk, k["E"].pk}
