"""`manage.py import_memories FILE [--mind] [--format]`: our export (with the net) and JSONL rows,
oldest first, idempotent, invalid rows reported with their reason and the rest imported."""

from __future__ import annotations

import io
import json
from functools import partial

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.keys import derived_key
from memories.management.commands import import_memories
from memories.models import Memory
from minds.services import mind_create
from synapses.models import Edge, Knot, MemoryKnot
from tests.factories import knot_make
from tests.memories.insights_support import agent_caller, remember

pytestmark = pytest.mark.django_db


def run(*args, **options) -> str:
    out = io.StringIO()
    call_command("import_memories", *map(str, args), stdout=out, **options)
    return out.getvalue()


def jsonl(path, rows: list) -> str:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return str(path)


def row(key: str, created_at: str, **fields) -> dict:
    return {"category": "fact", "key": key, "content": f"content of {key}", "created_at": created_at, **fields}


@pytest.fixture
def fresh(owner):
    return mind_create(owner=owner.user, name="Fresh")[0]


@pytest.fixture
def exported(mind, tmp_path):
    """An export file of a mind holding three memories, two of them knots joined by an edge pair."""
    agent = agent_caller(mind.mind)
    memories = [remember(mind.mind, agent, category="fact", key=f"m{n}", content=f"memory {n}") for n in range(3)]
    a, b = (knot_make(memory=memory, linked=True) for memory in memories[:2])
    for source, target in ((a, b), (b, a)):
        Edge.objects.create(
            mind=mind.mind, source=source, target=target, weight_raw=1.0, weight_anchor=1.0, layers=["themes"],
            shared_themes=["x"], layer_count=1,
        )  # fmt: skip
    path = tmp_path / "export.json"
    path.write_bytes(b"".join(mind.agent.get("/mind/export").streaming_content))
    return path


def test_an_export_file_brings_the_memories_and_the_net_and_a_second_run_creates_nothing(exported, fresh):
    out = run(exported, mind=fresh.pk)
    assert (
        "3 imported (3 created, 0 updated), 0 skipped (already there, or the mind's version is newer), 0 invalid."
        in out
    )
    assert "knots 2 created / 0 skipped" in out and "edges 2 created / 0 skipped" in out
    assert (Memory.objects.filter(mind=fresh).count(), Knot.objects.filter(mind=fresh).count()) == (3, 2)
    assert (Edge.objects.filter(mind=fresh).count(), MemoryKnot.objects.filter(mind=fresh).count()) == (2, 2)
    rows = sorted(Memory.objects.filter(mind=fresh).values_list("key", "content"))
    assert rows == [("m0", "memory 0"), ("m1", "memory 1"), ("m2", "memory 2")]

    again = run(exported, mind=fresh.pk)
    assert "0 imported (0 created, 0 updated), 3 skipped" in again
    assert "knots 0 created / 2 skipped" in again and "edges 0 created / 2 skipped" in again
    assert (Memory.objects.filter(mind=fresh).count(), Knot.objects.filter(mind=fresh).count()) == (3, 2)


def test_without_mind_an_export_goes_back_into_its_own_mind_if_it_is_here(exported, mind):
    out = run(exported)
    assert f"{mind.mind.pk} (Michael's Mind): 0 imported (0 created, 0 updated), 3 skipped" in out


def promotions_of(callbacks) -> list[list[str]]:
    return [callback.args[1] for callback in callbacks if isinstance(callback, partial)]


def test_jsonl_rows_are_imported_oldest_first_across_batches(
    fresh, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(import_memories, "IMPORT_MAX_MEMORIES", 2)
    path = jsonl(
        tmp_path / "rows.jsonl",
        [
            row("c", "2024-03-01T00:00:00Z"),
            row("a", "2024-01-01T00:00:00Z"),
            {"category": "note", "content": "undated"},
            row("b", "2024-02-01T00:00:00Z"),
        ],
    )  # fmt: skip
    with django_capture_on_commit_callbacks() as callbacks:
        out = run(path, mind=fresh.pk)
    assert "4 imported (4 created, 0 updated), 0 skipped" in out
    keys = dict(Memory.objects.filter(mind=fresh).values_list("pk", "key"))
    # Two batches of two in one transaction (the mind's whole import), so one promotion task on
    # commit, with the ids oldest first; the undated row is "now", last.
    assert [[keys[pk] for pk in batch] for batch in promotions_of(callbacks)] == [
        ["a", "b", "c", derived_key("note", "undated")],
    ]
    assert Memory.objects.get(mind=fresh, key="a").created_at.year == 2024


def test_invalid_rows_are_reported_with_their_reason_and_the_others_imported(fresh, tmp_path, monkeypatch):
    monkeypatch.setattr(import_memories, "IMPORT_MAX_MEMORIES", 2)
    path = jsonl(
        tmp_path / "rows.jsonl",
        [
            row("good", "2024-01-01T00:00:00Z"),
            "{not json",
            {"category": "fact", "key": "nothing"},
            row("weird", "2024-01-01T00:00:00Z", category="gossip"),
            row("good", "2024-05-01T00:00:00Z"),  # the same key again, in another batch
            "",
            row("fine", "2024-01-02T00:00:00Z"),
        ],
    )
    out = run(path, mind=fresh.pk)
    assert (
        "2 imported (2 created, 0 updated), 0 skipped (already there, or the mind's version is newer), 4 invalid."
        in out
    )
    assert "invalid line 2: not JSON" in out
    assert "invalid line 3: content: This field is required." in out
    assert "invalid line 4: category:" in out
    assert "invalid line 5: key: line 1 has the same category and key; the first one counts." in out
    assert sorted(Memory.objects.filter(mind=fresh).values_list("key", flat=True)) == ["fine", "good"]


def test_a_second_run_of_a_file_with_a_later_version_updates_it(fresh, tmp_path):
    run(
        jsonl(tmp_path / "v1.jsonl", [row("city", "2024-01-01T00:00:00Z", updated_at="2024-01-01T00:00:00Z")]),
        mind=fresh.pk,
    )
    later = row("city", "2024-01-01T00:00:00Z", updated_at="2024-06-01T00:00:00Z", content="Hamburg")
    out = run(jsonl(tmp_path / "v2.jsonl", [later]), mind=fresh.pk)
    assert "1 imported (0 created, 1 updated), 0 skipped" in out
    assert Memory.objects.get(mind=fresh, key="city").content == "Hamburg"


@pytest.mark.parametrize("count", [3, 30])
def test_the_import_is_set_based_its_queries_do_not_grow_with_the_rows(fresh, tmp_path, count):
    path = jsonl(tmp_path / "rows.jsonl", [row(f"k{n}", "2024-01-01T00:00:00Z") for n in range(count)])
    with CaptureQueriesContext(connection) as queries:
        run(path, mind=fresh.pk)
    # The mind with its owner; the command's transaction for the mind (a savepoint here and its
    # release, 2); the mind's embedder read and, on its first vectors, recorded (2); then the
    # service's lock query, savepoint and insert (3), audit rows, the mind's webhooks read for the
    # event (1).
    assert len(queries) == 1 + 2 + 2 + 2 + 1 + 3 + 1 + 1


def test_wrong_net_rows_leave_nothing_written(exported, fresh):
    """The memories and the net are one transaction: a net that cannot be read takes the memories back too."""
    document = json.loads(exported.read_text())
    document["edges"][0]["source"] = 123_456_789
    exported.write_text(json.dumps(document))
    with pytest.raises(CommandError, match="nothing was imported"):
        run(exported, mind=fresh.pk)
    assert (Memory.objects.filter(mind=fresh).count(), Knot.objects.filter(mind=fresh).count()) == (0, 0)


@pytest.mark.parametrize(
    ("content", "options", "message"),
    [
        ('{"format_version": 1, "memories": []}', {}, "Name the mind to import into with --mind"),
        ('{"format_version": 1, "memories": []}', {"mind": "m_nobody"}, "No mind with id 'm_nobody'"),
        ('{"format_version": 7, "memories": []}', {"mind": None}, "reads export format_version 1; the file has 7"),
        ('{"format_version": 1, "memories": [], "extra": 1}', {"mind": None}, "Unknown top-level field 'extra'"),
        ("[1, 2", {"mind": None}, "Not JSON"),
    ],
)
def test_a_file_or_mind_that_cannot_be_used_is_refused_with_the_reason(fresh, tmp_path, content, options, message):
    path = tmp_path / "file.json"
    path.write_text(content)
    options = {name: (fresh.pk if value is None else value) for name, value in options.items()}
    with pytest.raises(CommandError, match=message):
        run(path, **options)


def test_a_missing_file_is_refused(fresh, tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        run(tmp_path / "nowhere.json", mind=fresh.pk)
