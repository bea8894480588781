"""Promotion's attempts and parking, the index that matches entity aliases in one query, and the
mind's newest memory links (its last promotion)."""

import django.contrib.postgres.indexes
import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

import synapses.models

# Immutable, so an expression index may hold it: the aliases lower-cased, in their order.
ALIASES_LOWER_SQL = """
CREATE FUNCTION synapses_aliases_lower(aliases varchar[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ARRAY(SELECT lower(alias) FROM unnest(aliases) WITH ORDINALITY AS given(alias, n) ORDER BY n)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0009_memory_search_key_tags"),
        ("minds", "0002_tables_and_content_types_of_minds"),
        ("synapses", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="PromotionAttempt",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("content_hash", models.CharField(max_length=64)),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("last_error", models.TextField(blank=True, default="")),
                ("parked_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "memory",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="memories.memory",
                    ),
                ),
                (
                    "mind",
                    models.ForeignKey(
                        db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="minds.mind"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("mind", "memory", "content_hash"), name="promotionattempt_unique_memory_version"
                    )
                ],
                "indexes": [
                    models.Index(
                        condition=models.Q(("parked_at__isnull", False)),
                        fields=["mind", "-parked_at"],
                        name="promotionattempt_parked_idx",
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="memoryknot",
            index=models.Index(fields=["mind", "-created_at"], name="memoryknot_mind_created_idx"),
        ),
        migrations.RunSQL(ALIASES_LOWER_SQL, reverse_sql="DROP FUNCTION synapses_aliases_lower(varchar[])"),
        migrations.AddIndex(
            model_name="entity",
            index=django.contrib.postgres.indexes.GinIndex(
                synapses.models.AliasesLower(models.F("aliases")), name="entity_aliases_lower_gin"
            ),
        ),
    ]
