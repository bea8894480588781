"""`promoted_at` is no longer stored: the memory object derives it from the net's link of the
current content, and the pending-promotion table (0011) replaces the partial index on it.

Runs after the net's migration that replaced the trigger writing the column (synapses 0006).
Reversible: the column comes back filled from the links (the link of each memory's current content).
"""

from django.db import migrations, models

PROMOTED_AT_FILL_SQL = """
UPDATE memories_memory AS memory SET promoted_at = link.created_at
  FROM synapses_memoryknot AS link
 WHERE link.mind_id = memory.mind_id AND link.memory_id = memory.id AND link.content_hash = memory.content_hash;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0011_pending_promotion"),
        ("synapses", "0006_pending_promotion_triggers"),
    ]

    operations = [
        # Reversed last: the restored column filled once it and its index are back.
        migrations.RunSQL(migrations.RunSQL.noop, PROMOTED_AT_FILL_SQL),
        migrations.RemoveIndex(model_name="memory", name="memory_pending_idx"),
        migrations.RemoveField(model_name="memory", name="promoted_at"),
    ]
