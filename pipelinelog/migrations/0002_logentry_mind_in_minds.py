"""The log's foreign key names `minds.Mind` (the model moved out of memories; its table is the same).

State only: the constraint in the database already points at the minds table.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("minds", "0001_initial"),
        ("pipelinelog", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name="logentry",
                    name="mind",
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="log_entries", to="minds.mind"),
                ),
            ],
        ),
    ]
