import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """Recall's indexes: a covering index for its counts replaces the plain index of Memory.mind,
    and the order index gains `id`, the last sort key, so a batch of memories sharing one
    updated_at is not sorted on every recall.

    Each new index is built before the one it replaces is dropped.
    """

    dependencies = [
        ("memories", "0004_memory_changed_at"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["mind", "priority_rank", "-updated_at", "id"], name="memory_recall_order_idx"),
        ),
        migrations.RemoveIndex(model_name="memory", name="memory_recall_idx"),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["mind"], include=("verified", "expires_at"), name="memory_count_idx"),
        ),
        migrations.AlterField(
            model_name="memory",
            name="mind",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="memories",
                to="memories.mind",
            ),
        ),
    ]
