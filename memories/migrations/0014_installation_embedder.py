"""The installation's embedder (one row, written on first use) and each mind's `embedding_model`.

Each existing mind gets the `embedding_model` most of its memories carry, so a server that now
runs another embedder (the default for new installations changed from hashing to minilm-onnx)
refuses to mix its vectors into the mind instead of storing them beside the old ones. Minds
without vectors stay empty and take the name of their first vector. Reversible: the table goes;
minds 0003 drops the column.
"""

import django.utils.timezone
from django.db import migrations, models

MIND_EMBEDDING_MODEL_FILL_SQL = """
UPDATE minds_mind AS mind SET embedding_model = (
    SELECT memory.embedding_model FROM memories_memory AS memory
     WHERE memory.mind_id = mind.id AND memory.embedding IS NOT NULL AND memory.embedding_model <> ''
     GROUP BY memory.embedding_model ORDER BY count(*) DESC, memory.embedding_model LIMIT 1)
 WHERE EXISTS (SELECT 1 FROM memories_memory AS memory
                WHERE memory.mind_id = mind.id AND memory.embedding IS NOT NULL AND memory.embedding_model <> '');
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0013_erasure"),
        ("minds", "0004_mind_embedding_model"),
    ]

    operations = [
        migrations.CreateModel(
            name="InstallationEmbedder",
            fields=[
                ("id", models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False)),
                ("backend", models.CharField(max_length=40)),
                ("recorded_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("id", 1)), name="installation_embedder_one_row")
                ],
            },
        ),
        migrations.RunSQL(MIND_EMBEDDING_MODEL_FILL_SQL, migrations.RunSQL.noop),
    ]
