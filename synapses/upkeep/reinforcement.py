"""Reinforcement by use (docs/synapse-model.md §6): only what an answer really used gets stronger.

The agent offers the knots a resonance gave it and the answer it wrote. The answer's opening is
embedded once; its cosine to each offered knot ("nearness") decides which ones it used. Reading
never strengthens anything, and neither does being offered: a knot the answer is not near stays
as it is. Each hit is reinforced (raw weight + REINFORCEMENT_BOOST, the anchor damped again,
presence reset to the new anchor, one more activation, active) and its edges are recomputed from
the new anchor (Trigger 2).

Pending memories (offered by resonance with `knot_id: null`) come as `memory_ids`: checked the
same way, and a hit is recorded and applied when the memory is promoted
(synapses.upkeep.pending_uses); one promoted meanwhile counts as its knot. The cap covers both.

Offered ids that are not knots of the caller's mind — unknown, or another mind's — are listed
as `not_found` and otherwise ignored: the report must not tell one mind what another holds, and
a stale id in an agent's context is no reason to refuse the whole report. Inactive knots of the
mind are listed as `inactive` and are not candidates (an answer cannot have used what recall no
longer offers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from pgvector.django import CosineDistance

from memories.embedders import get_embedder
from pipelinelog.spans import span
from synapses import constants
from synapses.config import synapse_settings
from synapses.events import KnotEvent, knots_changed
from synapses.models import Knot, KnotPresence
from synapses.net.geometry import damp
from synapses.upkeep.pending_uses import NEARNESS_DECIMALS, PendingNearness, offered_memories, pending_uses_record
from synapses.upkeep.triggers import knot_edges_recompute

# Why a report ended where it did (`outcome`).
OUTCOME_EMPTY_ANSWER = "empty_answer"  # nothing to compare: no embedding computed
OUTCOME_NO_CANDIDATES = "no_candidates"  # no offered id is an active knot or a pending memory of the mind
OUTCOME_COMPUTED = "computed"  # nearness computed; zero or more knots reinforced


@dataclass(frozen=True)
class Nearness:
    knot_id: int
    nearness: float


@dataclass(frozen=True)
class KnotReinforced:
    """A hit after its reinforcement: the new weights and how many edges were recomputed."""

    knot_id: int
    nearness: float
    weight_raw: float
    weight_anchor: float
    activation_count: int
    edges_recomputed: int


@dataclass(frozen=True)
class UsageReport:
    """What `POST /synapses/used` answers (docs/api-synapses.md)."""

    outcome: str
    offered: int  # distinct ids offered
    checked: int  # of those, active knots of the mind: the candidates
    used: int  # candidates at or over the threshold, after the cap
    reinforced: int  # of the used, those reinforced (equal to `used` unless a knot vanished meanwhile)
    threshold: float
    cap: int
    nearness: list[Nearness] = field(default_factory=list)  # every candidate, nearest first
    hits: list[KnotReinforced] = field(default_factory=list)  # nearest first
    closest_rejected: Nearness | None = None  # the nearest candidate that was not used
    not_found: list[int] = field(default_factory=list)  # unknown here (or another mind's)
    inactive: list[int] = field(default_factory=list)  # the mind's knots that faded from recall
    # Offered memory ids: pending ones checked (nearest first), those used and recorded for their
    # promotion, and those that are no current memory of the mind.
    pending_nearness: list[PendingNearness] = field(default_factory=list)
    recorded: list[PendingNearness] = field(default_factory=list)
    memories_not_found: list[str] = field(default_factory=list)


def _candidates(mind_id: str, knot_ids: Sequence[int], vector) -> tuple[list[Nearness], list[int], list[int]]:
    """Nearness of every offered active knot (nearest first), the ids not found, the inactive ones. One query."""
    # Sorted here, not by ORDER BY distance: that ordering lets PostgreSQL walk the HNSW index,
    # which returns only its ef_search nearest rows and would lose offered knots beyond them.
    rows = sorted(
        Knot.objects.filter(mind_id=mind_id, pk__in=knot_ids)
        .annotate(distance=CosineDistance("embedding", vector))
        .values_list("pk", "presence__is_active", "distance"),
        key=lambda row: (row[2], row[0]),
    )
    found = {pk for pk, _, _ in rows}
    inactive = sorted(pk for pk, is_active, _ in rows if not is_active)
    nearness = [
        Nearness(knot_id=pk, nearness=round(1.0 - float(distance), NEARNESS_DECIMALS))
        for pk, is_active, distance in rows
        if is_active
    ]
    return nearness, sorted(set(knot_ids) - found), inactive


def knot_reinforce(*, knot: Knot, presence: KnotPresence, boost: float, now: datetime) -> None:
    """One use: raw + boost, anchor = damp(raw), presence restarts at the new anchor, count + 1, active.

    The caller holds the knot's row lock and recomputes its edges afterwards (Trigger 2).
    """
    knot.weight_raw += boost
    knot.weight_anchor = damp(knot.weight_raw)
    knot.activation_count += 1
    knot.save(update_fields=["weight_raw", "weight_anchor", "activation_count"])
    presence.presence_base = presence.weight_present = knot.weight_anchor
    presence.reinforced_at = presence.decayed_at = now
    presence.is_active = True
    presence.save(update_fields=["presence_base", "weight_present", "reinforced_at", "decayed_at", "is_active"])


def knots_used_reinforce(
    *,
    mind_id: str,
    answer: str,
    knot_ids: Sequence[int],
    memory_ids: Sequence[str] = (),
    threshold: float | None = None,
    cap: int | None = None,
    now: datetime | None = None,
) -> UsageReport:
    """Reinforce the offered knots of `mind_id` that `answer` used; the report of what was checked and why.

    `threshold` (cosine) and `cap` (knots) default to USAGE_THRESHOLD and USAGE_MAX_PER_TURN.
    An empty answer or no candidate is a report with its outcome, not an error. One span
    `synapses.reinforcement`.
    """
    threshold = synapse_settings.USAGE_THRESHOLD if threshold is None else threshold
    cap = synapse_settings.USAGE_MAX_PER_TURN if cap is None else cap
    now = now or timezone.now()
    offered = list(dict.fromkeys(knot_ids))
    offered_memory_ids = list(dict.fromkeys(memory_ids))
    text = answer.strip()[: constants.USAGE_ANSWER_CHARS]
    base = {"offered": len(offered) + len(offered_memory_ids), "threshold": threshold, "cap": cap}
    with span("synapses.reinforcement", mind=mind_id) as sp:
        sp.input({"answer_chars": len(answer), "embedded_chars": len(text), "knot_ids": offered,
                  "memory_ids": offered_memory_ids, **base})  # fmt: skip
        if not text or not (offered or offered_memory_ids):
            outcome = OUTCOME_EMPTY_ANSWER if not text else OUTCOME_NO_CANDIDATES
            report = UsageReport(outcome=outcome, checked=0, used=0, reinforced=0, **base)
            sp.decision({"outcome": outcome})
            sp.output(_log_of(report))
            return report
        vector = get_embedder().embed([text])[0]
        memories = offered_memories(mind_id=mind_id, memory_ids=offered_memory_ids, vector=vector, now=now)
        promoted = [knot_id for knot_id in memories.knots if knot_id not in offered]
        nearness, not_found, inactive = _candidates(mind_id, [*offered, *promoted], vector)
        sp.db_read(
            {"table": "synapses_knot", "candidates": len(nearness), "not_found": not_found, "inactive": inactive,
             "pending_candidates": len(memories.pending), "memories_not_found": memories.not_found}
        )  # fmt: skip
        besides = {"pending_nearness": memories.pending, "memories_not_found": memories.not_found}
        if not nearness and not memories.pending:
            report = UsageReport(
                outcome=OUTCOME_NO_CANDIDATES,
                checked=0,
                used=0,
                reinforced=0,
                not_found=not_found,
                inactive=inactive,
                **besides,
                **base,
            )
            sp.decision({"outcome": OUTCOME_NO_CANDIDATES})
            sp.output(_log_of(report))
            return report
        # Knots and pending memories in one list, nearest first: the cap takes the nearest of both.
        both = sorted([*nearness, *memories.pending], key=lambda item: -item.nearness)
        over = [item for item in both if item.nearness >= threshold]
        used_both = over[:cap]
        used = [item for item in used_both if isinstance(item, Nearness)]
        used_pending = [item for item in used_both if isinstance(item, PendingNearness)]
        rejected = [item for item in nearness if item not in used]
        closest_rejected = rejected[0] if rejected else None
        sp.calculation(
            {
                "nearness": [[item.knot_id, item.nearness] for item in nearness],
                "pending_nearness": [[item.memory_id, item.nearness] for item in memories.pending],
                "over_threshold": len(over),
                "used": [item.knot_id for item in used],
                "used_pending": [item.memory_id for item in used_pending],
                "closest_rejected": None if closest_rejected is None else closest_rejected.nearness,
            }
        )
        hits = _reinforce(mind_id, used, boost=synapse_settings.REINFORCEMENT_BOOST, now=now)
        recorded = pending_uses_record(mind_id=mind_id, used=used_pending, now=now)
        sp.db_write(
            {
                "table": "synapses_knot",
                "operation": "reinforce",
                "knots": [hit.knot_id for hit in hits],
                "edges_recomputed": sum(hit.edges_recomputed for hit in hits),
            }
        )
        report = UsageReport(
            outcome=OUTCOME_COMPUTED,
            checked=len(nearness) + len(memories.pending),
            used=len(used_both),
            reinforced=len(hits),
            nearness=nearness,
            hits=hits,
            closest_rejected=closest_rejected,
            not_found=not_found,
            inactive=inactive,
            recorded=recorded,
            **besides,
            **base,
        )
        if report.reinforced + len(report.recorded) != report.used:
            sp.error({"message": "a used knot vanished before it was reinforced", "used": report.used})
        sp.output(_log_of(report))
        return report


def _reinforce(mind_id: str, used: list[Nearness], *, boost: float, now: datetime) -> list[KnotReinforced]:
    """Reinforce each used knot under its row lock (ids in order, so two reports never deadlock), then Trigger 2."""
    if not used:
        return []
    by_id = {item.knot_id: item for item in used}
    done: dict[int, KnotReinforced] = {}
    with transaction.atomic():
        knots = Knot.objects.select_for_update().filter(mind_id=mind_id, pk__in=by_id).order_by("pk")
        presences = {
            presence.knot_id: presence
            for presence in KnotPresence.objects.select_for_update().filter(mind_id=mind_id, knot_id__in=by_id)
        }
        for knot in knots.only("id", "mind_id", "weight_raw", "weight_anchor", "activation_count"):
            presence = presences.get(knot.pk)
            if presence is None:
                continue
            knot_reinforce(knot=knot, presence=presence, boost=boost, now=now)
            edges = knot_edges_recompute(knot=knot)
            done[knot.pk] = KnotReinforced(
                knot_id=knot.pk,
                nearness=by_id[knot.pk].nearness,
                weight_raw=knot.weight_raw,
                weight_anchor=knot.weight_anchor,
                activation_count=knot.activation_count,
                edges_recomputed=2 * edges.pairs_written,
            )
        if done:
            knots_changed.send(sender=KnotEvent, event=KnotEvent.REINFORCED, mind_id=mind_id, knot_ids=tuple(done))
    return [done[item.knot_id] for item in used if item.knot_id in done]


def _log_of(report: UsageReport) -> dict:
    return {
        "outcome": report.outcome,
        "checked": report.checked,
        "used": report.used,
        "reinforced": report.reinforced,
        "hits": [[hit.knot_id, hit.nearness, round(hit.weight_anchor, NEARNESS_DECIMALS)] for hit in report.hits],
        "not_found": report.not_found,
        "inactive": report.inactive,
        "recorded": [[item.memory_id, item.nearness] for item in report.recorded],
        "memories_not_found": report.memories_not_found,
    }
