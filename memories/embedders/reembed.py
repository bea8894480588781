"""Re-embedding a mind's memories with the configured embedder (after switching backends).

Used by `manage.py reembed`. It works in batches, each its own short transaction, so a long
run holds no lock for long, can be interrupted and simply be started again: memories already
carrying the current embedder's name are skipped (unless forced).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from memories.embedders import get_embedder
from memories.embedders.installation import mind_embedder_settle
from memories.lifecycle import MemoryEvent, memories_changed
from memories.models import Memory
from minds.models import Mind
from pipelinelog.spans import span

# Memories embedded and written per batch (rows). Large enough for the model's batching,
# small enough that one transaction stays short.
REEMBED_BATCH_SIZE = 256


@dataclass(frozen=True)
class ReembedResult:
    embedder: str
    total: int  # memories that needed a new vector when the run started
    reembedded: int
    # Changed by someone else between our read and our write: their write embedded the new content.
    skipped_changed: int
    # Every vector of the mind now comes from this embedder, and the mind records it (its guard).
    settled: bool


def memories_reembed(
    *,
    mind_id: str,
    batch_size: int = REEMBED_BATCH_SIZE,
    force: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> ReembedResult:
    """Give the mind's memories vectors of the current embedder; `on_progress(done, total)` after each batch.

    Only memories without a vector or with another `embedding_model` are touched, unless `force`.
    """
    embedder = get_embedder()
    pending = Memory.objects.filter(mind_id=mind_id)
    if not force:
        pending = pending.filter(Q(embedding__isnull=True) | ~Q(embedding_model=embedder.name))
    total = pending.count()
    # The mind moves to this embedder now: a server already running it may store meanwhile, one
    # still running the old embedder is refused (its vectors would outlive the run).
    Mind.objects.filter(pk=mind_id).update(embedding_model=embedder.name)
    done = skipped = 0
    last_pk = ""
    with span("memories.reembed", mind=mind_id) as log:
        log.input({"mind_id": mind_id, "embedder": embedder.name, "force": force, "batch_size": batch_size})
        while True:
            # Keyset paging by primary key: rows that were just re-embedded drop out of `pending`
            # without shifting the pages, and `force` runs still visit every row once.
            batch = list(
                pending.filter(pk__gt=last_pk).order_by("pk").values_list("pk", "content", "content_hash")[:batch_size]
            )
            if not batch:
                break
            last_pk = batch[-1][0]
            vectors = embedder.embed([content for _, content, _ in batch])
            written = _write_batch(mind_id, batch, vectors, embedder.name)
            log.db_write(
                {
                    "table": Memory._meta.db_table,
                    "operation": "update",
                    "fields": ["embedding", "embedding_model"],
                    "rows": written,
                }
            )
            done += written
            skipped += len(batch) - written
            if on_progress is not None:
                on_progress(done + skipped, total)
        settled = mind_embedder_settle(mind_id, embedder.name)
        log.output({"reembedded": done, "skipped_changed": skipped, "settled": settled})
    return ReembedResult(embedder=embedder.name, total=total, reembedded=done, skipped_changed=skipped, settled=settled)


@transaction.atomic
def _write_batch(mind_id: str, batch: list[tuple[str, str, str]], vectors, model_name: str) -> int:
    """Store the vectors of the rows whose content is still what was embedded; return how many."""
    embedded_hash = {pk: content_hash for pk, _, content_hash in batch}
    vector_of = {pk: vectors[index] for index, (pk, _, _) in enumerate(batch)}
    # Only what the check reads: the new vector and model name are assigned, never read.
    locked = Memory.objects.select_for_update().filter(mind_id=mind_id, pk__in=list(embedded_hash))
    rows = list(locked.only("pk", "content_hash"))
    unchanged = [row for row in rows if row.content_hash == embedded_hash[row.pk]]
    for row in unchanged:
        row.embedding, row.embedding_model = vector_of[row.pk], model_name
    Memory.objects.bulk_update(unchanged, ["embedding", "embedding_model"])
    memories_changed(event=MemoryEvent.REEMBEDDED, mind_id=mind_id, memory_ids=[row.pk for row in unchanged])
    return len(unchanged)
