"""GET /memory/contradictions: recent memories on the same subject that say different things."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from memories.api.overview_serializers import ContradictionsQuerySerializer
from memories.embedders import get_embedder
from memories.keys import derived_key, is_derived_key, key_stem
from memories.selectors import overview
from memories.selectors.overview import CONTRADICTION_MIN_SIMILARITY
from tests.memories.insights_support import agent_caller, remember

pytestmark = pytest.mark.django_db


def cosine(a: str, b: str) -> float:
    first, second = get_embedder().embed([a, b])
    return round(float(np.dot(first, second)), 4)


@pytest.mark.parametrize(
    ("key", "category", "stem"),
    [
        ("user_city", "fact", "user_city"),
        ("user_city_2", "fact", "user_city"),
        ("status-v3", "project", "status"),
        ("api.v1.2", "fact", "api"),
        ("editor_version_4", "preference", "editor"),
        ("release:2026", "project", "release"),
        ("User_City_2", "fact", "user_city"),
        ("covid19", "fact", "covid19"),
        ("v2", "fact", "v2"),
        ("fact_3a7bd3e2360a", "fact", None),  # derived from content: names no subject
        ("FACT_3A7BD3E2360A", "fact", None),
        ("fact_3a7bd3e2360a", "note", "fact_3a7bd3e2360a"),
    ],
)
def test_key_stems_drop_one_trailing_version_suffix(key, category, stem):
    assert key_stem(key, category) == stem


@pytest.mark.parametrize(
    ("key", "category", "derived"),
    [
        (derived_key("fact", "Office is in Berlin"), "fact", True),
        (derived_key("fact", "Office is in Berlin"), "note", False),
        ("fact_3a7bd3e2360", "fact", False),  # 11 hex digits
        ("fact_3a7bd3e2360ab", "fact", False),  # 13
        ("fact_3a7bd3e2360g", "fact", False),  # not hex
        ("fact_3A7BD3E2360A", "fact", False),  # the store writes lower-case hex
        ("fact3a7bd3e2360a", "fact", False),
    ],
)
def test_a_derived_key_is_the_category_and_twelve_hex_digits(key, category, derived):
    assert is_derived_key(key, category) is derived


def test_the_example_pairs_are_similar_enough_with_the_default_embedder():
    # The tests below rely on these pairs crossing the threshold and the unrelated one not.
    assert cosine("The user lives in Berlin", "The user lives in Munich now") >= CONTRADICTION_MIN_SIMILARITY
    assert cosine("Office is in Berlin", "Office is in Hamburg") >= CONTRADICTION_MIN_SIMILARITY
    assert cosine("Uses vim", "Prefers VS Code with the Rust plugin") < CONTRADICTION_MIN_SIMILARITY


@pytest.fixture
def recent(mind):
    agent = agent_caller(mind.mind)
    made = {}

    def add(name, **fields):
        made[name] = remember(mind.mind, agent, **fields)

    add("berlin", category="fact", key="user_city", content="The user lives in Berlin")
    add("munich", category="fact", key="user_city_2", content="The user lives in Munich now")
    add("office", category="fact", key="office", content="Office is in Berlin", entities=["Acme"])
    add("office_move", category="note", key="office_move", content="Office is in Hamburg", entities=["ACME"])
    # Same stem, different subject matter: not similar enough.
    add("vim", category="preference", key="editor_v1", content="Uses vim")
    add("vscode", category="preference", key="editor_v2", content="Prefers VS Code with the Rust plugin")
    # Same stem, the same words in other case and spacing: not a contradiction.
    add("done", category="project", key="status_1", content="Deploy done")
    add("done_again", category="project", key="status_2", content="deploy   DONE")
    # Similar, but neither a key stem (keyless) nor an entity in common.
    add("keyless_a", category="note", content="The cat is called Mia")
    add("keyless_b", category="note", content="The cat is called Momo")
    return mind, made


def pairs_of(body):
    return {(row["newer"]["key"], row["older"]["key"]): row for row in body["contradictions"]}


def test_same_key_stem_or_shared_entity_with_different_similar_content_is_reported(recent):
    mind, made = recent
    body = mind.agent.get("/memory/contradictions").json()
    pairs = pairs_of(body)
    assert set(pairs) == {("user_city_2", "user_city"), ("office_move", "office")}
    city = pairs[("user_city_2", "user_city")]
    assert (city["reasons"], city["key_stem"], city["shared_entities"]) == (["key_stem"], "user_city", [])
    office = pairs[("office_move", "office")]
    assert (office["reasons"], office["key_stem"], office["shared_entities"]) == (["entities"], None, ["ACME"])
    assert office["newer"]["id"] == made["office_move"].pk
    assert (body["within"], body["candidates"], body["truncated"]) == (86400, 10, False)


def test_the_similarity_is_the_cosine_of_the_stored_embeddings(recent):
    mind, made = recent
    # Planted vectors with a known cosine of 0.8: 0.8 · (1, 0, …) + 0.6 · (0, 1, …).
    dimensions = get_embedder().dimensions
    planted = {"berlin": np.eye(dimensions)[0], "munich": 0.8 * np.eye(dimensions)[0] + 0.6 * np.eye(dimensions)[1]}
    for name, vector in planted.items():
        type(made[name]).objects.filter(pk=made[name].pk).update(embedding=vector.tolist())
    pairs = pairs_of(mind.agent.get("/memory/contradictions").json())
    assert pairs[("user_city_2", "user_city")]["similarity"] == 0.8


def test_pairs_come_most_similar_first(recent):
    mind, _ = recent
    similarities = [row["similarity"] for row in mind.agent.get("/memory/contradictions").json()["contradictions"]]
    assert similarities == sorted(similarities, reverse=True)


def test_memories_written_before_the_window_are_not_compared(recent):
    mind, made = recent
    old = remember(mind.mind, agent_caller(mind.mind), category="fact", key="user_city_3",
                   content="The user lives in Paris")  # fmt: skip
    type(old).objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(days=3))
    assert ("user_city_3", "user_city") not in pairs_of(mind.agent.get("/memory/contradictions").json())
    wide = pairs_of(mind.agent.get("/memory/contradictions", {"within": "4d"}).json())
    assert ("user_city", "user_city_3") in wide
    assert ("user_city_2", "user_city_3") in wide


def test_the_window_is_capped_and_says_so(recent, monkeypatch):
    mind, _ = recent
    monkeypatch.setattr(overview, "CONTRADICTION_MAX_CANDIDATES", 3)
    body = mind.agent.get("/memory/contradictions").json()
    assert (body["candidates"], body["truncated"]) == (3, True)


def test_another_minds_memories_are_never_paired(recent, other_mind):
    remember(other_mind.mind, agent_caller(other_mind.mind), category="fact", key="user_city_9",
             content="The user lives in Berlin!")  # fmt: skip
    assert other_mind.agent.get("/memory/contradictions").json()["contradictions"] == []


def test_an_empty_mind_has_no_contradictions(mind):
    body = mind.agent.get("/memory/contradictions").json()
    assert (body["candidates"], body["contradictions"]) == (0, [])


def test_the_window_keeps_fractions_of_a_second_and_answers_in_whole_seconds(mind):
    query = ContradictionsQuerySerializer(data={"within": "0.5s"})
    assert query.is_valid()
    assert query.validated_data["within"] == timedelta(milliseconds=500)
    assert mind.agent.get("/memory/contradictions", {"within": "1.5h"}).json()["within"] == 5400


def test_a_fraction_of_a_second_decides_whether_a_memory_is_in_the_window(recent):
    mind, made = recent
    now = timezone.now()
    type(made["berlin"]).objects.filter(pk=made["berlin"].pk).update(updated_at=now - timedelta(seconds=10.4))
    narrow = overview.memories_contradicting(mind=mind.mind, within=timedelta(seconds=10.3), now=now)
    wide = overview.memories_contradicting(mind=mind.mind, within=timedelta(seconds=10.5), now=now)
    assert (narrow["candidates"], wide["candidates"]) == (9, 10)


def test_a_window_reaching_before_the_year_1_holds_everything(recent):
    mind, made = recent
    type(made["berlin"]).objects.filter(pk=made["berlin"].pk).update(updated_at=timezone.now() - timedelta(days=3650))
    response = mind.agent.get("/memory/contradictions", {"within": "200000w"})
    assert response.status_code == 200
    assert (response.json()["within"], response.json()["candidates"]) == (200000 * 604800, 10)


@pytest.mark.parametrize("within", ["0", "-5", "soon", "5y"])
def test_a_bad_window_answers_400_naming_within(mind, within):
    response = mind.agent.get("/memory/contradictions", {"within": within})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["within"]
