"""Reciprocal rank fusion, pure: ranked lists of ids in, one fused ranking out (docs/search.md,
"Reciprocal rank fusion"). No Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# The k of reciprocal rank fusion: a hit at rank r of a list scores 1 / (k + r). 60 is the value
# of the original RRF paper (Cormack et al., 2009); it keeps one list's top hit from drowning
# a document that both lists rank well.
RRF_K = 60


@dataclass(frozen=True)
class Ranked:
    """One entry of a ranked list."""

    id: str
    recency: float  # larger = more recently updated (a POSIX timestamp, seconds); breaks ties


@dataclass(frozen=True)
class Fused:
    id: str
    score: float  # sum of 1 / (RRF_K + rank) over the lists that found it
    matched: tuple[str, ...]  # the names of those lists, in the order the lists were given


def rrf_score(ranks: Sequence[int], *, k: int = RRF_K) -> float:
    """The fused score of a hit found at `ranks` (1 = best, one per list that found it). The
    terms are added smallest first, so the sum does not depend on the order of the lists."""
    return sum(sorted(1.0 / (k + rank) for rank in ranks))


def rrf_fuse(ranked: Mapping[str, Sequence[Ranked]], *, k: int = RRF_K) -> list[Fused]:
    """Reciprocal rank fusion of ranked lists (rank 1 = best), best first.

    Ties (equal scores) go to the entry with the better single rank, then the more recent, then
    the smaller id. An id that a list holds twice counts at its first (best) rank there.
    """
    ranks: dict[str, list[int]] = {}
    matched: dict[str, list[str]] = {}
    recency: dict[str, float] = {}
    for list_name, entries in ranked.items():
        seen: set[str] = set()
        for rank, entry in enumerate(entries, start=1):
            if entry.id in seen:
                continue
            seen.add(entry.id)
            ranks.setdefault(entry.id, []).append(rank)
            matched.setdefault(entry.id, []).append(list_name)
            recency.setdefault(entry.id, entry.recency)
    scores = {id_: rrf_score(found_at, k=k) for id_, found_at in ranks.items()}
    order = sorted(scores, key=lambda id_: (-scores[id_], min(ranks[id_]), -recency[id_], id_))
    return [Fused(id=id_, score=scores[id_], matched=tuple(matched[id_])) for id_ in order]
