from django.db import migrations
from pgvector.django import VectorExtension


class Migration(migrations.Migration):
    """The vector extension comes first: later migrations add vector columns and HNSW indexes."""

    initial = True
    dependencies: list = []
    operations = [VectorExtension()]
