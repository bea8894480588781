"""The hand-written same / different fact pairs (tests/synapses/data/fact_pairs.tsv) and their
fixed split into a tuning half and a held-back half.

The split is a hash of the pair's two texts, decided before the contrast rule was written: the
rule was tuned by looking at the tuning half only; the held-back half measures it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

PAIRS_FILE = Path(__file__).parent / "data" / "fact_pairs.tsv"
TUNING = "tuning"
HELD_BACK = "held-back"


@dataclass(frozen=True)
class FactPair:
    same: bool
    kind: str
    lang: str
    older: str
    newer: str

    @property
    def half(self) -> str:
        digest = hashlib.sha256(f"{self.older}\t{self.newer}".encode()).digest()
        return HELD_BACK if digest[0] % 2 else TUNING


def fact_pairs(half: str | None = None) -> list[FactPair]:
    """Every pair of the file, or those of one half."""
    pairs = []
    for line in PAIRS_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        label, kind, lang, older, newer = line.split("\t")
        assert label in ("same", "different"), line
        pairs.append(FactPair(same=label == "same", kind=kind, lang=lang, older=older, newer=newer))
    return [pair for pair in pairs if half is None or pair.half == half]
