"""Rebuild the word lists of entity discovery (synapses/promotion/lexicon/README.md). Not imported
by the server: run it by hand when a source changes, and commit what it writes.

    python synapses/promotion/lexicon/generate.py SCOWL_LIST NOUNS_CSV WORDFREQ_DE

SCOWL_LIST   Debian's wamerican-small (SCOWL size 35): /usr/share/dict/american-english-small
NOUNS_CSV    german_nouns/nouns.csv of the PyPI package german-nouns 1.2.5 (from Wiktionary)
WORDFREQ_DE  wordfreq/data/large_de.msgpack.gz of the PyPI package wordfreq 3.1.1, which only
             chooses which German nouns and names are kept (none of its words are copied);
             reading it needs the msgpack package.

Writes en.txt, de-nouns.txt, de-names.txt and de-adjectival.txt beside this file (de-words.txt is written by hand).
"""

from __future__ import annotations

import csv
import gzip
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# A German word is kept when wordfreq puts it at or above this frequency (centibels below 1, the
# list's own unit: 625 is a Zipf frequency of 2.75, about once in 5.6 million words). Rarer nouns
# are mostly compounds, which discovery splits into known parts (synapses.promotion.discovery).
DE_MAX_CENTIBELS = 625
# Part-of-speech labels of Wiktionary that make a lemma a name.
NAME_LABELS = frozenset({"Vorname", "Nachname", "Toponym", "Eigenname", "Straßenname"})
# English inflections discovery strips before looking a word up (one home: discovery's _EN_ENDINGS
# must list the same): a form whose stem is in the list is not written.
EN_ENDINGS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"),
              ("ly", ""), ("er", ""), ("est", ""))  # fmt: skip


def english(scowl: Path) -> list[str]:
    """SCOWL's lower-case words (its capitalised entries are names and abbreviations), without
    the regular inflections of a word the list holds."""
    words = {line.strip() for line in scowl.read_text(encoding="utf-8").splitlines()}
    lower = {word for word in words if word.isascii() and word.isalpha() and word.islower()}

    def inflected(word: str) -> bool:
        return any(
            word.endswith(end) and len(word) - len(end) >= 3 and word[: -len(end)] + stem in lower
            for end, stem in EN_ENDINGS
        )

    return sorted(word for word in lower if not inflected(word))


def wordfreq_german(path: Path) -> set[str]:
    import msgpack  # only needed here

    with gzip.open(path) as handle:
        buckets = msgpack.load(handle, raw=False)[1:]  # the first entry is the header
    return {word for index, bucket in enumerate(buckets) if index <= DE_MAX_CENTIBELS for word in bucket}


def german(nouns_csv: Path, frequent: set[str]) -> tuple[list[str], list[str], list[str]]:
    """German common nouns (lemmas and plurals, lower-cased), names (lemmas as written) and the
    nouns declined as adjectives (lower-cased: "Deutsche", "Angestellte"), each kept when frequent
    enough. A lemma that is both a noun and a name (Anna, Mark, Koch) is in both lists."""
    nouns: set[str] = set()
    names: set[str] = set()
    adjectival: set[str] = set()
    with nouns_csv.open(newline="", encoding="utf-8") as handle:
        rows = csv.reader(handle)
        header = next(rows)
        plural_columns = [i for i, name in enumerate(header) if name.startswith("nominativ plural")]
        for row in rows:
            lemma, labels = row[0], set(row[1].split(","))
            if not lemma[:1].isupper() or not lemma.replace("-", "").isalpha():
                continue
            if labels & NAME_LABELS:
                if lemma.casefold() in frequent:
                    names.add(lemma)
                continue
            if "Substantiv" not in labels:
                continue
            if "adjektivische Deklination" in labels and lemma.casefold() in frequent:
                adjectival.add(lemma.lower())
            for form in [lemma, *(row[i] for i in plural_columns)]:
                if form and form.isalpha() and form.casefold() in frequent:  # wordfreq casefolds (ß → ss)
                    nouns.add(form.lower())
    return sorted(nouns), sorted(names), sorted(adjectival)


def main(argv: list[str]) -> None:
    scowl, nouns_csv, wordfreq_de = (Path(arg) for arg in argv)
    (HERE / "en.txt").write_text("\n".join(english(scowl)) + "\n", encoding="utf-8")
    nouns, names, adjectival = german(nouns_csv, wordfreq_german(wordfreq_de))
    (HERE / "de-adjectival.txt").write_text("\n".join(adjectival) + "\n", encoding="utf-8")
    (HERE / "de-nouns.txt").write_text("\n".join(nouns) + "\n", encoding="utf-8")
    (HERE / "de-names.txt").write_text("\n".join(names) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
