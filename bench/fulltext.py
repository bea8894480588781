"""The product's full-text ranking alone: hybrid search's text list, as the benchmarks compare it
with BM25 and time it (the product itself always fuses it with the vector list)."""

from __future__ import annotations


def text_ranking(*, mind_id: str, q: str, limit: int) -> list[str]:
    """The ids of the mind's memories that match `q` by full text alone, best first (ts_rank_cd,
    then most recently updated, then id): at most `limit`, expired memories left out. The very
    statement hybrid search runs for its text list (memories.selectors.sql.TEXT_SQL)."""
    from django.db import connection
    from django.utils import timezone

    from memories.selectors.search import tsquery_params
    from memories.selectors.sql import TEXT_SQL

    params = {"mind_id": mind_id, "now": timezone.now(), **tsquery_params(q), "candidates": limit}
    with connection.cursor() as cursor:
        cursor.execute(TEXT_SQL, params)
        return [row[0] for row in cursor.fetchall()]
