"""The contradiction step of resonance: a newer fact outranks the older one it contradicts. Pure.

    contradictions_order(said)   the result in its new order, and which newer knot contradicts which

Promotion keeps "Alice is allergic to peanuts" and "Alice is not allergic to peanuts" apart
(synapses.promotion.match), but both stay in the net and a query finds both, the older often
first (its words are the question's). Decay would bury it only after days; this step does it
at once: of two result knots that state the same thing with one fact changed
(synapses.net.contrast.contradicts), the older is marked `contradicted_by` the newer, and the
newer takes the older's place in the ranking with the older right below it (the knots in
between move down one; when several newer knots contradict one, all of them go above it, the
newest first). Nothing is dropped, nothing is written (resonance is passive), and the
rank weights stay what the ranking gave (so they need not fall along the list any more).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from synapses.net.contrast import Facts


@dataclass(frozen=True)
class Said:
    """What the step reads of a result knot: its id, its content and how new it is."""

    knot_id: int
    content: str
    newer_key: Any  # ordered: the knot's creation, then its id


def contradictions_order(said: Sequence[Said]) -> tuple[list[int], dict[int, int]]:
    """The knot ids of `said` (ranked, strongest first) in their new order, and for each knot
    that a newer one of the list contradicts, the newest such knot."""
    facts = {item.knot_id: Facts.of(item.content) for item in said}  # each text read once
    contradicting: dict[int, list[Said]] = {}  # knot id → the newer knots contradicting it, newest first
    for older in said:
        mine = facts[older.knot_id]
        newer = [n for n in said if n.newer_key > older.newer_key and mine.contradicts(facts[n.knot_id]) is not None]
        if newer:
            contradicting[older.knot_id] = sorted(newer, key=lambda n: n.newer_key, reverse=True)
    order: list[int] = []
    placed: set[int] = set()

    def place(knot_id: int) -> None:
        if knot_id in placed:
            return
        placed.add(knot_id)
        for newer in contradicting.get(knot_id, ()):
            place(newer.knot_id)  # every newer one first, the newest first (each step is newer: it ends)
        order.append(knot_id)

    for item in said:
        place(item.knot_id)
    return order, {knot_id: newer[0].knot_id for knot_id, newer in contradicting.items()}
