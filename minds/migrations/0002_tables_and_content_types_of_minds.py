"""The minds tables get the app's own names, and the content types follow the models.

- `memories_mind`, `memories_mindkey`, `memories_mindshare` become `minds_mind`, `minds_mindkey`,
  `minds_mindshare`: a rename in PostgreSQL's catalogue (no rows are copied; foreign keys,
  indexes and identity sequences follow the table).
- The content types of the three models move from `memories` to `minds`, so the permissions
  that hang on them (and every user's and group's grant of them) and the admin's history stay.
  Left alone, Django would add new `minds` content types and leave the old ones stale. When a
  `minds` content type already exists (a `migrate` back to before the move, run with this code,
  lets post_migrate create one), it is folded into the old one, which keeps its id: its
  permissions, their grants and its admin history move over, then it is deleted.

Reversible: migrating back renames the tables and content types back.
"""

from django.db import migrations

MOVED_MODELS = ["mind", "mindkey", "mindshare"]


def _content_types_move(apps, *, source: str, target: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    for model in MOVED_MODELS:
        old = content_type.objects.filter(app_label=source, model=model).first()
        if old is None:  # a new database: post_migrate creates the content types later
            continue
        twin = content_type.objects.filter(app_label=target, model=model).first()
        if twin is not None:
            _content_type_fold(apps, keep=old, drop=twin)
        old.app_label = target
        old.save(update_fields=["app_label"])


def _content_type_fold(apps, *, keep, drop) -> None:
    """What hangs on `drop` moves to `keep` (the older one, whose id other rows may hold); `drop` goes."""
    permission = apps.get_model("auth", "Permission")
    for dropped in permission.objects.filter(content_type=drop):
        kept = permission.objects.filter(content_type=keep, codename=dropped.codename).first()
        if kept is None:
            dropped.content_type = keep
            dropped.save(update_fields=["content_type"])
            continue
        kept.user_set.add(*dropped.user_set.all())
        kept.group_set.add(*dropped.group_set.all())
        dropped.delete()
    apps.get_model("admin", "LogEntry").objects.filter(content_type=drop).update(content_type=keep)
    drop.delete()


def content_types_to_minds(apps, schema_editor) -> None:
    _content_types_move(apps, source="memories", target="minds")


def content_types_to_memories(apps, schema_editor) -> None:
    _content_types_move(apps, source="minds", target="memories")


class Migration(migrations.Migration):

    dependencies = [
        ("minds", "0001_initial"),
        # Renamed only once memories no longer holds the models in its state.
        ("memories", "0006_minds_move_out"),
        ("contenttypes", "0002_remove_content_type_name"),
        # The permissions and the admin's history that hang on the content types.
        ("auth", "0012_alter_user_first_name_max_length"),
        ("admin", "0003_logentry_add_action_flag_choices"),
    ]

    operations = [
        migrations.AlterModelTable(name="mind", table=None),
        migrations.AlterModelTable(name="mindkey", table=None),
        migrations.AlterModelTable(name="mindshare", table=None),
        migrations.RunPython(content_types_to_minds, content_types_to_memories),
    ]
