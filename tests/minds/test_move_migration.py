"""Moving Mind, MindKey and MindShare from `memories` to `minds` keeps every row of a database.

The database is migrated back to the state before the move, filled through the historical
models (a user with a permission on minds, a mind, a key, a share, memories, an audit row, an
idempotency record, a log row), then migrated forward. Every row must still be there, under the
new tables, and the key must still authenticate.
"""

from __future__ import annotations

import pytest
from django.contrib.admin.models import ADDITION
from django.contrib.admin.models import LogEntry as AdminLogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from memories.models import IdempotencyRecord, Memory, MemoryAudit
from minds.mindkeys import mind_key_digest, mind_key_generate
from minds.models import Mind, MindKey, MindShare
from minds.services import mind_delete
from pipelinelog.models import LogEntry
from tests.conftest import client_with_token

# The last migrations before the move, per app; `minds` did not exist yet.
BEFORE_THE_MOVE = [
    ("memories", "0005_memory_count_index"),
    ("pipelinelog", "0001_initial"),
    ("minds", None),
]
MIND_ID = "m_movedMindAbc123"
OLD_TABLES = {"memories_mind", "memories_mindkey", "memories_mindshare"}
NEW_TABLES = {"minds_mind", "minds_mindkey", "minds_mindshare"}


def _migrate(targets) -> object:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor.migrate(targets)


def _migrate_to_latest() -> None:
    executor = MigrationExecutor(connection)
    _migrate(executor.loader.graph.leaf_nodes())


def _tables() -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


def _fill_the_old_schema(apps) -> dict:
    """Rows as a database of the state before the move holds them; what the test expects back."""
    user_model = apps.get_model("auth", "User")
    owner = user_model.objects.create(username="owner@example.com", email="owner@example.com", password="x")
    reader = user_model.objects.create(
        username="reader@example.com", email="reader@example.com", password=make_password("pw")
    )
    content_type = apps.get_model("contenttypes", "ContentType").objects.get(app_label="memories", model="mind")
    permission = apps.get_model("auth", "Permission").objects.get(content_type=content_type, codename="change_mind")
    reader.user_permissions.add(permission)

    mind = apps.get_model("memories", "Mind").objects.create(
        id=MIND_ID, owner=owner, name="Old mind", description="from before the move", settings={"mode": "x"}
    )
    plaintext, prefix = mind_key_generate()
    key = apps.get_model("memories", "MindKey").objects.create(
        mind=mind, label="old key", prefix=prefix, digest=mind_key_digest(plaintext)
    )
    share = apps.get_model("memories", "MindShare").objects.create(mind=mind, user=reader, acl="write")
    memory_model = apps.get_model("memories", "Memory")
    memories = [
        memory_model.objects.create(
            mind=mind,
            category="fact",
            key=f"fact_{n}",
            content=f"Fact number {n}.",
            content_hash=f"{n:064x}",
            source="user",
            speaker="user",
            confidence=0.9,
            salience=0.5,
            tags=["moved"],
        )  # fmt: skip
        for n in range(3)
    ]
    apps.get_model("memories", "MemoryAudit").objects.create(
        mind=mind, memory_id=memories[0].pk, action="created", actor=f"user:{owner.pk}"
    )
    apps.get_model("memories", "IdempotencyRecord").objects.create(
        mind=mind, key="idem-1", request_hash="0" * 64, response_status=201, response_body={"ok": True}
    )
    apps.get_model("pipelinelog", "LogEntry").objects.create(
        created_at=timezone.now(), turn_id="turn-1", source="user", node="memory.store", kind="note", mind=mind
    )
    return {
        "owner_id": owner.pk,
        "reader_id": reader.pk,
        "key_id": key.pk,
        "share_id": share.pk,
        "plaintext": plaintext,
        "prefix": prefix,
        "memory_ids": sorted(memory.pk for memory in memories),
        "content_type_id": content_type.pk,
    }


@pytest.mark.django_db(transaction=True)
def test_a_database_holding_minds_keeps_every_row_through_the_move():
    try:
        old_state = _migrate(BEFORE_THE_MOVE)
        assert _tables() >= OLD_TABLES and not NEW_TABLES & _tables()
        expected = _fill_the_old_schema(old_state.apps)
        _migrate_to_latest()

        tables = _tables()
        assert tables >= NEW_TABLES
        assert not OLD_TABLES & tables

        mind = Mind.objects.get(pk=MIND_ID)
        assert (mind.owner_id, mind.name, mind.description, mind.settings) == (
            expected["owner_id"], "Old mind", "from before the move", {"mode": "x"},
        )  # fmt: skip
        key = MindKey.objects.get(pk=expected["key_id"])
        assert (key.mind_id, key.label, key.prefix, key.revoked_at) == (MIND_ID, "old key", expected["prefix"], None)
        share = MindShare.objects.get(pk=expected["share_id"])
        assert (share.mind_id, share.user_id, share.acl) == (MIND_ID, expected["reader_id"], "write")
        assert sorted(Memory.objects.filter(mind=mind).values_list("pk", flat=True)) == expected["memory_ids"]
        assert MemoryAudit.objects.filter(mind=mind).count() == 1
        assert IdempotencyRecord.objects.filter(mind=mind, key="idem-1").count() == 1
        assert LogEntry.objects.filter(mind=mind, node="memory.store").count() == 1

        # The content type moved with its id, so the reader's grant still holds.
        ContentType.objects.clear_cache()
        assert ContentType.objects.get_for_model(Mind).pk == expected["content_type_id"]
        assert not ContentType.objects.filter(app_label="memories", model__in=["mind", "mindkey", "mindshare"]).exists()
        assert get_user_model().objects.get(pk=expected["reader_id"]).has_perm("minds.change_mind")

        # The old key still authenticates, and its agent sees the old mind's memories.
        response = client_with_token(expected["plaintext"]).get("/memory")
        assert response.status_code == 200, response.content
        assert sorted(item["id"] for item in response.json()["results"]) == expected["memory_ids"]
        assert MindKey.objects.get(pk=expected["key_id"]).last_used_at is not None

        # The foreign keys of memories, audit rows and log rows cascade from the moved model.
        mind_delete(mind=mind)
        assert not Memory.objects.filter(pk__in=expected["memory_ids"]).exists()
        assert not MemoryAudit.objects.filter(mind_id=MIND_ID).exists()
        assert not LogEntry.objects.filter(mind_id=MIND_ID, node="memory.store").exists()
        assert not MindKey.objects.filter(pk=expected["key_id"]).exists()
        assert not MindShare.objects.filter(pk=expected["share_id"]).exists()
    finally:
        _migrate_to_latest()


@pytest.mark.django_db(transaction=True)
def test_migrating_back_and_forth_with_the_command_keeps_grants_and_admin_history_on_one_content_type():
    try:
        # As `manage.py migrate` does it: post_migrate runs after each call, so going back creates
        # `minds` content types and permissions beside the old `memories` ones.
        call_command("migrate", "memories", "0005_memory_count_index", verbosity=0)
        call_command("migrate", "pipelinelog", "0001_initial", verbosity=0)
        call_command("migrate", "minds", "zero", verbosity=0)
        assert ContentType.objects.filter(app_label="minds", model="mindkey").exists()
        old = ContentType.objects.get(app_label="memories", model="mindkey")
        user = get_user_model().objects.create(username="keeper@example.com", email="keeper@example.com")
        user.user_permissions.add(Permission.objects.get(content_type=old, codename="change_mindkey"))
        group = Group.objects.create(name="key keepers")
        group.permissions.add(Permission.objects.get(content_type=old, codename="view_mindkey"))
        AdminLogEntry.objects.create(
            user=user, content_type=old, object_id="1", object_repr="mk_1234abcd", action_flag=ADDITION
        )

        call_command("migrate", verbosity=0)

        moved = ContentType.objects.filter(model__in=["mind", "mindkey", "mindshare"])
        assert sorted(moved.values_list("app_label", "model")) == [
            ("minds", "mind"), ("minds", "mindkey"), ("minds", "mindshare"),
        ]  # fmt: skip
        assert ContentType.objects.get(app_label="minds", model="mindkey").pk == old.pk
        assert sorted(Permission.objects.filter(content_type=old).values_list("codename", flat=True)) == [
            "add_mindkey", "change_mindkey", "delete_mindkey", "view_mindkey",
        ]  # fmt: skip
        assert get_user_model().objects.get(pk=user.pk).has_perm("minds.change_mindkey")
        assert list(group.permissions.values_list("content_type", "codename")) == [(old.pk, "view_mindkey")]
        assert AdminLogEntry.objects.get(object_repr="mk_1234abcd").content_type_id == old.pk
    finally:
        _migrate_to_latest()


@pytest.mark.django_db
def test_the_models_and_the_migrations_agree_after_the_move():
    # Exits with status 1 (SystemExit) when a model differs from what its migrations build.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
