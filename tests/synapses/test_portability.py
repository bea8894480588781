"""The net in the export file and back: knots with their presence and memory links, edges,
entities and goals round-trip into a fresh mind with new ids, and a second import changes nothing."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memories.models import EMBEDDING_DIMENSIONS, Memory
from minds.services import mind_create
from synapses.models import Edge, Entity, Goal, Knot, KnotPresence, LinkKind, MemoryKnot
from tests.conftest import client_with_token
from tests.factories import knot_make
from tests.memories.insights_support import agent_caller, remember

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)


def unit_vector(seed: int) -> list[float]:
    vector = np.random.default_rng(seed).standard_normal(EMBEDDING_DIMENSIONS).astype(np.float32)
    return list(vector / np.linalg.norm(vector))


def vector_or_none(vector) -> tuple | None:
    return None if vector is None else tuple(np.asarray(vector).tolist())


def read_json(response) -> dict:
    assert response.status_code == 200, response.content
    return json.loads(b"".join(response.streaming_content))


@pytest.fixture
def netted(mind):
    """Three memories with knots of every kind of field, a duplicate link, an inactive knot, two
    edge pairs sharing an entity, three entities and two goals."""
    agent = agent_caller(mind.mind)
    anna, berlin, _ = (
        Entity.objects.create(mind=mind.mind, name=name, aliases=aliases, created_at=WHEN)
        for name, aliases in (("Anna", ["Ann"]), ("Berlin", []), ("Unused", ["U"]))
    )
    a = remember(mind.mind, agent, category="fact", key="anna_city", content="Anna lives in Berlin", tags=["home"])
    b = remember(mind.mind, agent, category="fact", key="anna_job", content="Anna teaches", tags=["work"])
    c = remember(mind.mind, agent, category="fact", key="anna_twin", content="Anna lives in Berlin!")
    knot_a, knot_b = knot_make(memory=a, linked=True), knot_make(memory=b, is_active=False, linked=True)
    Knot.objects.filter(pk=knot_a.pk).update(
        themes=["home"], entities=[anna.pk, berlin.pk], event_time=WHEN, event_precision="day", emotion="joy",
        arousal=0.7, attributes={"rooms": 3}, embedding=unit_vector(1), weight_raw=2.5, activation_count=4,
    )  # fmt: skip
    Knot.objects.filter(pk=knot_b.pk).update(entities=[anna.pk], embedding=unit_vector(2), themes=["work"])
    KnotPresence.objects.filter(knot=knot_a).update(presence_base=1.25, weight_present=1.125, reinforced_at=WHEN)
    MemoryKnot.objects.create(
        mind=mind.mind, memory=c, content_hash=c.content_hash, knot=knot_a, kind=LinkKind.DUPLICATE
    )
    for source, target, weight in ((knot_a, knot_b, 1.5), (knot_b, knot_a, 1.25)):
        Edge.objects.create(
            mind=mind.mind, source=source, target=target, weight_raw=weight, weight_anchor=weight / 2,
            layers=["entity", "embedding"], shared_entities=[anna.pk], shared_themes=[], cosine_initial=0.61,
            time_distance=None, layer_count=2,
        )  # fmt: skip
    Goal.objects.create(mind=mind.mind, statement="Visit Anna", motivation=0.75, embedding=unit_vector(3),
                        embedding_model="test", created_at=WHEN, updated_at=WHEN)  # fmt: skip
    Goal.objects.create(mind=mind.mind, statement="Old aim", motivation=0.1, active=False, created_at=WHEN)
    return mind


def net_snapshot(mind) -> dict:
    """Everything of the mind's net, every id replaced by what it names (memory keys, entity names)."""
    keys = dict(Memory.objects.filter(mind=mind).values_list("pk", "key"))
    names = dict(Entity.objects.filter(mind=mind).values_list("pk", "name"))
    knots = {knot.pk: knot for knot in Knot.objects.filter(mind=mind).select_related("presence")}
    promoted = Memory.objects.filter(mind=mind, pending_row__isnull=True)

    def knot_of(pk):
        return keys[knots[pk].memory_id], knots[pk].content_hash

    knot_rows = set()
    for knot in knots.values():
        presence = knot.presence
        knot_rows.add(
            (
                knot_of(knot.pk), knot.content, knot.category, knot.observer, knot.emotion, knot.arousal,
                json.dumps(knot.attributes, sort_keys=True), tuple(np.asarray(knot.embedding).tolist()),
                knot.embedding_model, tuple(knot.themes), tuple(sorted(names[pk] for pk in knot.entities)),
                knot.event_time, knot.event_precision, knot.weight_raw, knot.weight_anchor, knot.activation_count,
                knot.created_at, knot.source_created_at, presence.presence_base, presence.weight_present,
                presence.reinforced_at, presence.decayed_at, presence.is_active,
            )
        )  # fmt: skip
    return {
        "knots": knot_rows,
        "links": {
            (keys[link.memory_id], link.content_hash, knot_of(link.knot_id), link.kind, link.created_at)
            for link in MemoryKnot.objects.filter(mind=mind)
        },
        "edges": {
            (
                knot_of(edge.source_id),
                knot_of(edge.target_id),
                edge.weight_raw,
                edge.weight_anchor,
                tuple(edge.layers),
                tuple(names[pk] for pk in edge.shared_entities),
                tuple(edge.shared_themes),
                edge.time_distance,
                edge.cosine_initial,
                edge.layer_count,
                edge.created_at,
            )
            for edge in Edge.objects.filter(mind=mind)
        },  # fmt: skip
        "entities": {
            (entity.name, tuple(entity.aliases), entity.created_at) for entity in Entity.objects.filter(mind=mind)
        },
        "goals": {
            (
                g.statement,
                g.motivation,
                g.active,
                vector_or_none(g.embedding),
                g.embedding_model,
                g.created_at,
                g.updated_at,
            )
            for g in Goal.objects.filter(mind=mind)
        },  # fmt: skip
        "promoted": {keys[pk] for pk in promoted.values_list("pk", flat=True)},
    }


def test_the_export_holds_the_net_with_presence_and_links(netted):
    body = read_json(netted.agent.get("/mind/export"))
    assert [len(body[name]) for name in ("knots", "edges", "entities", "goals")] == [2, 2, 3, 2]
    knot = next(row for row in body["knots"] if row["weight_raw"] == 2.5)
    memory_ids = {memory["key"]: memory["id"] for memory in body["memories"]}
    assert knot["memory_id"] == memory_ids["anna_city"]
    assert knot["presence"] == {
        "presence_base": 1.25, "weight_present": 1.125, "reinforced_at": "2026-03-04T05:06:07.123456Z",
        "decayed_at": knot["presence"]["decayed_at"], "is_active": True,
    }  # fmt: skip
    assert sorted((link["memory_id"], link["kind"]) for link in knot["links"]) == sorted(
        [(memory_ids["anna_city"], "origin"), (memory_ids["anna_twin"], "duplicate")]
    )
    entity_names = {entity["id"]: entity["name"] for entity in body["entities"]}
    assert sorted(entity_names[pk] for pk in knot["entities"]) == ["Anna", "Berlin"]
    assert len(knot["embedding"]) == EMBEDDING_DIMENSIONS


def test_an_export_imported_into_a_fresh_mind_holds_the_same_net_and_a_second_import_changes_nothing(netted, owner):
    document = read_json(netted.agent.get("/mind/export"))
    fresh, _ = mind_create(owner=owner.user, name="Copy")
    response = owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["created"] == 3
    counts = {name: body[name] for name in ("knots", "links", "edges", "entities", "goals")}
    assert counts == {
        "knots": {"created": 2, "skipped": 0},
        "links": {"created": 3, "skipped": 0},
        "edges": {"created": 2, "skipped": 0},
        "entities": {"created": 3, "skipped": 0},
        "goals": {"created": 2, "skipped": 0},
    }
    original, copy = net_snapshot(netted.mind), net_snapshot(fresh)
    assert [len(original[name]) for name in ("knots", "links", "edges", "entities", "goals")] == [2, 3, 2, 3, 2]
    assert copy == original
    assert copy["promoted"] == {"anna_city", "anna_job", "anna_twin"}
    # New ids: nothing of the copy is a row of the original.
    assert not set(Knot.objects.filter(mind=fresh).values_list("pk", flat=True)) & set(
        Knot.objects.filter(mind=netted.mind).values_list("pk", flat=True)
    )

    again = owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json").json()
    assert {name: again[name]["created"] for name in counts} == dict.fromkeys(counts, 0)
    assert again["knots"]["skipped"] == 2 and again["edges"]["skipped"] == 2
    assert net_snapshot(fresh) == original
    assert Knot.objects.filter(mind=fresh).count() == 2 and MemoryKnot.objects.filter(mind=fresh).count() == 3


def test_importing_a_minds_own_export_creates_nothing_of_the_net(netted):
    document = read_json(netted.agent.get("/mind/export"))
    before = net_snapshot(netted.mind)
    body = netted.agent.post("/mind/import", document, format="json").json()
    assert (body["knots"]["created"], body["entities"]["created"], body["goals"]["created"]) == (0, 0, 0)
    assert net_snapshot(netted.mind) == before


def test_a_knot_naming_a_memory_the_file_does_not_hold_is_refused_and_nothing_is_written(netted, owner):
    document = read_json(netted.agent.get("/mind/export"))
    document["knots"][1]["memory_id"] = "mem_nobody"
    document["edges"][0]["layers"] = ["gravity"]
    fresh, _ = mind_create(owner=owner.user, name="Copy")
    response = owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert set(fields) == {"knots.1.memory_id", "edges.0.layers"}
    assert (Memory.objects.filter(mind=fresh).count(), Knot.objects.filter(mind=fresh).count()) == (0, 0)


@pytest.mark.parametrize(
    ("section", "change", "field"),
    [
        ("knots", {"embedding": [0.5] * 3}, "knots.0.embedding"),
        ("knots", {"observer": "robot"}, "knots.0.observer"),
        ("knots", {"created_at": "2026-03-04T05:06:07"}, "knots.0.created_at"),
        ("knots", {"colour": "red"}, "knots.0.colour"),
        ("edges", {"source": 999_999}, "edges.0.source"),
        ("edges", {"shared_entities": [424_242]}, "edges.0.shared_entities"),
        ("goals", {"motivation": 1.5}, "goals.0.motivation"),
        ("entities", {"name": ""}, "entities.0.name"),
        ("entities", {"aliases": [1]}, "entities.0.aliases"),
        ("knots", {"themes": "home"}, "knots.0.themes"),
        ("knots", {"content": {"text": "x"}}, "knots.0.content"),
        ("knots", {"source_created_at": 5}, "knots.0.source_created_at"),
        ("knots", {"id": [1]}, "knots.0.id"),
        ("knots", {"presence": None}, "knots.0.presence"),
        ("knots", {"links": [{"memory_id": "mem_x"}]}, "knots.0.links.0.content_hash"),
        ("edges", {"source": [1]}, "edges.0.source"),
        ("edges", {"weight_raw": "heavy"}, "edges.0.weight_raw"),
        ("edges", {"layers": [{"entity": 1}]}, "edges.0.layers"),
        ("knots", {"links": "origin"}, "knots.0.links"),
        ("knots", {"magnets": "Anna"}, "knots.0.magnets"),
        ("knots", {"magnets": {"entities": [{"id": 10**15, "name": "Anna", "rule": "given"}]}}, "knots.0.magnets"),
        ("knots", {"magnets": {"entities": [{"id": 1, "name": "Anna"}]}}, "knots.0.magnets"),
    ],
)
def test_a_wrong_row_of_the_net_is_named_in_the_error(netted, owner, section, change, field):
    document = read_json(netted.agent.get("/mind/export"))
    document[section][0].update(change)
    fresh, _ = mind_create(owner=owner.user, name="Copy")
    response = owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"]
    assert Entity.objects.filter(mind=fresh).count() == 0


def test_a_net_section_that_is_not_a_list_is_refused(mind):
    document = {"format_version": 1, "memories": [], "knots": {"id": 1}}
    response = mind.agent.post("/mind/import", document, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["knots"]


def test_an_entity_the_mind_already_has_is_reused_whatever_its_case(netted, owner):
    document = read_json(netted.agent.get("/mind/export"))
    fresh, _ = mind_create(owner=owner.user, name="Copy")
    Entity.objects.create(mind=fresh, name="anna")
    body = owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json").json()
    assert body["entities"] == {"created": 2, "skipped": 1}
    anna = Entity.objects.get(mind=fresh, name="anna")
    assert all(anna.pk in knot.entities for knot in Knot.objects.filter(mind=fresh))


def test_a_knots_record_of_its_magnets_travels_with_it_and_names_the_copys_entities(netted, owner):
    knot = Knot.objects.filter(mind=netted.mind).exclude(entities=[]).order_by("pk").first()
    names = dict(Entity.objects.filter(pk__in=knot.entities).values_list("pk", "name"))
    found = [{"id": pk, "name": name, "rule": "mid-sentence"} for pk, name in names.items()]
    record = {"language": "en", "entities": found}
    Knot.objects.filter(pk=knot.pk).update(magnets=record)
    document = read_json(netted.agent.get("/mind/export"))
    assert next(row for row in document["knots"] if row["id"] == knot.pk)["magnets"] == record
    fresh, _ = mind_create(owner=owner.user, name="Copy")
    assert owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json").status_code == 200
    copy = Knot.objects.get(mind=fresh, content_hash=knot.content_hash)
    copied = {item["id"]: item["name"] for item in copy.magnets["entities"]}
    assert dict(Entity.objects.filter(mind=fresh, pk__in=copied).values_list("pk", "name")) == copied
    assert sorted(copied.values()) == sorted(names.values()) and set(copied) == set(copy.entities)


def test_vectors_survive_the_file_bit_for_bit(netted, owner):
    document = read_json(netted.agent.get("/mind/export"))
    fresh, _ = mind_create(owner=owner.user, name="Copy")
    owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json")
    key = hashlib.sha256(b"Anna lives in Berlin").hexdigest()
    original = np.asarray(Knot.objects.get(mind=netted.mind, content_hash=key).embedding, dtype=np.float32)
    copy = np.asarray(Knot.objects.get(mind=fresh, content_hash=key).embedding, dtype=np.float32)
    assert original.tobytes() == copy.tobytes()


def test_two_entities_of_one_name_in_a_file_are_refused(netted, owner):
    document = read_json(netted.agent.get("/mind/export"))
    document["entities"][1]["name"] = document["entities"][0]["name"].upper()
    fresh, _ = mind_create(owner=owner.user, name="Copy")
    response = owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"]["entities.1.name"] == ["entities.0 has the same name."]


@pytest.mark.parametrize("knots", [1, 2])
def test_the_nets_import_costs_the_same_queries_whatever_its_size(mind, owner, knots, django_assert_num_queries):
    """Set-based: one statement per kind of row, whether the file holds one knot or two."""
    agent = agent_caller(mind.mind)
    for n in range(knots):
        knot_make(memory=remember(mind.mind, agent, category="fact", key=f"q{n}", content=f"query {n}"), linked=True)
    document = read_json(mind.agent.get("/mind/export"))
    _, issued = mind_create(owner=owner.user, name="Copy")
    copier = client_with_token(issued.plaintext)
    copier.get("/memory/stats")  # the key's last_used_at written before counting
    # As tests/memories/test_query_budgets.py counts an import, into a mind without vectors yet:
    # its embedder read and recorded (2).
    memory_part = 1 + 2 + 2 + 1 + 3 + 1 + 1 + 4
    # The net's savepoint (2); the existing knots, their INSERT, the presence INSERT; the existing
    # links, their INSERT, which ends the memories' wait for promotion in the database (no
    # entities, edges or goals in the file).
    with django_assert_num_queries(memory_part + 2 + 3 + 2):
        body = copier.post("/mind/import", document, format="json").json()
    assert body["knots"]["created"] == knots


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_json_in_a_row_of_the_net_answers_200_or_a_400_naming_it_never_a_500(netted, owner, data):
    document = read_json(netted.agent.get("/mind/export"))
    section = data.draw(st.sampled_from(["knots", "edges", "entities", "goals"]))
    rows = document[section]
    index = data.draw(st.integers(0, len(rows) - 1))
    target = data.draw(st.sampled_from(["row", "field", "presence", "link"]))
    value = data.draw(JSON_VALUES)
    if target == "row":
        rows[index] = value
    elif target == "presence" and section == "knots":
        rows[index]["presence"][data.draw(st.sampled_from(sorted(rows[index]["presence"])))] = value
    elif target == "link" and section == "knots":
        rows[index]["links"][0][data.draw(st.sampled_from(sorted(rows[index]["links"][0])))] = value
    else:
        rows[index][data.draw(st.sampled_from([*sorted(rows[index]), "unknown"]))] = value
    fresh, _ = mind_create(owner=owner.user, name="Fuzz")
    response = owner.client.post(f"/mind/import?mind={fresh.pk}", document, format="json")
    assert response.status_code in (200, 400), response.content
    if response.status_code == 400:
        assert response.json()["error"]["fields"]
