"""Pending promotion becomes a table kept true by the database (memories.PendingPromotion),
replacing the memories' `promoted_at` and migration 0003's trigger that kept it.

A row exists exactly while a memory's current content has no MemoryKnot link, whoever writes:
- a memory inserted (a store, a sync, an import, COPY) is pending unless a link holds its content;
- a memory whose content hash changes (a PATCH, a sync's bulk update, an import) is pending for
  the new content, or not at all when a link holds it already (an edit back to a promoted version);
- a link made (a promotion, an import of the net's sections) ends its version's wait;
- a link deleted (its knot went with the knot's own memory) makes its memory pending again when
  the link was of the memory's current content.
The memories' triggers fire per statement on INSERT (one set-based insert for a bulk write) and per
row only when the content hash changed; a promotion writes no memory row at all, where its UPDATE
of `promoted_at` had written a new tuple into every index of the memories (the column was in the
pending index's predicate, so it was never a HOT update).

The data migration: a row for every memory without a link for its current content hash, `since`
its last write on this server (`changed_at`).
"""

from django.db import migrations

FORWARD_SQL = """
DROP TRIGGER memory_pending_again ON memories_memory;
DROP FUNCTION synapses_memory_pending_again();

CREATE FUNCTION synapses_memories_pending_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memories_pendingpromotion (memory_id, mind_id, content_hash, since)
    SELECT memory.id, memory.mind_id, memory.content_hash, now()
      FROM inserted_memories AS memory
     WHERE NOT EXISTS (SELECT 1 FROM synapses_memoryknot AS link
                        WHERE link.mind_id = memory.mind_id AND link.memory_id = memory.id
                          AND link.content_hash = memory.content_hash)
    ON CONFLICT (memory_id) DO NOTHING;
    RETURN NULL;
END
$$;
CREATE TRIGGER memories_pending_inserted AFTER INSERT ON memories_memory
    REFERENCING NEW TABLE AS inserted_memories
    FOR EACH STATEMENT EXECUTE FUNCTION synapses_memories_pending_inserted();

CREATE FUNCTION synapses_memory_pending_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM synapses_memoryknot AS link
                WHERE link.mind_id = NEW.mind_id AND link.memory_id = NEW.id
                  AND link.content_hash = NEW.content_hash) THEN
        DELETE FROM memories_pendingpromotion WHERE memory_id = NEW.id;
    ELSE
        INSERT INTO memories_pendingpromotion (memory_id, mind_id, content_hash, since)
        VALUES (NEW.id, NEW.mind_id, NEW.content_hash, now())
        ON CONFLICT (memory_id) DO UPDATE
           SET mind_id = EXCLUDED.mind_id, content_hash = EXCLUDED.content_hash, since = EXCLUDED.since;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER memory_pending_changed AFTER UPDATE OF content_hash ON memories_memory
    FOR EACH ROW WHEN (OLD.content_hash IS DISTINCT FROM NEW.content_hash)
    EXECUTE FUNCTION synapses_memory_pending_changed();

CREATE FUNCTION synapses_links_made() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memories_pendingpromotion AS pending
     USING made_links AS link
     WHERE pending.memory_id = link.memory_id AND pending.content_hash = link.content_hash;
    RETURN NULL;
END
$$;
CREATE TRIGGER links_made AFTER INSERT ON synapses_memoryknot
    REFERENCING NEW TABLE AS made_links
    FOR EACH STATEMENT EXECUTE FUNCTION synapses_links_made();

CREATE FUNCTION synapses_links_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memories_pendingpromotion (memory_id, mind_id, content_hash, since)
    SELECT memory.id, memory.mind_id, memory.content_hash, now()
      FROM gone_links AS link
      JOIN memories_memory AS memory
        ON memory.id = link.memory_id AND memory.content_hash = link.content_hash
    ON CONFLICT (memory_id) DO NOTHING;
    RETURN NULL;
END
$$;
CREATE TRIGGER links_gone AFTER DELETE ON synapses_memoryknot
    REFERENCING OLD TABLE AS gone_links
    FOR EACH STATEMENT EXECUTE FUNCTION synapses_links_gone();

INSERT INTO memories_pendingpromotion (memory_id, mind_id, content_hash, since)
SELECT memory.id, memory.mind_id, memory.content_hash, memory.changed_at
  FROM memories_memory AS memory
 WHERE NOT EXISTS (SELECT 1 FROM synapses_memoryknot AS link
                    WHERE link.mind_id = memory.mind_id AND link.memory_id = memory.id
                      AND link.content_hash = memory.content_hash)
ON CONFLICT (memory_id) DO NOTHING;
"""

# Back to migration 0003's trigger (memories 0012, reversed first, has restored `promoted_at`).
REVERSE_SQL = """
DROP TRIGGER links_gone ON synapses_memoryknot;
DROP FUNCTION synapses_links_gone();
DROP TRIGGER links_made ON synapses_memoryknot;
DROP FUNCTION synapses_links_made();
DROP TRIGGER memory_pending_changed ON memories_memory;
DROP FUNCTION synapses_memory_pending_changed();
DROP TRIGGER memories_pending_inserted ON memories_memory;
DROP FUNCTION synapses_memories_pending_inserted();
DELETE FROM memories_pendingpromotion;

CREATE FUNCTION synapses_memory_pending_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.promoted_at := (SELECT link.created_at FROM synapses_memoryknot AS link
                         WHERE link.mind_id = NEW.mind_id AND link.memory_id = NEW.id
                           AND link.content_hash = NEW.content_hash);
    RETURN NEW;
END
$$;
CREATE TRIGGER memory_pending_again BEFORE UPDATE OF content_hash ON memories_memory
    FOR EACH ROW WHEN (OLD.content_hash IS DISTINCT FROM NEW.content_hash)
    EXECUTE FUNCTION synapses_memory_pending_again();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0011_pending_promotion"),
        ("synapses", "0005_edge_redundant_fks"),
    ]

    operations = [migrations.RunSQL(FORWARD_SQL, REVERSE_SQL)]
