"""PENDING_MEMORIES_SQL, the SQL form of pending_filter, holds the same memories as the ORM's
(memories.models): the one definition of pending promotion, written twice, held together here."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.utils import timezone

from memories.models import PENDING_MEMORIES_SQL, Memory, pending_filter
from tests.factories import knot_make, memory_make

# The ids the SQL form holds of one mind (written whole at import, as the project's statements are).
PENDING_IDS_SQL = f"SELECT memory.id FROM {PENDING_MEMORIES_SQL}"  # noqa: S608 — the definition, at import


def test_the_sql_form_of_pending_finds_exactly_the_orms_pending_memories(mind, other_mind):
    m = mind.mind
    now = timezone.now()
    waiting = memory_make(mind=m, content="stored a moment ago")
    memory_make(mind=m, content="expired while waiting", expires_at=now - timedelta(hours=1))
    expiring_later = memory_make(mind=m, content="expires tomorrow", expires_at=now + timedelta(days=1))
    knot_make(memory=memory_make(mind=m, content="promoted already"), linked=True)
    memory_make(mind=other_mind.mind, content="another mind's")
    with connection.cursor() as cursor:
        cursor.execute(PENDING_IDS_SQL, {"mind_id": m.pk, "now": now})
        by_sql = {row[0] for row in cursor.fetchall()}
    by_orm = set(Memory.objects.filter(pending_filter(now), mind=m).values_list("pk", flat=True))
    assert by_sql == by_orm == {waiting.pk, expiring_later.pk}
