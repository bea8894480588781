"""The minds tables get the app's own names, and the content types follow the models.

- `memories_mind`, `memories_mindkey`, `memories_mindshare` become `minds_mind`, `minds_mindkey`,
  `minds_mindshare`: a rename in PostgreSQL's catalogue (no rows are copied; foreign keys,
  indexes and identity sequences follow the table).
- The content types of the three models move from `memories` to `minds`, so the permissions
  that hang on them (and every user's and group's grant of them) and the admin's history stay.
  Left alone, Django would add new `minds` content types and leave the old ones stale.

Reversible: migrating back renames the tables and content types back.
"""

from django.db import migrations

MOVED_MODELS = ["mind", "mindkey", "mindshare"]


def _content_types_move(apps, *, source: str, target: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    # A content type already at the target (created by a post_migrate run in between) is kept;
    # the one at the source is then stale and left for `remove_stale_contenttypes`.
    present = set(content_type.objects.filter(app_label=target, model__in=MOVED_MODELS).values_list("model", flat=True))
    movable = [model for model in MOVED_MODELS if model not in present]
    content_type.objects.filter(app_label=source, model__in=movable).update(app_label=target)


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
    ]

    operations = [
        migrations.AlterModelTable(name="mind", table=None),
        migrations.AlterModelTable(name="mindkey", table=None),
        migrations.AlterModelTable(name="mindshare", table=None),
        migrations.RunPython(content_types_to_minds, content_types_to_memories),
    ]
