"""The minds app takes over Mind, MindKey and MindShare from the memories app.

State only: the tables already exist (memories 0002 created them as `memories_mind`,
`memories_mindkey`, `memories_mindshare`), so this migration only tells Django that the models
now belong to `minds`, still on those tables. Nothing is created, copied or dropped; 0002
renames the tables once memories 0006 has let go of the models. See docs/architecture.md.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import memoryproject.core.public_ids


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        # The tables this migration adopts (and, on a new database, creates through memories 0002).
        ("memories", "0005_memory_count_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Mind",
                    fields=[
                        ("id", models.CharField(default=memoryproject.core.public_ids.new_mind_id, editable=False, max_length=40, primary_key=True, serialize=False)),
                        ("name", models.CharField(max_length=200)),
                        ("description", models.TextField(blank=True, default="")),
                        ("settings", models.JSONField(blank=True, default=dict)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        ("owner", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="minds", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"ordering": ["created_at"], "db_table": "memories_mind"},
                ),
                migrations.CreateModel(
                    name="MindKey",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("label", models.CharField(blank=True, default="", max_length=100)),
                        ("prefix", models.CharField(max_length=16, unique=True)),
                        ("digest", models.CharField(max_length=64)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("last_used_at", models.DateTimeField(blank=True, null=True)),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        ("mind", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="keys", to="minds.mind")),
                    ],
                    options={"ordering": ["created_at"], "db_table": "memories_mindkey"},
                ),
                migrations.CreateModel(
                    name="MindShare",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("acl", models.CharField(choices=[("read", "read"), ("write", "write"), ("admin", "admin")], max_length=5)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        ("mind", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="shares", to="minds.mind")),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="mind_shares", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"ordering": ["created_at"], "db_table": "memories_mindshare"},
                ),
                migrations.AddIndex(
                    model_name="mind",
                    index=models.Index(fields=["owner", "created_at"], name="mind_owner_created_idx"),
                ),
                migrations.AddConstraint(
                    model_name="mindshare",
                    constraint=models.UniqueConstraint(fields=("mind", "user"), name="mindshare_unique_mind_user"),
                ),
            ],
        ),
    ]
