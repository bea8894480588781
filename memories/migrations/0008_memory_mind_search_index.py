import django.contrib.postgres.indexes
from django.contrib.postgres.operations import BtreeGinExtension
from django.db import migrations


class Migration(migrations.Migration):
    """Search by mind: the vector stays in the row, and full text gets a mind-leading GIN index.

    pgvector's `vector` type defaults to EXTERNAL storage: a row with a 384-dim vector (1.5 kB) next
    to its content and tsvector passes PostgreSQL's 2 kB TOAST threshold, so the vector moved to
    the TOAST table and an exact scan of a mind read three pages per row (measured on 10,000
    rows: 31,076 buffers, 133 ms; PLAIN: 2,500 buffers, 32 ms — docs/search.md). PLAIN keeps it
    inline; rows written before keep their layout until rewritten (`VACUUM FULL memories_memory`).

    `btree_gin` lets one GIN index lead with the mind (a varchar) before the words.
    """

    dependencies = [("memories", "0007_memory_salience_given")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE memories_memory ALTER COLUMN embedding SET STORAGE PLAIN",
            reverse_sql="ALTER TABLE memories_memory ALTER COLUMN embedding SET STORAGE EXTERNAL",
        ),
        BtreeGinExtension(),
        migrations.AddIndex(
            model_name="memory",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["mind", "search_vector"], name="memory_mind_search_gin"
            ),
        ),
    ]
