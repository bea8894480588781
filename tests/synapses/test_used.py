"""POST /synapses/used: only what the answer really used is reinforced, with its edges recomputed.

The nearness cases are the original's test vectors (reference figures of the usage threshold):
knots are placed at a chosen cosine to the answer's vector, so every expected value is the
cosine we put there, not one the code computed.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from memories.embedders import get_embedder
from memories.models import EMBEDDING_DIMENSIONS
from pipelinelog.models import LogEntry
from synapses.models import Edge, Knot, KnotPresence
from synapses.upkeep import reinforcement
from synapses.upkeep.reinforcement import knots_used_reinforce
from tests.factories import knot_make
from tests.vectors import at_cosine, axis, damp_reference

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
ANSWER = "the answer the agent wrote"


class _AnswerOnAxisZero:
    """An embedder whose every vector is axis 0: a knot at_cosine(c) is exactly c near the answer."""

    name = "test"
    dimensions = EMBEDDING_DIMENSIONS
    search_min_similarity = 0.0

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.array([axis(0)] * len(texts), dtype=np.float32)


@pytest.fixture
def embedder(monkeypatch):
    fake = _AnswerOnAxisZero()
    monkeypatch.setattr(reinforcement, "get_embedder", lambda: fake)
    return fake


def knots_at(mind, *cosines: float, **fields) -> list[Knot]:
    return [knot_make(mind=mind, weight_anchor=damp_reference(0.5), embedding=at_cosine(c), **fields) for c in cosines]


def report_of(mind, knots, answer=ANSWER, **kwargs):
    return knots_used_reinforce(mind_id=mind.pk, answer=answer, knot_ids=[k.pk for k in knots], now=NOW, **kwargs)


# --- which knots an answer used -------------------------------------------------------------------


def test_two_knots_over_the_threshold_are_both_used_nearest_first(the_mind, embedder):
    far, near = knots_at(the_mind, 0.6100, 0.7916)
    report = report_of(the_mind, [far, near], threshold=0.55, cap=3)
    assert [(hit.knot_id, hit.nearness) for hit in report.hits] == [(near.pk, 0.7916), (far.pk, 0.61)]
    assert (report.outcome, report.checked, report.used, report.reinforced) == ("computed", 2, 2, 2)
    assert report.closest_rejected is None


def test_knots_below_the_threshold_are_not_used_and_the_closest_rejected_is_named(the_mind, embedder):
    a, b = knots_at(the_mind, 0.5305, 0.4377)
    report = report_of(the_mind, [a, b], threshold=0.55, cap=3)
    assert (report.used, report.hits) == (0, [])
    assert (report.closest_rejected.knot_id, report.closest_rejected.nearness) == (a.pk, 0.5305)
    assert Knot.objects.get(pk=a.pk).activation_count == 1


def test_at_most_three_of_six_hits_are_used_and_every_nearness_is_reported(the_mind, embedder):
    knots = knots_at(the_mind, 0.85, 0.86, 0.87, 0.88, 0.89, 0.90)
    report = report_of(the_mind, knots, threshold=0.55, cap=3)
    assert [hit.nearness for hit in report.hits] == [0.90, 0.89, 0.88]
    assert [item.nearness for item in report.nearness] == [0.90, 0.89, 0.88, 0.87, 0.86, 0.85]
    # The strongest hit dropped by the cap is the closest rejected.
    assert report.closest_rejected.nearness == 0.87


def test_a_near_miss_is_the_closest_rejected_next_to_a_far_one(the_mind, embedder):
    report = report_of(the_mind, knots_at(the_mind, 0.5412, 0.12), threshold=0.55, cap=3)
    assert (report.used, report.closest_rejected.nearness) == (0, 0.5412)


def test_one_hit_and_a_rejected_knot_just_under_the_threshold(the_mind, embedder):
    hit, miss = knots_at(the_mind, 0.90, 0.54)
    report = report_of(the_mind, [hit, miss], threshold=0.55, cap=3)
    assert [h.knot_id for h in report.hits] == [hit.pk]
    assert report.closest_rejected.nearness == 0.54


def test_a_nearness_exactly_at_the_threshold_is_used(the_mind, embedder):
    (knot,) = knots_at(the_mind, 0.625)  # 0.625 is exact in binary: no rounding on either side
    assert report_of(the_mind, [knot], threshold=0.625, cap=3).used == 1


def test_only_the_first_1200_characters_of_the_answer_are_embedded(the_mind, embedder):
    report_of(the_mind, knots_at(the_mind, 0.9), answer="x" * 1200 + "IGNORED")
    assert embedder.texts == ["x" * 1200]


# --- what reinforcement does ----------------------------------------------------------------------


def test_a_reinforced_knot_gains_the_boost_a_new_anchor_a_fresh_presence_and_one_activation(the_mind, embedder):
    (knot,) = knots_at(the_mind, 0.9)
    report_of(the_mind, [knot], threshold=0.55, cap=3)
    knot.refresh_from_db()
    presence = KnotPresence.objects.get(knot=knot)
    # weight_raw 0.5 + 0.1; damp(0.6) = 10 · sin(0.06 · π/2)^0.5 = 3.0677.
    assert knot.weight_raw == pytest.approx(0.6)
    assert knot.weight_anchor == pytest.approx(3.0677, abs=1e-4)
    assert (presence.presence_base, presence.weight_present) == (knot.weight_anchor, knot.weight_anchor)
    assert (knot.activation_count, presence.reinforced_at, presence.decayed_at) == (2, NOW, NOW)


def test_the_reinforced_knot_s_edges_are_recomputed_to_the_formula_s_values(the_mind, embedder):
    used = knot_make(mind=the_mind, weight_anchor=damp_reference(0.5), embedding=at_cosine(0.9), entities=[7])
    other = knot_make(mind=the_mind, weight_anchor=5.0, embedding=axis(5), entities=[7])
    for source, target in ((used, other), (other, used)):
        Edge.objects.create(
            mind=the_mind, source=source, target=target, weight_raw=1.0, weight_anchor=3.0, layers=["entity"],
            shared_entities=[7], layer_count=1,
        )  # fmt: skip

    report = report_of(the_mind, [used, other], threshold=0.55, cap=3)

    # Entity only (factor 1, depth 1, no bonus): weak = 3.0677 (the new anchor), strong = 5.0, gap 1.9323.
    # up = 3.0677 + 1.9323 · 0.444 = 3.9256 (used → other); down = 5.0 − 1.9323 · 0.297 = 4.4261.
    assert Edge.objects.get(source=used, target=other).weight_raw == pytest.approx(3.9256, abs=1e-3)
    assert Edge.objects.get(source=other, target=used).weight_raw == pytest.approx(4.4261, abs=1e-3)
    assert report.hits[0].edges_recomputed == 2
    # The other knot (cosine 0 to the answer) was offered, not used.
    assert Knot.objects.get(pk=other.pk).activation_count == 1


def test_an_inactive_knot_is_no_candidate_and_stays_inactive(the_mind, embedder):
    (faded,) = knots_at(the_mind, 0.95, is_active=False)
    report = report_of(the_mind, [faded])
    assert (report.outcome, report.checked, report.inactive) == ("no_candidates", 0, [faded.pk])
    assert KnotPresence.objects.get(knot=faded).is_active is False


def test_another_mind_s_knot_is_listed_as_not_found_and_left_alone(the_mind, other_mind, embedder):
    (theirs,) = knots_at(other_mind.mind, 0.95)
    (mine,) = knots_at(the_mind, 0.95)
    report = report_of(the_mind, [theirs, mine])
    assert (report.not_found, [hit.knot_id for hit in report.hits]) == ([theirs.pk], [mine.pk])
    assert Knot.objects.get(pk=theirs.pk).activation_count == 1


def test_an_empty_answer_is_a_report_without_embedding_anything(the_mind, embedder):
    report = report_of(the_mind, knots_at(the_mind, 0.9), answer="   \n")
    assert (report.outcome, report.used, embedder.texts) == ("empty_answer", 0, [])


def test_no_offered_knots_is_a_report_without_embedding_anything(the_mind, embedder):
    report = report_of(the_mind, [])
    assert (report.outcome, report.offered, embedder.texts) == ("no_candidates", 0, [])


def test_the_reinforcement_is_one_span_of_the_pipeline_log(the_mind, embedder):
    (knot,) = knots_at(the_mind, 0.9)
    report_of(the_mind, [knot])
    rows = LogEntry.objects.filter(node="synapses.reinforcement").order_by("id")
    assert [row.kind for row in rows] == ["span_start", "input", "db_read", "calculation", "db_write", "output",
                                          "span_end"]  # fmt: skip
    assert len({row.span_id for row in rows}) == 1
    assert rows.get(kind="output").content["hits"][0][0] == knot.pk


# --- the endpoint ---------------------------------------------------------------------------------


def test_the_endpoint_reinforces_the_knot_whose_content_the_answer_repeats(mind):
    vector = get_embedder().embed(["Anna loves dark chocolate from Zurich"])[0]
    knot = knot_make(mind=mind.mind, weight_anchor=damp_reference(0.5), embedding=vector.tolist())
    unrelated = knot_make(
        mind=mind.mind, weight_anchor=damp_reference(0.5), embedding=get_embedder().embed(["tax forms"])[0]
    )
    body = {"answer": "Anna loves dark chocolate from Zurich", "knot_ids": [knot.pk, unrelated.pk, 10**12]}

    response = mind.agent.post("/synapses/used", body, format="json")

    assert response.status_code == 200, response.content
    report = response.json()
    assert [hit["knot_id"] for hit in report["hits"]] == [knot.pk]
    assert report["hits"][0]["nearness"] == pytest.approx(1.0, abs=1e-4)
    assert (report["offered"], report["checked"], report["not_found"]) == (3, 2, [10**12])
    assert (report["threshold"], report["cap"]) == (0.55, 3)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"knot_ids": [1]}, "answer"),
        ({"answer": "a"}, "knot_ids"),
        ({"answer": 5, "knot_ids": [1]}, "answer"),
        ({"answer": "a", "knot_ids": ["1"]}, "knot_ids.0"),
        ({"answer": "a", "knot_ids": [3, 0]}, "knot_ids.1"),
        ({"answer": "a", "knot_ids": [2**63]}, "knot_ids.0"),
        ({"answer": "a", "knot_ids": list(range(1, 102))}, "knot_ids"),
        ({"answer": "a", "knot_ids": [1], "mood": "x"}, "mood"),
    ],
)
def test_a_bad_usage_report_answers_400_naming_the_field(mind, body, field):
    response = mind.agent.post("/synapses/used", body, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_a_reader_may_not_report_usage(reader, mind):
    response = reader.client.post(f"/synapses/used?mind={mind.mind.pk}", {"answer": "a", "knot_ids": []}, format="json")
    assert response.status_code == 403


def test_an_outsider_naming_the_mind_gets_404_even_with_a_bad_body(outsider, mind):
    response = outsider.client.post(f"/synapses/used?mind={mind.mind.pk}", {"answer": 5}, format="json")
    assert response.status_code == 404


def test_every_offered_knot_is_checked_even_when_the_planner_walks_the_vector_index(mind):
    # Ordering the offered knots by distance in SQL let PostgreSQL answer from the HNSW index,
    # which yields only its ef_search nearest knots of the whole table: offered knots farther
    # away went missing as "not found". The plan is forced here to the index the full suite hit.
    from django.db import connection, transaction

    answer = "Anna loves dark chocolate from Zurich"
    embed = get_embedder().embed
    near = knot_make(mind=mind.mind, weight_anchor=damp_reference(0.5), embedding=embed([answer])[0].tolist())
    nearer_than_far = [
        knot_make(mind=mind.mind, weight_anchor=damp_reference(0.5), embedding=embed([f"{answer} and {n}"])[0].tolist())
        for n in range(40)
    ]
    far = knot_make(mind=mind.mind, weight_anchor=damp_reference(0.5), embedding=embed(["tax forms"])[0].tolist())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SET LOCAL hnsw.ef_search = 10")
        report = knots_used_reinforce(mind_id=mind.mind.pk, answer=answer, knot_ids=[near.pk, far.pk])
    assert len(nearer_than_far) == 40  # more knots nearer the answer than `far` than ef_search keeps
    assert (report.offered, report.checked, report.not_found) == (2, 2, [])
