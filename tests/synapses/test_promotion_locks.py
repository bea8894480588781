"""Claims never wait: a memory another transaction holds (a write in progress, another worker) is
skipped at once and taken by a later run."""

from __future__ import annotations

import pytest
from django.db import connection

from synapses.models import MemoryKnot
from synapses.promotion.service import memories_promote
from tests.factories import memory_make

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_memory_held_by_another_transaction_is_skipped_without_waiting_and_promoted_later(mind):
    held = memory_make(
        mind=mind.mind, key="held", content="A memory someone is writing right now.", embedded=True, salience=0.9
    )
    free = memory_make(
        mind=mind.mind, key="free", content="Quarterly returns were filed electronically.", embedded=True, salience=0.9
    )
    other = connection.get_new_connection(connection.get_connection_params())
    try:
        with other.cursor() as cursor:  # an open transaction holding the row, as a PATCH would
            cursor.execute("SELECT 1 FROM memories_memory WHERE id = %s FOR UPDATE", [held.pk])
        with connection.cursor() as cursor:  # a claim that waited would fail here instead of hanging
            cursor.execute("SET lock_timeout = '5s'")
        summary = memories_promote(memory_ids=[held.pk, free.pk])
        assert (summary.selected, summary.skipped, summary.created) == (2, 1, 1)
        assert not MemoryKnot.objects.filter(memory=held).exists()
        other.rollback()
    finally:
        other.close()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert memories_promote(memory_ids=[held.pk]).created == 1
