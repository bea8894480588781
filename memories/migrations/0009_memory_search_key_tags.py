import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.functions.comparison
from django.db import migrations, models

import memories.models


class Migration(migrations.Migration):
    """Full text covers the key's words and the tags as well as the content.

    PostgreSQL cannot change a generated column's expression in place, so the column (and the two
    GIN indexes on it) is dropped and added again; adding it computes it for every row. Only the
    mind-leading GIN index comes back: every text query filters by mind (docs/search.md).
    """

    dependencies = [("memories", "0008_memory_mind_search_index")]

    operations = [
        migrations.RemoveIndex(model_name="memory", name="memory_mind_search_gin"),
        migrations.RemoveIndex(model_name="memory", name="memory_search_gin"),
        migrations.RemoveField(model_name="memory", name="search_vector"),
        migrations.AddField(
            model_name="memory",
            name="search_vector",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.CombinedSearchVector(
                    django.contrib.postgres.search.CombinedSearchVector(
                        django.contrib.postgres.search.CombinedSearchVector(
                            django.contrib.postgres.search.CombinedSearchVector(
                                django.contrib.postgres.search.SearchVector("content", config="simple"),
                                "||",
                                django.contrib.postgres.search.SearchVector("content", config="english"),
                                django.contrib.postgres.search.SearchConfig("simple"),
                            ),
                            "||",
                            django.contrib.postgres.search.SearchVector("content", config="german"),
                            django.contrib.postgres.search.SearchConfig("simple"),
                        ),
                        "||",
                        django.contrib.postgres.search.SearchVector("key", config="simple"),
                        django.contrib.postgres.search.SearchConfig("simple"),
                    ),
                    "||",
                    memories.models.ArrayToTsvector(
                        django.db.models.functions.comparison.Cast(
                            "tags", django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), size=None)
                        )
                    ),
                    django.contrib.postgres.search.SearchConfig("simple"),
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["mind", "search_vector"], name="memory_mind_search_gin"
            ),
        ),
    ]
