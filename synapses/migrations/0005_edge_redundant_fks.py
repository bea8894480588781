"""Edges lose their three single-column foreign keys (mind, source, target) in the database.

The composite references (mind_id, source_id) and (mind_id, target_id) → synapses_knot (mind_id,
id) ON DELETE CASCADE of migration 0001 already refuse an edge whose knot is missing or belongs
to another mind (and so whose mind is missing) and delete it with its knot; the single-column
ones only added one trigger check each per inserted row (docs/scaling.md). The ORM keeps the
foreign keys, its joins and its cascades.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("minds", "0002_tables_and_content_types_of_minds"),
        ("synapses", "0004_decay_run"),
    ]

    operations = [
        migrations.AlterField(
            model_name="edge",
            name="mind",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="minds.mind",
            ),
        ),
        migrations.AlterField(
            model_name="edge",
            name="source",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="edges_out",
                to="synapses.knot",
            ),
        ),
        migrations.AlterField(
            model_name="edge",
            name="target",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="edges_in",
                to="synapses.knot",
            ),
        ),
    ]
