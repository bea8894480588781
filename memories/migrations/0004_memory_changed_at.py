import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    """Memory.changed_at: when the server last wrote the row (what /memory/diff follows).

    Existing rows take their `updated_at`, the best record of their last write; added nullable
    first so the copy happens before the column becomes required.
    """

    dependencies = [
        ("memories", "0003_memory"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="changed_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.RunSQL(
            "UPDATE memories_memory SET changed_at = updated_at",
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name="memory",
            name="changed_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["mind", "changed_at"], name="memory_mind_changed_idx"),
        ),
    ]
