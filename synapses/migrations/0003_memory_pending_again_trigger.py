"""A memory whose content changes to a version without a knot link is pending promotion again:
its `promoted_at` is unset by the database, whichever path wrote it (a PATCH, a sync's bulk
update, an import), and set to the link's time when it changes back to a promoted version; so
the promotion sweep finds every pending memory through the memories' partial index on
`promoted_at IS NULL` instead of reading every memory row (docs/synapse-model.md §4)."""

from django.db import migrations

TRIGGER_SQL = """
CREATE FUNCTION synapses_memory_pending_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- When the link of the new content was made (an edit back to a promoted version), else unset.
    NEW.promoted_at := (SELECT link.created_at FROM synapses_memoryknot AS link
                         WHERE link.mind_id = NEW.mind_id AND link.memory_id = NEW.id
                           AND link.content_hash = NEW.content_hash);
    RETURN NEW;
END
$$;
CREATE TRIGGER memory_pending_again BEFORE UPDATE OF content_hash ON memories_memory
    FOR EACH ROW WHEN (OLD.content_hash IS DISTINCT FROM NEW.content_hash)
    EXECUTE FUNCTION synapses_memory_pending_again();
-- The memories whose content changed before the trigger existed.
UPDATE memories_memory AS memory SET promoted_at = NULL
 WHERE promoted_at IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM synapses_memoryknot AS link
        WHERE link.mind_id = memory.mind_id AND link.memory_id = memory.id AND link.content_hash = memory.content_hash);
"""
REVERSE_SQL = """
DROP TRIGGER memory_pending_again ON memories_memory;
DROP FUNCTION synapses_memory_pending_again();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0010_pending_promotion_index"),
        ("synapses", "0002_promotion_attempt"),
    ]

    operations = [migrations.RunSQL(TRIGGER_SQL, REVERSE_SQL)]
