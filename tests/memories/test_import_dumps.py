"""`manage.py import_memories` with dumps of other tools: mem0's memories and generic JSON/JSONL
rows. Each row's key is its source-id mapping, so a second import creates nothing; rows go in
oldest first; the rows that cannot be read or checked are listed with their reason and the others
are imported."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memories.models import Memory, MemoryAudit
from minds.models import Mind

pytestmark = pytest.mark.django_db

MEM0_FIXTURE = Path(__file__).parent / "fixtures" / "mem0_get_all.json"


def run(*args, **options) -> str:
    out = io.StringIO()
    call_command("import_memories", *map(str, args), stdout=out, **options)
    return out.getvalue()


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def test_a_mem0_dump_lands_in_one_mind_per_user_with_its_times_tags_and_origin(owner):
    out = run(MEM0_FIXTURE, format="mem0", mind_per_user=True, owner="owner@example.com")

    alice = Mind.objects.get(owner=owner.user, name="alice")
    bob = Mind.objects.get(owner=owner.user, name="bob")
    assert f"Created mind {alice.pk} (alice) for user_id 'alice'." in out
    assert f"{alice.pk} (alice): 3 imported (3 created, 0 updated), 0 skipped" in out
    assert f"{bob.pk} (bob): 1 imported (1 created, 0 updated), 0 skipped" in out
    lisbon = Memory.objects.get(mind=alice, content="Lives in Lisbon since 2021")
    assert (lisbon.category, lisbon.key) == ("fact", "mem0:5b8e1f77-3c2d-4a90-9e61-d4c3b2a1f0e2")
    assert lisbon.created_at.isoformat() == "2025-01-19T01:40:03.112004+00:00"  # -08:00 read as such
    assert lisbon.updated_at.isoformat() == "2025-02-11T16:02:55.730118+00:00"
    assert lisbon.speaker == "user"  # mem0's role
    assert lisbon.attributes["mem0"] == {
        "id": "5b8e1f77-3c2d-4a90-9e61-d4c3b2a1f0e2",
        "hash": "0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b",
        "user_id": "alice",
        "agent_id": "travel-planner",
        "role": "user",
    }
    window = Memory.objects.get(mind=alice, content="Prefers window seats on long flights")
    assert window.tags == ["travel", "preferences"]
    vegetarian = Memory.objects.get(mind=alice, content="Is vegetarian and allergic to peanuts")
    assert vegetarian.attributes["food"] == "preferences"  # mem0's metadata
    assert vegetarian.updated_at == vegetarian.created_at  # a null updated_at is the creation time
    assert list(Memory.objects.filter(mind=bob).values_list("content", flat=True)) == ["Works night shifts as a nurse"]


def test_the_same_mem0_dump_imported_twice_creates_each_memory_and_mind_once(owner):
    run(MEM0_FIXTURE, format="mem0", mind_per_user=True, owner="owner@example.com")
    again = run(MEM0_FIXTURE, format="mem0", mind_per_user=True, owner="owner@example.com")

    assert "Created mind" not in again
    assert "0 imported (0 created, 0 updated), 3 skipped" in again
    assert "0 imported (0 created, 0 updated), 1 skipped" in again
    assert Mind.objects.filter(owner=owner.user).count() == 2
    assert Memory.objects.filter(mind__owner=owner.user).count() == 4


def test_mem0_rows_are_written_oldest_first_whatever_their_order_in_the_file(owner):
    run(MEM0_FIXTURE, format="mem0", mind_per_user=True, owner="owner@example.com")

    alice = Mind.objects.get(owner=owner.user, name="alice")
    # The audit rows are written in the order the memories were created: promotion meets them so.
    content = dict(Memory.objects.filter(mind=alice).values_list("pk", "content"))
    written = MemoryAudit.objects.filter(mind=alice).order_by("pk").values_list("memory_id", flat=True)
    assert [content[memory_id] for memory_id in written] == [
        "Lives in Lisbon since 2021",  # 2025-01-18, second in the file
        "Prefers window seats on long flights",  # 2025-02-27, third
        "Is vegetarian and allergic to peanuts",  # 2025-03-02, first
    ]


def test_a_later_version_of_a_mem0_memory_updates_it_instead_of_adding_one(owner, mind, tmp_path):
    first = {"id": "m-1", "memory": "Drinks coffee", "created_at": "2025-01-01T10:00:00Z", "user_id": "u"}
    later = {**first, "memory": "Drinks only tea now", "updated_at": "2025-04-01T10:00:00Z"}
    run(write_jsonl(tmp_path / "v1.jsonl", [first]), format="mem0", mind=mind.mind.pk)
    out = run(write_jsonl(tmp_path / "v2.jsonl", [later]), format="mem0", mind=mind.mind.pk)

    assert "1 imported (0 created, 1 updated)" in out
    assert list(Memory.objects.filter(mind=mind.mind).values_list("key", "content")) == [
        ("mem0:m-1", "Drinks only tea now")
    ]


def test_a_generic_dump_without_ids_imported_twice_creates_each_memory_once(mind, tmp_path):
    rows = [
        {"content": "Likes jazz", "created_at": "2025-01-01T10:00:00Z", "metadata": {"from": "chat"}},
        {"memory": "Has a dog called Rex", "created_at": "2025-01-02T10:00:00Z", "user_id": "u7"},
        {"text": "Likes jazz", "created_at": "2025-03-01T10:00:00Z"},  # same text, another time: another row
        {"text": "Plays chess", "category": "preference", "tags": ["games"]},
    ]
    path = write_jsonl(tmp_path / "dump.jsonl", rows)
    first = run(path, format="dump", mind=mind.mind.pk)
    second = run(path, format="dump", mind=mind.mind.pk)

    assert "4 imported (4 created, 0 updated), 0 skipped" in first
    assert "0 imported (0 created, 0 updated), 4 skipped" in second
    stored = Memory.objects.filter(mind=mind.mind)
    assert stored.count() == 4
    assert sorted(stored.values_list("content", flat=True)) == [
        "Has a dog called Rex",
        "Likes jazz",
        "Likes jazz",
        "Plays chess",
    ]
    assert all(key.startswith("import:") for key in stored.values_list("key", flat=True))
    jazz = stored.get(content="Likes jazz", created_at__year=2025, created_at__month=1)
    assert (jazz.category, jazz.attributes) == ("note", {"from": "chat"})
    rex = stored.get(content="Has a dog called Rex")
    assert rex.attributes == {"import": {"user_id": "u7"}}
    chess = stored.get(content="Plays chess")
    assert (chess.category, chess.tags) == ("preference", ["games"])


def test_a_generic_json_array_keys_its_rows_by_their_ids(mind, tmp_path):
    path = tmp_path / "dump.json"
    path.write_text(json.dumps([{"id": 42, "content": "Speaks Dutch"}, {"id": "a/b c", "content": "Reads Rilke"}]))
    run(path, format="dump", mind=mind.mind.pk)

    keys = dict(Memory.objects.filter(mind=mind.mind).values_list("content", "key"))
    assert keys["Speaks Dutch"] == "import:42"
    # An id that is no key's characters stands as its hash: still the same key on every import.
    assert keys["Reads Rilke"].startswith("import:") and len(keys["Reads Rilke"]) == len("import:") + 24


def test_invalid_rows_of_a_dump_are_listed_with_their_reason_and_the_valid_ones_imported(mind, tmp_path):
    rows = [
        {"content": "Valid one", "created_at": "2025-01-01T10:00:00Z"},
        {"created_at": "2025-01-01T10:00:00Z"},
        {"content": "Two texts", "text": "Two texts"},
        "{not json",
        {"content": "From the future", "created_at": "2999-01-01T00:00:00Z"},
        {"content": "Typo", "catgory": "fact"},
        {"content": "Bad metadata", "metadata": ["a"]},
        {"content": "Bad category", "category": "dream"},
        {"memory": "Valid two", "user_id": "u"},
    ]
    out = run(write_jsonl(tmp_path / "dump.jsonl", rows), format="dump", mind=mind.mind.pk)

    assert (
        "2 imported (2 created, 0 updated), 0 skipped (already there, or the mind's version is newer), 7 invalid."
        in out
    )
    assert "invalid line 2: give the text in exactly one of content, memory, text (the row has 0)." in out
    assert "invalid line 3: give the text in exactly one of content, memory, text (the row has 2)." in out
    assert "invalid line 4: not JSON" in out
    assert "invalid line 5: created_at:" in out
    assert "invalid line 6: unknown field 'catgory'" in out
    assert "invalid line 7: metadata and attributes must be JSON objects." in out
    assert "invalid line 8: category:" in out and "dream" in out
    assert sorted(Memory.objects.filter(mind=mind.mind).values_list("content", flat=True)) == ["Valid one", "Valid two"]


def test_a_mem0_row_without_its_text_is_invalid_and_the_rest_imported(mind, tmp_path):
    rows = [{"id": "x", "hash": "h", "user_id": "u"}, {"id": "y", "memory": "Fine", "metadata": "no"},
            {"id": "z", "memory": "Kept"}]  # fmt: skip
    out = run(write_jsonl(tmp_path / "mem0.jsonl", rows), format="mem0", mind=mind.mind.pk)

    assert "1 imported (1 created, 0 updated)" in out and "2 invalid." in out
    assert 'invalid line 1: memory: a mem0 row holds its text in "memory" (a string).' in out
    assert "invalid line 2: metadata: must be a JSON object." in out


def test_mind_per_user_needs_an_owner_and_rows_without_user_id_need_a_mind(owner, mind, tmp_path):
    path = write_jsonl(tmp_path / "dump.jsonl", [{"content": "No user"}, {"content": "Has one", "user_id": "carol"}])
    with pytest.raises(CommandError, match="--mind-per-user needs --owner EMAIL"):
        run(path, format="dump", mind_per_user=True)
    with pytest.raises(CommandError, match="No account with the email 'nobody@example.com'"):
        run(path, format="dump", mind_per_user=True, owner="nobody@example.com")

    out = run(path, format="dump", mind_per_user=True, owner="owner@example.com")
    assert "invalid line 1: no user_id to pick its mind by (name a mind for such rows with --mind)." in out
    assert Memory.objects.get(mind__name="carol").content == "Has one"

    run(path, format="dump", mind_per_user=True, owner="owner@example.com", mind=mind.mind.pk)
    assert Memory.objects.get(mind=mind.mind).content == "No user"
    assert Memory.objects.filter(mind__name="carol").count() == 1


def test_an_export_with_its_net_is_refused_under_mind_per_user_instead_of_losing_the_net(owner, mind, tmp_path):
    path = tmp_path / "export.json"
    path.write_bytes(b"".join(mind.agent.get("/mind/export").streaming_content))
    document = json.loads(path.read_text())
    document["knots"] = [{"id": 1}]  # any row: the net's sections are there
    path.write_text(json.dumps(document))

    with pytest.raises(CommandError, match="An export holds one mind, with its net: import it with --mind"):
        run(path, mind_per_user=True, owner="owner@example.com")
    assert Mind.objects.filter(owner=owner.user).count() == 1
