"""The pending-promotion table: one row per memory whose current content no knot holds yet.

Created empty; the net's migration (synapses 0006) fills it from today's links and installs the
triggers that keep it true. Its memory key cascades in the database: a deleted memory takes its
row along whichever path deletes it, and no ORM collector has to fetch the rows first.
"""

import django.db.models.deletion
from django.db import migrations, models

MEMORY_CASCADE_SQL = """
ALTER TABLE memories_pendingpromotion
  ADD CONSTRAINT pending_memory_fk FOREIGN KEY (memory_id) REFERENCES memories_memory (id) ON DELETE CASCADE;
"""
MEMORY_CASCADE_REVERSE_SQL = "ALTER TABLE memories_pendingpromotion DROP CONSTRAINT pending_memory_fk;"


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0010_pending_promotion_index"),
        ("minds", "0002_tables_and_content_types_of_minds"),
    ]

    operations = [
        migrations.CreateModel(
            name="PendingPromotion",
            fields=[
                (
                    "memory",
                    models.OneToOneField(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="pending_row",
                        serialize=False,
                        to="memories.memory",
                    ),
                ),
                ("content_hash", models.CharField(max_length=64)),
                ("since", models.DateTimeField()),
                (
                    "mind",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="minds.mind",
                    ),
                ),
            ],
            options={"indexes": [models.Index(fields=["mind", "since"], name="pending_mind_since_idx")]},
        ),
        migrations.RunSQL(MEMORY_CASCADE_SQL, MEMORY_CASCADE_REVERSE_SQL),
    ]
