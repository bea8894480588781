"""Promotion: mature memories become knots of the long-term net (docs/synapse-model.md §4).

    memories_promote(memory_ids=…, mind_id=…, now_all=…, limit=…)  a run: the task, the sweep, the command
    memory_promote(candidate, now_all=…)                            one memory (a batch of one)

A memory is **pending** while it has no MemoryKnot link for its current content hash and its
version is not parked; it is **mature** when it is verified, or its salience is at least
PROMOTION_SALIENCE, or it has gone PROMOTION_AGE without a write (`now_all` drops the maturity
rule: imports, benchmarks). Expired memories are never promoted. `promoted_at` is unset on every
pending memory (the database keeps it so), so the selection reads a partial index.

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

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from memories.embedders import get_embedder
from memories.models import Memory, current_filter
from memories.selectors.vector_plan import (
    HNSW_SETTINGS_COLUMNS,
    VectorPlan,
    distance_orders,
    exact_scan_probe,
    plan_for,
    under_hnsw_settings,
)
from memories.services.memory import embed_all
from memoryproject.domain import Unavailable
from pipelinelog.spans import STATUS_ERROR, Span, span
from synapses.config import setting
from synapses.constants import MATCH_CANDIDATES, PARKED_IDS_SHOWN, PROMOTION_CLAIM_SIZE
from synapses.events import KnotEvent, knots_changed
from synapses.models import Knot, KnotPresence, LinkKind, MemoryKnot, PromotionAttempt
from synapses.net.edges import knot_edges_form
from synapses.net.geometry import damp
from synapses.net.presence import knot_half_reactivate
from synapses.net.selectors.candidates import NetFacts, net_hnsw_settings, rows_under_net_hnsw_settings, vector_literal
from synapses.net.selectors.counts import last_decay_at
from synapses.promotion.entities import explicit_names_create, memory_entities_resolve
from synapses.promotion.magnets import themes_of, time_anchor

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
class Candidate:
    """A pending memory as the selection saw it (the claim re-reads the row under its lock)."""

    memory_id: str
    mind_id: str
    content_hash: str
    turn_id: str


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


# --- which memories -----------------------------------------------------------------------------


def _mature_filter(now: datetime) -> Q:
    """Verified, salient enough, or unwritten for PROMOTION_AGE."""
    settled = now - timedelta(seconds=setting("PROMOTION_AGE"))
    return Q(verified=True) | Q(salience__gte=setting("PROMOTION_SALIENCE")) | Q(updated_at__lte=settled)


def memories_pending(*, now: datetime, now_all: bool = False) -> QuerySet[Memory]:
    """Memories to promote: not expired, no link for the current content, not parked, mature
    (every one with `now_all`)."""
    linked = MemoryKnot.objects.filter(
        mind_id=OuterRef("mind_id"), memory_id=OuterRef("pk"), content_hash=OuterRef("content_hash")
    )
    parked = PromotionAttempt.objects.filter(
        mind_id=OuterRef("mind_id"),
        memory_id=OuterRef("pk"),
        content_hash=OuterRef("content_hash"),
        parked_at__isnull=False,
    )
    # promoted_at is unset on every memory without a link for its current content (set by
    # promotion, unset by the database when the content changes: synapses migration 0003), so the
    # partial index memory_pending_idx holds every pending memory; the link test stays exact.
    pending = Memory.objects.filter(current_filter(now), promoted_at__isnull=True)
    pending = pending.filter(~Exists(linked), ~Exists(parked))
    return pending if now_all else pending.filter(_mature_filter(now))


def candidates_select(
    *,
    now: datetime,
    memory_ids: Iterable[str] | None = None,
    mind_id: str | None = None,
    now_all: bool = False,
    limit: int | None = None,
) -> list[Candidate]:
    """The pending memories a run takes up, longest waiting first (one query)."""
    pending = memories_pending(now=now, now_all=now_all)
    if memory_ids is not None:
        pending = pending.filter(pk__in=list(memory_ids))
    if mind_id is not None:
        pending = pending.filter(mind_id=mind_id)
    rows = pending.order_by("updated_at", "pk").values_list("pk", "mind_id", "content_hash", "turn_id")
    if limit is not None:
        rows = rows[:limit]
    return [Candidate(*row) for row in rows]


def pending_count(*, now: datetime, mind_id: str | None = None, now_all: bool = False) -> int:
    pending = memories_pending(now=now, now_all=now_all)
    return (pending.filter(mind_id=mind_id) if mind_id is not None else pending).count()


# --- the match test -----------------------------------------------------------------------------

# The mind's knot count up to the exact-scan bound (an index-only scan of the knots' (mind, …)
# unique index) and this transaction's HNSW settings, in one statement, as memories' vector search
# does (docs/search.md, "The vector half").
_PLAN_SQL = f"""
SELECT count(*),
       {HNSW_SETTINGS_COLUMNS}
  FROM (SELECT 1 FROM synapses_knot WHERE mind_id = %(mind)s LIMIT %(probe)s) AS mind_knots
"""  # noqa: S608 — only constants are formatted in
# The nearest knots of the mind that belong to other memories, with their presence, in the order
# of each plan (vector_plan.distance_orders: the exact plan computes every distance).
_NEAREST_TEMPLATE = """
SELECT nearest.id, nearest.distance, presence.is_active
  FROM (SELECT id, embedding <=> %(vector)s::vector AS distance
          FROM synapses_knot
         WHERE mind_id = %(mind)s AND memory_id <> %(memory)s
         ORDER BY {order}
         LIMIT %(candidates)s) AS nearest
  JOIN synapses_knotpresence AS presence ON presence.knot_id = nearest.id
"""
_NEAREST_SQL = {plan: _NEAREST_TEMPLATE.format(order=order) for plan, order in distance_orders("embedding").items()}
# The HNSW search of a mind known above the bound, its settings in the same message.
_NEAREST_UNDER_SETTINGS_SQL = under_hnsw_settings(_NEAREST_SQL[VectorPlan.HNSW])


@dataclass(frozen=True)
class Nearest:
    knot_id: int
    cosine: float
    is_active: bool
    plan: VectorPlan


def nearest_other_knot(*, mind_id: str, memory_id: str, vector, facts: NetFacts | None = None) -> Nearest | None:
    """The knot of the mind nearest to `vector` that belongs to another memory (two statements:
    the plan, the rows). Exact while the mind holds at most SYNAPSE_EXACT_SCAN_MAX_ROWS knots,
    else the HNSW index with an iterative scan; the closest of MATCH_CANDIDATES rows is picked
    here, because the HNSW scan returns them in relaxed order. A mind `facts` knows above the
    bound is not counted again: one round trip, the HNSW settings and the rows in one message."""
    params = {"vector": vector_literal(vector), "mind": mind_id, "memory": memory_id, "candidates": MATCH_CANDIDATES}
    with connection.cursor() as cursor:
        if facts is not None and mind_id in facts.knots_above_bound:  # nothing to count
            plan = VectorPlan.HNSW
            message = _NEAREST_UNDER_SETTINGS_SQL
            rows = rows_under_net_hnsw_settings(cursor, message, params, candidates=MATCH_CANDIDATES)
        else:
            probe = {"mind": mind_id, "probe": exact_scan_probe(), **net_hnsw_settings(MATCH_CANDIDATES)}
            cursor.execute(_PLAN_SQL, probe)
            plan = plan_for(cursor.fetchone()[0])
            if plan == VectorPlan.HNSW and facts is not None:
                facts.knots_above_bound.add(mind_id)
            cursor.execute(_NEAREST_SQL[plan], params)
            rows = cursor.fetchall()
    if not rows:
        return None
    knot_id, distance, is_active = min(rows, key=lambda row: (row[1], row[0]))
    return Nearest(knot_id=knot_id, cosine=1.0 - float(distance), is_active=is_active, plan=plan)


# --- one memory ---------------------------------------------------------------------------------


def _advisory_key(mind_id: str, content_hash: str) -> int:
    """A signed 64-bit key for pg_advisory_xact_lock from the mind and the content hash."""
    digest = hashlib.sha256(f"synapses.promotion:{mind_id}:{content_hash}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _claim_batch(candidates: list[Candidate], *, now: datetime, now_all: bool, size: int) -> list[Memory]:
    """Up to `size` of the candidates' rows, locked, that are still pending and no other worker
    holds, longest waiting first (one statement: SKIP LOCKED passes over the rows another
    worker's batch holds, so two workers on one backlog take different memories, not turns)."""
    return list(
        memories_pending(now=now, now_all=now_all)
        .filter(pk__in=[candidate.memory_id for candidate in candidates])
        .defer("search_vector")
        .order_by("updated_at", "pk")
        .select_for_update(skip_locked=True, of=("self",))[:size]
    )


# One transaction-level advisory lock per (mind, content hash) of a batch, taken in key order: two
# batches that share contents wait on each other at most once, never in a cycle.
_LOCKS_SQL = """
SELECT pg_advisory_xact_lock(keys.key)
  FROM (SELECT DISTINCT unnest(%(keys)s::bigint[]) AS key ORDER BY key) AS keys
"""


def _locks_take(memories: list[Memory]) -> None:
    """One content of one mind at a time, until commit: the match test and the creation of a
    knot for that content are serialised across workers."""
    keys = [_advisory_key(memory.mind_id, memory.content_hash) for memory in memories]
    with connection.cursor() as cursor:
        cursor.execute(_LOCKS_SQL, {"keys": keys})


def _entities_create(memories: list[Memory], now: datetime) -> dict[str, set[str]]:
    """The batch's explicit names, created once per mind in (mind, key) order before any memory's
    own work (synapses.promotion.entities.explicit_names_create): per mind, the keys created."""
    names: dict[str, list[str]] = {}
    for memory in memories:
        names.setdefault(memory.mind_id, []).extend(memory.entities or ())
    return {mind_id: explicit_names_create(mind_id=mind_id, names=names[mind_id], now=now) for mind_id in sorted(names)}


def _embedding_ensure(memory: Memory, sp: Span) -> None:
    """The knot needs the content's vector in the current embedder's space: computed (and stored
    on the memory) when the memory has none or one of another model."""
    embedder = get_embedder()
    if memory.embedding is not None and memory.embedding_model == embedder.name:
        return
    previous = memory.embedding_model or None
    embed_all([memory])
    Memory.objects.filter(pk=memory.pk).update(embedding=memory.embedding, embedding_model=memory.embedding_model)
    sp.db_write({"table": "memories_memory", "operation": "update", "field": "embedding", "previous_model": previous})


# A duplicate's or a reactivation's link: one statement written out, as the knot's below (the
# ORM's create built and converted it in more Python than the insert costs the server). A unique
# violation names its constraint as a save's would.
_LINK_SQL = """
INSERT INTO {link} (mind_id, memory_id, content_hash, knot_id, kind, created_at)
VALUES (%(mind)s, %(memory)s, %(hash)s, %(knot)s, %(kind)s, %(now)s)
"""


def _link(memory: Memory, knot_id: int, kind: LinkKind, now: datetime) -> None:
    params = {"mind": memory.mind_id, "memory": memory.pk, "hash": memory.content_hash, "knot": knot_id,
              "kind": kind.value, "now": now}  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(_LINK_SQL.format(link=MemoryKnot._meta.db_table), params)


# The knot, its presence and its origin link in one statement: three ORM saves cost three round
# trips and more Python than the database spends on the rows. The presence and the link read the
# knot's id from the first insert; their foreign keys are checked at the end of the statement,
# when the knot is there. A unique violation names its constraint as a save's would.
_KNOT_CREATE_SQL = """
WITH knot AS (
    INSERT INTO {knot} (mind_id, memory_id, content, content_hash, category, observer, emotion, arousal,
                               attributes, embedding, embedding_model, themes, entities, event_time,
                               event_precision, weight_raw, weight_anchor, activation_count, created_at,
                               source_created_at)
    VALUES (%(mind)s, %(memory)s, %(content)s, %(hash)s, %(category)s, %(observer)s, %(emotion)s, NULL,
            %(attributes)s::jsonb, %(embedding)s::vector, %(model)s, %(themes)s::varchar[], %(entities)s::bigint[],
            %(event_time)s, %(precision)s, %(raw)s, %(anchor)s, 1, %(now)s, %(source_created_at)s)
    RETURNING id
), presence AS (
    INSERT INTO {presence} (knot_id, mind_id, presence_base, weight_present, reinforced_at, decayed_at,
                                       is_active)
    SELECT id, %(mind)s, %(anchor)s, %(anchor)s, %(now)s, %(now)s, true FROM knot
), link AS (
    INSERT INTO {link} (mind_id, memory_id, content_hash, knot_id, kind, created_at)
    SELECT %(mind)s, %(memory)s, %(hash)s, id, %(kind)s, %(now)s FROM knot
)
SELECT id FROM knot
"""


def _knot_create(memory: Memory, *, entity_ids: list[int], now: datetime) -> Knot:
    """The memory's knot, active at its anchor, and the memory's origin link to it (one
    statement); the Knot returned carries every field edge formation reads."""
    event_time, precision = time_anchor(memory.event_time, memory.event_precision)
    knot = Knot(
        mind_id=memory.mind_id,
        memory_id=memory.pk,
        content=memory.content,
        content_hash=memory.content_hash,
        category=memory.category,
        observer=memory.speaker,
        emotion=memory.emotion,
        attributes=memory.attributes,
        embedding=memory.embedding,
        embedding_model=memory.embedding_model,
        themes=themes_of(memory.tags),
        entities=entity_ids,
        event_time=event_time,
        event_precision=precision,
        weight_raw=memory.salience,
        weight_anchor=damp(memory.salience),
        activation_count=1,
        created_at=now,
        source_created_at=memory.created_at,
    )
    params = {
        "mind": knot.mind_id,
        "memory": knot.memory_id,
        "content": knot.content,
        "hash": knot.content_hash,
        "category": knot.category,
        "observer": knot.observer,
        "emotion": knot.emotion,
        "attributes": json.dumps(knot.attributes),
        "embedding": vector_literal(knot.embedding),
        "model": knot.embedding_model,
        "themes": knot.themes,
        "entities": knot.entities,
        "event_time": knot.event_time,
        "precision": knot.event_precision,
        "raw": knot.weight_raw,
        "anchor": knot.weight_anchor,
        "now": now,
        "source_created_at": knot.source_created_at,
        "kind": LinkKind.ORIGIN.value,
    }
    with connection.cursor() as cursor:
        tables = {
            "knot": Knot._meta.db_table,
            "presence": KnotPresence._meta.db_table,
            "link": MemoryKnot._meta.db_table,
        }
        cursor.execute(_KNOT_CREATE_SQL.format(**tables), params)
        knot.pk = cursor.fetchone()[0]
    return knot


def _promote_claimed(
    memory: Memory, sp: Span, now: datetime, created_keys: set[str], facts: NetFacts
) -> PromotionOutcome:
    """The promotion of one claimed memory, inside its batch's transaction (its locks taken, its
    explicit names created; `facts` what the batch learned of the net so far)."""
    if not memory.content.strip():
        raise PromotionFailed("the memory has no content")
    _embedding_ensure(memory, sp)
    threshold = setting("MATCH_THRESHOLD")
    nearest = nearest_other_knot(mind_id=memory.mind_id, memory_id=memory.pk, vector=memory.embedding, facts=facts)
    match = nearest is not None and nearest.cosine >= threshold
    decision = {
        "decision": "promotion.match",
        "threshold": threshold,
        "nearest_knot_id": nearest.knot_id if nearest else None,
        "cosine": round(nearest.cosine, 6) if nearest else None,
        "plan": nearest.plan if nearest else None,
    }

    if match and not nearest.is_active:
        # Locked and re-read: a worker reactivating the same knot at this moment makes it a duplicate.
        presences = KnotPresence.objects.select_for_update(of=("self",)).select_related("knot")
        presence = presences.get(knot_id=nearest.knot_id)
        if not presence.is_active:
            before = presence.weight_present
            knot_half_reactivate(presence=presence, now=now)
            _link(memory, nearest.knot_id, LinkKind.REACTIVATED, now)
            sp.decision(
                {
                    **decision,
                    "outcome": Outcome.REACTIVATED,
                    "weight_anchor": presence.knot.weight_anchor,
                    "presence_before": before,
                    "presence_after": presence.weight_present,
                }
            )
            return PromotionOutcome(memory.pk, Outcome.REACTIVATED, knot_id=nearest.knot_id, cosine=nearest.cosine)
    if match:
        _link(memory, nearest.knot_id, LinkKind.DUPLICATE, now)
        sp.decision({**decision, "outcome": Outcome.DUPLICATE})
        return PromotionOutcome(memory.pk, Outcome.DUPLICATE, knot_id=nearest.knot_id, cosine=nearest.cosine)

    sp.decision({**decision, "outcome": Outcome.CREATED})
    # The magnets only for a new knot: a duplicate or a reactivation joins a knot whose magnets
    # were resolved when it was created (the batch has created the explicit names already).
    entities = memory_entities_resolve(
        mind_id=memory.mind_id, names=list(memory.entities), content=memory.content, now=now,
        created_keys=created_keys,
    )  # fmt: skip
    knot = _knot_create(memory, entity_ids=entities.ids, now=now)
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


# A failure of one memory version: +1 attempt, parked when the attempts reach the maximum.
_ATTEMPT_SQL = """
INSERT INTO synapses_promotionattempt AS attempt
       (mind_id, memory_id, content_hash, attempts, last_error, parked_at, created_at, updated_at)
VALUES (%(mind)s, %(memory)s, %(hash)s, 1, %(error)s,
        CASE WHEN 1 >= %(max)s THEN %(now)s::timestamptz END, %(now)s, %(now)s)
ON CONFLICT (mind_id, memory_id, content_hash) DO UPDATE
   SET attempts = attempt.attempts + 1,
       last_error = EXCLUDED.last_error,
       updated_at = EXCLUDED.updated_at,
       parked_at = CASE WHEN attempt.attempts + 1 >= %(max)s
                        THEN coalesce(attempt.parked_at, EXCLUDED.updated_at) END
RETURNING attempts, parked_at IS NOT NULL
"""


def _failure_record(candidate: Candidate, error: str, now: datetime) -> tuple[int, bool]:
    """Count the failure (its own transaction, after the promotion's rolled back): (attempts, parked)."""
    params = {
        "mind": candidate.mind_id,
        "memory": candidate.memory_id,
        "hash": candidate.content_hash,
        "error": error,
        "max": setting("PROMOTION_MAX_ATTEMPTS"),
        "now": now,
    }
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(_ATTEMPT_SQL, params)
            attempts, parked = cursor.fetchone()
    except DatabaseError:
        # The memory was deleted meanwhile (nothing left to count), or the database failed again:
        # the failure stays uncounted and the memory pending, and the batch goes on.
        logger.warning("promotion failure of memory %s not counted", candidate.memory_id, exc_info=True)
        return 0, False
    return attempts, parked


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


# The outcomes after which the memory version is promoted (promoted_at is set).
_PROMOTED = frozenset({Outcome.CREATED, Outcome.DUPLICATE, Outcome.REACTIVATED})


def _batch_promote(
    candidates: list[Candidate], *, now_all: bool, size: int, facts: NetFacts | None = None
) -> tuple[list[str], list[PromotionOutcome]]:
    """Claim up to `size` of `candidates` and promote them in one transaction: one claim, one lock
    statement, the batch's new entity names, each memory in its savepoint, one `knot.created` per
    mind, one UPDATE of their promoted_at, one commit. What the batch learns of the net on the way
    (synapses.net.selectors.candidates.NetFacts; `facts`, the run's, when given) spares its later memories, and
    the run's later batches, the same counts. The ids claimed (in
    promotion order) and their outcomes; it stops after a deferred memory (the embedder is down),
    leaving the rest of the batch pending.

    A worker killed mid-batch leaves every memory of the batch pending (the transaction rolls
    back); memories of the same content within one batch are promoted one after the other, and
    the second finds the first's knot, as two batches do under the advisory lock.
    """
    now = timezone.now()
    by_id = {candidate.memory_id: candidate for candidate in candidates}
    results: list[PromotionOutcome] = []
    with transaction.atomic():
        claimed = _claim_batch(candidates, now=now, now_all=now_all, size=size)
        if not claimed:
            return [], []
        _locks_take(claimed)
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
        promoted = [result.memory_id for result in results if result.outcome in _PROMOTED]
        if promoted:
            Memory.objects.filter(pk__in=promoted).update(promoted_at=now)
    return [memory.pk for memory in claimed], results


def memory_promote(candidate: Candidate, *, now_all: bool = False) -> PromotionOutcome:
    """Promote one memory: a batch of one. SKIPPED (with its span) when it is not pending any
    more or another worker holds it."""
    claimed, results = _batch_promote([candidate], now_all=now_all, size=1)
    if results:
        return results[0]
    with span("synapses.promotion", mind=candidate.mind_id) as sp:
        sp.input({"memory_id": candidate.memory_id, "content_hash": candidate.content_hash,
                  "memory_turn_id": candidate.turn_id or None, "now_all": now_all})  # fmt: skip
        sp.decision({"decision": "promotion.claim", "outcome": Outcome.SKIPPED,
                     "reason": "promoted, changed or held by another worker"})  # fmt: skip
        sp.output({"outcome": Outcome.SKIPPED})
    return PromotionOutcome(candidate.memory_id, Outcome.SKIPPED)


def _failed(candidate: Candidate, error: BaseException, sp: Span, now: datetime) -> PromotionOutcome:
    message = f"{type(error).__name__}: {error}"[:_ERROR_CHARS]
    attempts, parked = _failure_record(candidate, message, now)
    sp.error({"step": "promotion", "type": type(error).__name__, "message": message, "attempts": attempts,
              "parked": parked})  # fmt: skip
    sp.set_status(STATUS_ERROR)
    outcome = Outcome.PARKED if parked else Outcome.FAILED
    sp.output({"outcome": outcome, "attempts": attempts})
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
        limit = setting("PROMOTION_BATCH_SIZE")
    candidates = candidates_select(now=now, memory_ids=ids, mind_id=mind_id, now_all=now_all, limit=limit)
    summary = PromotionSummary(selected=len(candidates), not_pending=len(ids) - len(candidates) if ids else 0)
    remaining = candidates
    size = PROMOTION_CLAIM_SIZE
    facts = NetFacts()  # what the run's batches learn of the net, kept for its later ones
    while remaining:
        claimed, results = _batch_promote(remaining, now_all=now_all, size=size, facts=facts)
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


# --- health -------------------------------------------------------------------------------------


def mind_promotion_health(mind_id: str, now: datetime) -> dict[str, object]:
    """/memory/health's promotion part: the mind's parked memory versions (of the memories' current
    content; the newest PARKED_IDS_SHOWN ids), when its last memory was promoted and when the decay
    last ran (for every mind at once). Four queries."""
    parked = PromotionAttempt.objects.filter(
        mind_id=mind_id, parked_at__isnull=False, memory__content_hash=F("content_hash")
    ).order_by("-parked_at", "memory_id")
    last = MemoryKnot.objects.filter(mind_id=mind_id).order_by("-created_at").values_list("created_at", flat=True)
    return {
        "parked": parked.count(),
        "parked_memory_ids": list(parked.values_list("memory_id", flat=True)[:PARKED_IDS_SHOWN]),
        "last_promotion_at": last.first(),
        "last_decay_at": last_decay_at(),
    }
