from django.db import migrations


class Migration(migrations.Migration):
    """Vector search keeps the vector in the row.

    pgvector's `vector` type defaults to EXTERNAL storage: a row with a 384-dim vector (1.5 kB) next
    to its content and tsvector passes PostgreSQL's 2 kB TOAST threshold, so the vector moved to
    the TOAST table and an exact scan of a mind read three pages per row (measured on 10,000
    rows: 31,076 buffers, 133 ms; PLAIN: 2,500 buffers, 32 ms — docs/search.md). PLAIN keeps it
    inline; rows written before keep their layout until rewritten (`VACUUM FULL memories_memory`).
    """

    dependencies = [("memories", "0005_memory_count_index")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE memories_memory ALTER COLUMN embedding SET STORAGE PLAIN",
            reverse_sql="ALTER TABLE memories_memory ALTER COLUMN embedding SET STORAGE EXTERNAL",
        ),
    ]
