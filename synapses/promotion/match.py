"""The match test's choice among the nearest knots (docs/synapse-model.md §4, "The match test").

A memory joins a knot of another memory when it says the same thing: the knot's cosine is at or
above MATCH_THRESHOLD and the lexical contrast rule (synapses.net.contrast) finds no negation,
date, version, number or name that differs. Of the nearest knots (closest first) the first that
passes both is the match; the near ones passed over for a contrast are named, so the log says
why a memory made its own knot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from synapses.net.contrast import Contrast, Facts
from synapses.promotion.knots import Nearest


@dataclass(frozen=True)
class MatchChoice:
    matched: Nearest | None  # the knot the memory joins, or None: it makes its own
    contrasts: list[tuple[Nearest, Contrast]] = field(default_factory=list)  # near, but another fact

    def as_log(self) -> dict[str, object]:
        return {
            "matched_knot_id": self.matched.knot_id if self.matched else None,
            "contrasts": [
                {"knot_id": near.knot_id, "cosine": round(near.cosine, 6), **contrast.as_log()}
                for near, contrast in self.contrasts
            ],
        }


def match_pick(content: str, nearest: Sequence[Nearest], threshold: float) -> MatchChoice:
    """The closest of `nearest` (closest first) at or above `threshold` whose content states the
    same fact as `content` (the knot's content the older, the memory's the newer)."""
    contrasts: list[tuple[Nearest, Contrast]] = []
    newer = Facts.of(content)  # read once, compared with each near knot
    for near in nearest:
        if near.cosine < threshold:
            break
        contrast = Facts.of(near.content).contrast(newer)
        if contrast is None:
            return MatchChoice(matched=near, contrasts=contrasts)
        contrasts.append((near, contrast))
    return MatchChoice(matched=None, contrasts=contrasts)
