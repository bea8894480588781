"""A restore is the backup: `manage.py import_memories` of a 61-memory export with its net gives a
mind equal to the source in memories, knots (their times and presence), edges, entities and goals;
a second run changes nothing."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django_q.conf import Conf

from memories.management.commands import import_memories
from memories.models import Memory
from minds.services import mind_create
from synapses.models import Edge, Entity, Goal, Knot, KnotPresence
from synapses.promotion.service import memories_promote
from tests.conftest import client_with_token
from tests.memories.insights_support import T0, agent_caller, remember

pytestmark = pytest.mark.django_db

PEOPLE = ("Anna", "Bernd", "Clara", "Dieter", "Eva")
TOPICS = ("garden", "travel", "work", "music")
MEMORIES = 61


def run(path, mind_id: str) -> str:
    out = io.StringIO()
    call_command("import_memories", str(path), mind=mind_id, stdout=out)
    return out.getvalue()


@pytest.fixture
def source(mind):
    """61 memories over five months, promoted into a net by the real promotion (entities, edges of
    every layer that fires), one of them edited after promotion (two knot versions), one knot aged
    by hand (its presence differs from a new knot's), and two goals."""
    agent = agent_caller(mind.mind)
    for n in range(MEMORIES):
        person, topic = PEOPLE[n % len(PEOPLE)], TOPICS[n % len(TOPICS)]
        remember(
            mind.mind, agent, at=T0 + timedelta(days=2 * n), category="fact", key=f"m{n:02d}",
            content=f"{person} about {topic}: " + " ".join(f"word{n}x{j}" for j in range(6)),
            tags=[topic], entities=[person], salience=0.9,
        )  # fmt: skip
    ids = list(Memory.objects.filter(mind=mind.mind).values_list("pk", flat=True))
    assert memories_promote(memory_ids=ids, now_all=True).created > 0
    edited = remember(mind.mind, agent, category="fact", key="m00", content="Anna moved her garden to Kiel",
                      tags=["garden"], entities=["Anna"], salience=0.9)  # fmt: skip
    memories_promote(memory_ids=[edited.pk], now_all=True)
    aged = Knot.objects.filter(mind=mind.mind).order_by("pk").first()
    KnotPresence.objects.filter(knot=aged).update(
        presence_base=0.31, weight_present=0.42, reinforced_at=T0, decayed_at=T0 + timedelta(days=3), is_active=False
    )
    for statement, motivation in (("Keep the garden alive", 0.8), ("See Clara more often", 0.4)):
        mind.agent.post("/synapses/goals", {"statement": statement, "motivation": motivation}, format="json")
    return mind


def _exported(source, tmp_path):
    path = tmp_path / "export.json"
    path.write_bytes(b"".join(source.agent.get("/mind/export").streaming_content))
    return path


def snapshot(mind) -> dict:
    """Everything a restore must reproduce, named by what survives a move between minds: memories
    by (category, key), knots by (memory key, content hash), entities by name."""
    keys = dict(Memory.objects.filter(mind=mind).values_list("pk", "key"))
    entity_names = dict(Entity.objects.filter(mind=mind).values_list("pk", "name"))
    knots = {}
    knot_names = {}
    for knot in Knot.objects.filter(mind=mind).select_related("presence"):
        name = (keys[knot.memory_id], knot.content_hash)
        knot_names[knot.pk] = name
        presence = knot.presence
        knots[name] = (
            knot.content, knot.created_at, knot.source_created_at, knot.weight_raw, knot.weight_anchor,
            knot.activation_count, sorted(entity_names[pk] for pk in knot.entities), knot.themes,
            presence.presence_base, presence.weight_present, presence.reinforced_at, presence.decayed_at,
            presence.is_active,
        )  # fmt: skip
    edges = {
        (knot_names[edge.source_id], knot_names[edge.target_id]): (
            edge.weight_raw,
            edge.weight_anchor,
            edge.layers,
            sorted(entity_names[pk] for pk in edge.shared_entities),
            edge.shared_themes,
            edge.time_distance,
            edge.cosine_initial,
            edge.created_at,
        )  # fmt: skip
        for edge in Edge.objects.filter(mind=mind)
    }
    memory_fields = ("category", "key", "content", "content_hash", "tags", "entities", "created_at", "updated_at")
    return {
        "memories": sorted(Memory.objects.filter(mind=mind).values_list(*memory_fields)),
        "knots": knots,
        "edges": edges,
        "entities": sorted(Entity.objects.filter(mind=mind).values_list("name", "aliases", "created_at")),
        "goals": sorted(Goal.objects.filter(mind=mind).values_list("statement", "motivation", "active", "created_at")),
    }


def test_an_export_restored_twice_by_the_command_equals_its_source(source, owner, tmp_path):
    path = _exported(source, tmp_path)
    expected = snapshot(source.mind)
    # The source is a real net, not a few rows: the comparison below would miss nothing by being empty.
    assert len(expected["memories"]) == MEMORIES
    assert len(expected["knots"]) == MEMORIES + 1  # m00 has two versions
    assert len(expected["edges"]) > MEMORIES
    # The five people given as entities, and Kiel, which discovery finds in the edited m00.
    assert {name for name, _, _ in expected["entities"]} == {*PEOPLE, "Kiel"}
    assert len(expected["goals"]) == 2
    target = mind_create(owner=owner.user, name="Restored")[0]

    first = run(path, target.pk)
    assert f"{MEMORIES} imported ({MEMORIES} created, 0 updated)" in first
    assert snapshot(target) == expected

    second = run(path, target.pk)
    assert f"0 imported (0 created, 0 updated), {MEMORIES} skipped" in second
    assert f"knots 0 created / {MEMORIES + 1} skipped" in second
    assert snapshot(target) == expected


@pytest.mark.django_db(transaction=True)
def test_a_worker_that_promotes_at_every_commit_cannot_race_the_restore(source, owner, tmp_path, monkeypatch):
    """django-q2 in sync mode runs the promotion the import enqueues at the moment of its commit —
    the fastest worker there can be. Were the memories committed before their net (in batches, as
    before), the worker would make them knots of its own (new times, reset presence) first."""
    monkeypatch.setattr(Conf, "SYNC", True)
    monkeypatch.setattr(import_memories, "IMPORT_MAX_MEMORIES", 10)
    path = _exported(source, tmp_path)
    expected = snapshot(source.mind)
    target = mind_create(owner=owner.user, name="Restored")[0]
    run(path, target.pk)
    assert snapshot(target) == expected


def test_the_same_export_goes_in_over_the_api_under_the_import_paths_own_bound(source, owner, tmp_path):
    path = _exported(source, tmp_path)
    # The hashing embedder's vectors print short (many zeros): the file is ~0.8 MB where a real
    # embedder's export of the same 61 memories passes 1.4 MB. Whitespace after the document takes
    # it over the 1 MiB every other path allows, as JSON still.
    body = path.read_bytes() + b" " * settings.MAX_REQUEST_BODY_BYTES
    target, issued = mind_create(owner=owner.user, name="Restored")
    client = client_with_token(issued.plaintext)
    assert client.post("/memory", body, content_type="application/json").status_code == 413

    answer = client.post("/mind/import", body, content_type="application/json")

    assert answer.status_code == 200, answer.content[:300]
    assert snapshot(target) == snapshot(source.mind)


def test_a_body_over_the_import_paths_bound_answers_413_naming_it(mind):
    limit = settings.MAX_REQUEST_BODY_BYTES_BY_PATH["/mind/import"]
    answer = mind.agent.generic(
        "POST", "/mind/import/", b"{}", content_type="application/json", CONTENT_LENGTH=str(limit + 1)
    )
    assert answer.status_code == 413
    assert f"the limit is {limit} bytes (32 MiB)" in answer.json()["error"]["message"]
