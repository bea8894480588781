"""Mind, MindKey and MindShare leave the memories app for `minds` (its 0001 took them over).

State only: the foreign keys of Memory, MemoryAudit and IdempotencyRecord now name `minds.Mind`;
in the database they already point at the minds table, which is not touched here. Then the
three models leave this app's state. See docs/architecture.md.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0005_memory_count_index"),
        ("minds", "0001_initial"),
        # The log's foreign key must name minds.Mind before memories.Mind leaves the state.
        ("pipelinelog", "0002_logentry_mind_in_minds"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name="memory",
                    name="mind",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="memories", to="minds.mind"),
                ),
                migrations.AlterField(
                    model_name="memoryaudit",
                    name="mind",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="audit_rows", to="minds.mind"),
                ),
                migrations.AlterField(
                    model_name="idempotencyrecord",
                    name="mind",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="minds.mind"),
                ),
                migrations.DeleteModel(name="MindShare"),
                migrations.DeleteModel(name="MindKey"),
                migrations.DeleteModel(name="Mind"),
            ],
        ),
    ]
