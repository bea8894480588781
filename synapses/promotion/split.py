"""Merged contradictions of old nets split: `manage.py rebuild_magnets`' first step per mind
(docs/synapse-model.md §4, "Contradictions joined by the old match test").

Before the match test had its contrast rule (synapses.net.contrast), promotion joined a memory
to the nearest knot on the cosine alone, so "Alice is not allergic to peanuts" became a
duplicate link of the knot of "Alice is allergic to peanuts". A mind's join links (kind
duplicate or reactivated, never origin) are read again in the order they were made; each whose
memory still holds the version it joined with and whose content the contrast rule says states
another fact than the knot's is **promoted again**, by promotion itself: the link is deleted
(the memory is pending again, as the database keeps it), a reactivation the join caused is taken
back, and `batch_promote` runs the match test of today on the memory — which makes its own knot
with its edges, or joins a knot that states its fact (an earlier memory's, split a moment
before). Each split is one transaction: when the memory cannot be promoted (expired, a failure,
the embedder down) it rolls back and the memory stays joined. A second run finds nothing to split.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F

from pipelinelog.spans import Span, span
from synapses.models import KnotPresence, LinkKind, MemoryKnot
from synapses.net.contrast import Contrast, facts_contrast
from synapses.net.selectors.candidates import NetFacts
from synapses.promotion.discovery import Evidence
from synapses.promotion.select import Candidate
from synapses.promotion.service import Outcome, PromotionOutcome, batch_promote

# Join links read per round trip while looking for contradictions (links).
_CHUNK = 500
# What promoting a split memory again may end in; anything else rolls the split back.
_PROMOTED = frozenset({Outcome.CREATED, Outcome.DUPLICATE, Outcome.REACTIVATED})


@dataclass(frozen=True)
class _Join:
    link_id: int
    kind: str
    created_at: datetime
    knot_id: int
    memory_id: str
    content_hash: str
    turn_id: str
    contrast: Contrast


@dataclass
class JoinsSplit:
    joins: int = 0  # join links of current versions read
    split: int = 0  # of those stating another fact, promoted again
    created: int = 0  # … into a knot of their own
    rejoined: int = 0  # … joining (or reactivating) a knot that states their fact
    deactivated: int = 0  # knots whose reactivation by a contradicting memory was taken back
    left: int = 0  # stating another fact but not promoted again (rolled back, still joined)
    pairs_written: int = 0
    stopped: str = ""  # the embedder's error when it was down, or ""


class _NotPromoted(Exception):
    def __init__(self, result: PromotionOutcome | None) -> None:
        super().__init__(result.outcome if result else "not claimed")
        self.result = result


def _contradicting_joins(mind_id: str) -> tuple[int, list[_Join]]:
    """The mind's join links of current versions (counted) and those whose memory states another
    fact than their knot, oldest first."""
    links = (
        MemoryKnot.objects.filter(mind_id=mind_id, content_hash=F("memory__content_hash"))
        .exclude(kind=LinkKind.ORIGIN)
        .order_by("created_at", "pk")
        .values_list("pk", "kind", "created_at", "knot_id", "knot__content", "memory_id", "content_hash",
                     "memory__turn_id", "memory__content")
    )  # fmt: skip
    read = 0
    found: list[_Join] = []
    for link_id, kind, created_at, knot_id, knot_content, memory_id, hash_, turn_id, content in links.iterator(
        chunk_size=_CHUNK
    ):
        read += 1
        contrast = facts_contrast(knot_content, content)  # the knot's content is the older
        if contrast is not None:
            found.append(_Join(link_id, kind, created_at, knot_id, memory_id, hash_, turn_id or "", contrast))
    return read, found


def _reactivation_undo(join: _Join, sp: Span) -> bool:
    """A join that half-reactivated its knot brought back a fact the memory contradicts: the knot
    goes inactive again, as it was, when that reactivation is still its presence's last renewal
    (a use since, or another memory's reactivation, renewed it on its own account). Its weights
    and count were never touched by the join."""
    presence = KnotPresence.objects.select_for_update().get(knot_id=join.knot_id)
    if not presence.is_active or presence.reinforced_at != join.created_at:
        return False
    KnotPresence.objects.filter(pk=presence.pk).update(is_active=False)
    sp.db_write({"table": "synapses_knotpresence", "operation": "update", "knot_id": join.knot_id,
                 "is_active": False, "reason": "reactivated by a memory stating another fact"})  # fmt: skip
    return True


def _split(
    join: _Join, mind_id: str, sp: Span, facts: NetFacts, evidence: dict[str, Evidence]
) -> tuple[bool, PromotionOutcome]:
    """One split in one transaction: the link deleted, the reactivation taken back, the memory
    promoted again; rolled back (raising _NotPromoted) unless the promotion linked it."""
    with transaction.atomic():
        deleted, _ = MemoryKnot.objects.filter(pk=join.link_id, knot_id=join.knot_id).delete()
        if not deleted:  # deleted or moved meanwhile (the knot's memory went, a concurrent split)
            raise _NotPromoted(None)
        undone = join.kind == LinkKind.REACTIVATED and _reactivation_undo(join, sp)
        candidate = Candidate(join.memory_id, mind_id, join.content_hash, join.turn_id)
        batch = batch_promote([candidate], now_all=True, size=1, facts=facts, evidence=evidence)
        result = batch.outcomes[0] if batch.outcomes else None
        if result is None or result.outcome not in _PROMOTED:
            raise _NotPromoted(result)
    return undone, result


def mind_joins_split(*, mind_id: str) -> JoinsSplit:
    """Split every join of the mind whose memory states another fact than its knot (module
    docstring). One `synapses.promotion.split` span per split, around the promotion's own span."""
    summary = JoinsSplit()
    summary.joins, joins = _contradicting_joins(mind_id)
    facts = NetFacts()
    evidence: dict[str, Evidence] = {}
    for join in joins:
        with span("synapses.promotion.split", mind=mind_id) as sp:
            sp.input({"link_id": join.link_id, "link_kind": join.kind, "knot_id": join.knot_id,
                      "memory_id": join.memory_id, "content_hash": join.content_hash,
                      "linked_at": join.created_at})  # fmt: skip
            sp.decision({"decision": "promotion.split", **join.contrast.as_log()})
            try:
                undone, result = _split(join, mind_id, sp, facts, evidence)
            except _NotPromoted as refused:
                outcome = refused.result.outcome if refused.result else Outcome.SKIPPED
                error = refused.result.error if refused.result else ""
                sp.output({"outcome": "left", "promotion": outcome, "error": error})
                summary.left += 1
                if outcome is Outcome.DEFERRED:
                    summary.stopped = error
                    break
                continue
            sp.output({"outcome": "split", "promotion": result.outcome, "knot_id": result.knot_id,
                       "pairs_written": result.pairs_written, "reactivation_undone": undone})  # fmt: skip
        summary.split += 1
        summary.deactivated += int(undone)
        if result.outcome is Outcome.CREATED:
            summary.created += 1
        else:
            summary.rejoined += 1
        summary.pairs_written += result.pairs_written
    return summary
