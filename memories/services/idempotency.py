"""`Idempotency-Key`: a repeated write within 24 h replays the first response instead of running again.

Keys are scoped by mind. The first request inserts its record inside the same transaction as its
write; a concurrent request with the same key blocks on the unique index until the first one
commits (then it replays the first response) or rolls back (then it runs itself). Only successful
responses are recorded: a request that failed (400, 409, …) wrote nothing, so retrying it runs it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from memories.models import IdempotencyRecord, Memory
from memoryproject.core.domain import Conflict, NotFound
from minds.models import Mind
from pipelinelog.spans import current_span

# How long a key is remembered; older records are ignored and purged daily.
IDEMPOTENCY_WINDOW = timedelta(hours=24)
# Attempts to claim a key: the second one finds the record a concurrent request committed.
_CLAIM_ATTEMPTS = 2
# response_status of a claimed record whose request has not finished; never visible outside its transaction.
_PENDING_STATUS = 0


@dataclass(frozen=True)
class IdempotentResponse:
    status: int
    body: dict
    replayed: bool


def idempotency_request_hash(*, method: str, path: str, body: object) -> str:
    """sha256 of the request: method, path (trailing slash ignored) and the JSON body in canonical
    form, so spacing and key order do not make "the same body" different."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = f"{method.upper()} {path.rstrip('/') or '/'}\n{canonical}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _recorded_memory_ids(body: dict) -> list[str]:
    """The memories a recorded response names: `id` of a store, `results[].id` of a sync."""
    if isinstance(body.get("id"), str):
        return [body["id"]]
    results = body.get("results")
    if not isinstance(results, list):
        return []
    return [item["id"] for item in results if isinstance(item, dict) and isinstance(item.get("id"), str)]


def _replay(record: IdempotencyRecord, request_hash: str) -> IdempotentResponse:
    if record.request_hash != request_hash:
        raise Conflict(
            "This Idempotency-Key was used in the last 24 hours for a different request (another body or "
            "path). Send a new key for a new request, or repeat the first request exactly."
        )
    # A replay answers what the first request did; once a memory it stored is deleted, that answer
    # would hand out a dead id as if it were stored (201). The write is not run again either — the
    # client asked for at most once — so the answer is that the memory is gone.
    named = set(_recorded_memory_ids(record.response_body))
    if named:
        alive = set(Memory.objects.filter(mind_id=record.mind_id, pk__in=named).values_list("pk", flat=True))
        deleted = sorted(named - alive)
        if deleted:
            raise NotFound(
                f"The memory this Idempotency-Key stored ({', '.join(deleted[:3])}) has been deleted since, so its "
                "response is not replayed and the write does not run again. Send a new key to store it again."
            )
    current_span().decision({"decision": "idempotency.replay", "key_record": record.pk})
    return IdempotentResponse(status=record.response_status, body=record.response_body, replayed=True)


@transaction.atomic
def idempotency_run(
    *, mind: Mind, key: str, request_hash: str, execute: Callable[[], tuple[int, dict]]
) -> IdempotentResponse:
    """Replay the response recorded for (`mind`, `key`) within the window, or run `execute` (which
    returns status and JSON body) and record its response, atomically with what it wrote.

    The same key with a different `request_hash` is a 409. An exception from `execute` rolls back
    its writes and the claim on the key.
    """
    for _attempt in range(_CLAIM_ATTEMPTS):
        now = timezone.now()
        record = IdempotencyRecord.objects.select_for_update().filter(mind=mind, key=key).first()
        if record is not None:
            if record.created_at >= now - IDEMPOTENCY_WINDOW:
                return _replay(record, request_hash)
            record.delete()  # from an earlier window: forgotten, the key is free again
        try:
            with transaction.atomic():  # a savepoint: losing the race must not abort the transaction
                record = IdempotencyRecord.objects.create(
                    mind=mind,
                    key=key,
                    request_hash=request_hash,
                    response_status=_PENDING_STATUS,
                    response_body={},
                    created_at=now,
                )
        except IntegrityError:
            continue  # a concurrent request with this key committed first (we waited for it): replay it
        status, body = execute()
        record.response_status, record.response_body = status, body
        record.save(update_fields=["response_status", "response_body"])
        current_span().db_write({"table": IdempotencyRecord._meta.db_table, "operation": "insert", "id": record.pk})
        return IdempotentResponse(status=status, body=body, replayed=False)
    raise Conflict("Another request with this Idempotency-Key is being processed; retry in a moment.")


def idempotency_records_purge(*, now: datetime | None = None) -> int:
    """Delete records older than the window (the daily schedule calls this); return how many."""
    cutoff = (now or timezone.now()) - IDEMPOTENCY_WINDOW
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
