"""Promotion: mature memories become knots of the long-term net (docs/synapse-model.md §4).

    memories_promote(memory_ids=…, mind_id=…, now_all=…, limit=…)  a run: the task, the sweep, the command
    batch_promote(candidates, now_all=…, size=…)                    one batch: claim, lock, promote, commit

What is pending and mature, and how a batch is claimed and locked: synapses.promotion.select.

Claims: a run takes its selection PROMOTION_CLAIM_SIZE memories at a time, each batch claimed in
one `SELECT … FOR UPDATE SKIP LOCKED` and promoted in one transaction, each memory in a savepoint
of its own; any number of workers share a backlog, none waits for another and two take different
memories. A worker that dies mid-batch leaves nothing behind (the transaction rolls back) and the
batch is pending for the next run. `pg_advisory_xact_lock` on (mind, content hash) of every
memory of the batch, taken in key order before any work, serialises the match test and the
creation for one content: two memories of the same content promoted at the same moment make one
knot, and the second links to it as a duplicate (within one batch too). The unique constraints
on (memory, content hash) of knots and links catch what no lock covers (a worker whose claim
raced a commit) and that promotion counts as skipped.

Failures are counted per memory version in PromotionAttempt and logged as `error`; after
PROMOTION_MAX_ATTEMPTS the version is parked. An embedder that is down is not the memory's
fault: the run stops, counts nothing, and the memories stay pending.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from enum import StrEnum

from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from memories.models import Memory
from memoryproject.core.domain import Unavailable
from pipelinelog.spans import STATUS_ERROR, Span, span
from synapses.config import synapse_settings
from synapses.constants import PROMOTION_CLAIM_SIZE
from synapses.events import KnotEvent, knots_changed
from synapses.models import KnotPresence, LinkKind
from synapses.net.edges import knot_edges_form
from synapses.net.presence import knot_half_reactivate
from synapses.net.selectors.candidates import NetFacts
from synapses.promotion.entities import explicit_names_create, memory_entities_resolve
from synapses.promotion.knots import embedding_ensure, knot_create, link_create, nearest_other_knots
from synapses.promotion.match import match_pick
from synapses.promotion.select import Candidate, batch_claim, candidates_select, locks_take
from synapses.promotion.sql import ATTEMPT_SQL

logger = logging.getLogger(__name__)

# The unique constraints that say "this memory version is promoted already" when an insert hits them.
_PROMOTED_ALREADY = frozenset({"knot_unique_memory_version", "memoryknot_unique_memory_version"})
# Characters of a failure's message kept in PromotionAttempt.last_error and the log (characters).
_ERROR_CHARS = 500


class Outcome(StrEnum):
    """What one promotion did."""

    CREATED = "created"  # a new knot (and its edges)
    DUPLICATE = "duplicate"  # linked to an active knot of another memory; nothing strengthened
    REACTIVATED = "reactivated"  # linked to an inactive knot, which came back at half presence
    SKIPPED = "skipped"  # not pending any more, or another worker holds or just promoted it
    FAILED = "failed"  # counted in PromotionAttempt; the next sweep tries again
    PARKED = "parked"  # failed for the last allowed time; left alone until someone looks
    DEFERRED = "deferred"  # the embedder is down: nothing counted, the run stops


class PromotionFailed(Exception):
    """A precondition of promotion does not hold for this memory version."""


@dataclass(frozen=True)
class PromotionOutcome:
    memory_id: str
    outcome: Outcome
    knot_id: int | None = None
    cosine: float | None = None  # of the match test's nearest knot, when there was one
    pairs_written: int = 0
    error: str = ""


@dataclass
class PromotionSummary:
    selected: int = 0  # pending, mature memories the run took up
    not_pending: int = 0  # asked-for ids that were promoted, immature, expired, parked or gone
    created: int = 0
    duplicates: int = 0
    reactivated: int = 0
    skipped: int = 0
    failed: int = 0
    parked: int = 0
    deferred: int = 0
    pairs_written: int = 0
    stopped: str = ""  # why the run ended early (the embedder's error), or ""

    def add(self, result: PromotionOutcome) -> None:
        counter = {
            Outcome.CREATED: "created",
            Outcome.DUPLICATE: "duplicates",
            Outcome.REACTIVATED: "reactivated",
            Outcome.SKIPPED: "skipped",
            Outcome.FAILED: "failed",
            Outcome.PARKED: "parked",
            Outcome.DEFERRED: "deferred",
        }[result.outcome]
        setattr(self, counter, getattr(self, counter) + 1)
        self.pairs_written += result.pairs_written

    def as_dict(self) -> dict[str, int | str]:
        return asdict(self)


def _entities_create(memories: list[Memory], now: datetime) -> dict[str, set[str]]:
    """The batch's explicit names, created once per mind in (mind, key) order before any memory's
    own work (synapses.promotion.entities.explicit_names_create): per mind, the keys created."""
    names: dict[str, list[str]] = {}
    for memory in memories:
        names.setdefault(memory.mind_id, []).extend(memory.entities or ())
    return {mind_id: explicit_names_create(mind_id=mind_id, names=names[mind_id], now=now) for mind_id in sorted(names)}


def _promote_claimed(
    memory: Memory, sp: Span, now: datetime, created_keys: set[str], facts: NetFacts
) -> PromotionOutcome:
    """The promotion of one claimed memory, inside its batch's transaction (its locks taken, its
    explicit names created; `facts` what the batch learned of the net so far)."""
    if not memory.content.strip():
        raise PromotionFailed("the memory has no content")
    embedding_ensure(memory, sp)
    threshold = synapse_settings.MATCH_THRESHOLD
    near = nearest_other_knots(mind_id=memory.mind_id, memory_id=memory.pk, vector=memory.embedding, facts=facts)
    nearest = near[0] if near else None
    choice = match_pick(memory.content, near, threshold)
    match = choice.matched
    decision = {
        "decision": "promotion.match",
        "threshold": threshold,
        "nearest_knot_id": nearest.knot_id if nearest else None,
        "cosine": round(nearest.cosine, 6) if nearest else None,
        "plan": nearest.plan if nearest else None,
        **choice.as_log(),
    }

    if match is not None and not match.is_active:
        # Locked and re-read: a worker reactivating the same knot at this moment makes it a duplicate.
        presences = KnotPresence.objects.select_for_update(of=("self",)).select_related("knot")
        presence = presences.get(knot_id=match.knot_id)
        if not presence.is_active:
            before = presence.weight_present
            knot_half_reactivate(presence=presence, now=now)
            link_create(memory, match.knot_id, LinkKind.REACTIVATED, now)
            sp.decision(
                {
                    **decision,
                    "outcome": Outcome.REACTIVATED,
                    "weight_anchor": presence.knot.weight_anchor,
                    "presence_before": before,
                    "presence_after": presence.weight_present,
                }
            )
            return PromotionOutcome(memory.pk, Outcome.REACTIVATED, knot_id=match.knot_id, cosine=match.cosine)
    if match is not None:
        link_create(memory, match.knot_id, LinkKind.DUPLICATE, now)
        sp.decision({**decision, "outcome": Outcome.DUPLICATE})
        return PromotionOutcome(memory.pk, Outcome.DUPLICATE, knot_id=match.knot_id, cosine=match.cosine)

    sp.decision({**decision, "outcome": Outcome.CREATED})
    # The magnets only for a new knot: a duplicate or a reactivation joins a knot whose magnets
    # were resolved when it was created (the batch has created the explicit names already).
    entities = memory_entities_resolve(
        mind_id=memory.mind_id, names=list(memory.entities), content=memory.content, now=now,
        created_keys=created_keys,
    )  # fmt: skip
    knot = knot_create(memory, entity_ids=entities.ids, now=now)
    sp.calculation(
        {
            "step": "magnets",
            "entity_ids": entities.ids,
            "explicit_names": entities.explicit,
            "found_in_content": entities.found_in_content,
            "entities_created": entities.created,
            "themes": knot.themes,
            "event_time": knot.event_time,
            "event_precision": knot.event_precision,
        }
    )
    sp.db_write(
        {"table": "synapses_knot", "operation": "insert", "id": knot.pk, "weight_raw": knot.weight_raw,
         "weight_anchor": knot.weight_anchor}
    )  # fmt: skip
    formed = knot_edges_form(knot=knot, facts=facts)
    sp.db_write(
        {
            "table": "synapses_edge",
            "operation": "insert",
            "candidates": formed.candidates,
            "pairs_firing": formed.pairs_firing,
            "pairs_written": formed.pairs_written,
            "layer_counts": formed.layer_counts,
        }
    )
    return PromotionOutcome(
        memory.pk,
        Outcome.CREATED,
        knot_id=knot.pk,
        cosine=nearest.cosine if nearest else None,
        pairs_written=formed.pairs_written,
    )


@dataclass(frozen=True)
class Attempts:
    """A memory version's failures so far, and whether they parked it."""

    count: int
    parked: bool


def _failure_record(candidate: Candidate, error: str, now: datetime) -> Attempts:
    """Count the failure (its own transaction, after the promotion's rolled back)."""
    params = {
        "mind": candidate.mind_id,
        "memory": candidate.memory_id,
        "hash": candidate.content_hash,
        "error": error,
        "max": synapse_settings.PROMOTION_MAX_ATTEMPTS,
        "now": now,
    }
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(ATTEMPT_SQL, params)
            attempts = Attempts(*cursor.fetchone())
    except DatabaseError:
        # The memory was deleted meanwhile (nothing left to count), or the database failed again:
        # the failure stays uncounted and the memory pending, and the batch goes on.
        logger.warning("promotion failure of memory %s not counted", candidate.memory_id, exc_info=True)
        return Attempts(count=0, parked=False)
    return attempts


def _constraint_of(error: IntegrityError) -> str | None:
    diag = getattr(error.__cause__, "diag", None)
    return getattr(diag, "constraint_name", None)


def _claimed_promote(
    candidate: Candidate, memory: Memory, *, now: datetime, now_all: bool, created_keys: set[str], facts: NetFacts
) -> PromotionOutcome:
    """Promote one claimed memory in a savepoint of its batch: check it, resolve its magnets,
    match, link or create (§4). One `synapses.promotion` span with every decision and number.

    A failure rolls back this memory's work only and is counted; an embedder that is down defers
    it; a connection lost mid-way ends the batch (its transaction is gone: every memory of it
    stays pending, and none is the memory's fault).
    """
    with span("synapses.promotion", mind=candidate.mind_id) as sp:
        sp.input(
            {
                "memory_id": candidate.memory_id,
                "content_hash": candidate.content_hash,
                "memory_turn_id": candidate.turn_id or None,
                "now_all": now_all,
            }
        )
        sp.input({"salience": memory.salience, "verified": memory.verified, "updated_at": memory.updated_at})
        try:
            with transaction.atomic():
                result = _promote_claimed(memory, sp, now, created_keys, facts)
        except Unavailable as error:
            sp.error({"step": "embedding", "type": type(error).__name__, "message": str(error)[:_ERROR_CHARS]})
            sp.set_status(STATUS_ERROR)
            sp.output({"outcome": Outcome.DEFERRED})
            return PromotionOutcome(candidate.memory_id, Outcome.DEFERRED, error=str(error)[:_ERROR_CHARS])
        except IntegrityError as error:
            if _constraint_of(error) not in _PROMOTED_ALREADY:
                return _failed(candidate, error, sp, now)
            sp.decision({"decision": "promotion.claim", "outcome": Outcome.SKIPPED,
                         "reason": "another worker promoted this version first"})  # fmt: skip
            return PromotionOutcome(candidate.memory_id, Outcome.SKIPPED)
        except (OperationalError, InterfaceError):
            raise
        except Exception as error:  # counted and logged; the memory is retried or parked, never lost
            return _failed(candidate, error, sp, now)
        sp.output({"outcome": result.outcome, "knot_id": result.knot_id, "pairs_written": result.pairs_written})
        return result


def _knots_created_send(claimed: list[Memory], results: list[PromotionOutcome]) -> None:
    """One `knot.created` per mind of the batch, naming every knot the batch created in it (in
    promotion order), sent inside the batch's transaction: the webhooks record one delivery per
    batch, not one per knot (each record is a statement)."""
    mind_of = {memory.pk: memory.mind_id for memory in claimed}
    created: dict[str, list[int]] = {}
    for result in results:
        if result.outcome is Outcome.CREATED and result.knot_id is not None:
            created.setdefault(mind_of[result.memory_id], []).append(result.knot_id)
    for mind_id in sorted(created):
        knots_changed.send(sender=KnotEvent, event=KnotEvent.CREATED, mind_id=mind_id, knot_ids=tuple(created[mind_id]))


@dataclass(frozen=True)
class BatchResult:
    """What one batch did: the ids it claimed (in promotion order) and the outcome of each
    memory it promoted (fewer than claimed when it stopped at a deferred one)."""

    claimed: list[str]
    outcomes: list[PromotionOutcome]


def batch_promote(
    candidates: list[Candidate],
    *,
    now_all: bool = False,
    size: int = PROMOTION_CLAIM_SIZE,
    facts: NetFacts | None = None,
) -> BatchResult:
    """Claim up to `size` of `candidates` and promote them in one transaction: one claim, one lock
    statement, the batch's new entity names, each memory in its savepoint, one `knot.created` per
    mind, one commit (a link's insert ends its memory's wait: the database deletes the pending
    row in the same statement). What the batch learns of the net on the way
    (synapses.net.selectors.candidates.NetFacts; `facts`, the run's, when given) spares its later
    memories, and the run's later batches, the same counts. It stops after a deferred memory (the
    embedder is down), leaving the rest of the batch pending; nothing claimed (every candidate
    promoted meanwhile, changed or held by another worker) is an empty result.

    A worker killed mid-batch leaves every memory of the batch pending (the transaction rolls
    back); memories of the same content within one batch are promoted one after the other, and
    the second finds the first's knot, as two batches do under the advisory lock.
    """
    now = timezone.now()
    by_id = {candidate.memory_id: candidate for candidate in candidates}
    results: list[PromotionOutcome] = []
    with transaction.atomic():
        claimed = batch_claim(candidates, now=now, now_all=now_all, size=size)
        if not claimed:
            return BatchResult(claimed=[], outcomes=[])
        locks_take(claimed)
        created_keys = _entities_create(claimed, now)
        facts = facts if facts is not None else NetFacts()
        for memory in claimed:
            keys = created_keys.get(memory.mind_id, set())
            candidate = by_id[memory.pk]
            result = _claimed_promote(candidate, memory, now=now, now_all=now_all, created_keys=keys, facts=facts)
            results.append(result)
            if result.outcome is Outcome.DEFERRED:
                break
        _knots_created_send(claimed, results)
    return BatchResult(claimed=[memory.pk for memory in claimed], outcomes=results)


def _failed(candidate: Candidate, error: BaseException, sp: Span, now: datetime) -> PromotionOutcome:
    message = f"{type(error).__name__}: {error}"[:_ERROR_CHARS]
    attempts = _failure_record(candidate, message, now)
    sp.error({"step": "promotion", "type": type(error).__name__, "message": message, "attempts": attempts.count,
              "parked": attempts.parked})  # fmt: skip
    sp.set_status(STATUS_ERROR)
    outcome = Outcome.PARKED if attempts.parked else Outcome.FAILED
    sp.output({"outcome": outcome, "attempts": attempts.count})
    return PromotionOutcome(candidate.memory_id, outcome, error=message)


# --- a batch ------------------------------------------------------------------------------------


def memories_promote(
    *,
    memory_ids: Iterable[str] | None = None,
    mind_id: str | None = None,
    now_all: bool = False,
    limit: int | None = None,
    progress: Callable[[PromotionOutcome], None] | None = None,
) -> PromotionSummary:
    """Promote the pending, mature memories among `memory_ids` (all of them when None), of
    `mind_id` (any when None), at most `limit` (PROMOTION_BATCH_SIZE when None; no limit for a
    list of ids), longest waiting first. `progress` is called after each memory."""
    now = timezone.now()
    ids = None if memory_ids is None else list(dict.fromkeys(memory_ids))
    if limit is None and ids is None:
        limit = synapse_settings.PROMOTION_BATCH_SIZE
    candidates = candidates_select(now=now, memory_ids=ids, mind_id=mind_id, now_all=now_all, limit=limit)
    summary = PromotionSummary(selected=len(candidates), not_pending=len(ids) - len(candidates) if ids else 0)
    remaining = candidates
    facts = NetFacts()  # what the run's batches learn of the net, kept for its later ones
    while remaining:
        batch = batch_promote(remaining, now_all=now_all, size=PROMOTION_CLAIM_SIZE, facts=facts)
        claimed, results = batch.claimed, batch.outcomes
        if not claimed:  # the rest is held by other workers, or they promoted it meanwhile
            summary.skipped += len(remaining)
            break
        for result in results:
            summary.add(result)
            if progress is not None:
                progress(result)
        if results and results[-1].outcome is Outcome.DEFERRED:
            summary.stopped = results[-1].error
            break
        taken = set(claimed)
        remaining = [candidate for candidate in remaining if candidate.memory_id not in taken]
    return summary
