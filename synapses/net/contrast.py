"""Whether two near texts state different facts: the lexical contrast rule of the match test. Pure.

    facts_contrast(older, newer)   the first contrast found (negation, date, version or number, name), or None
    word_overlap(a, b)             the Dice share of the two texts' words (0..1)
    contradicts(older, newer)      a contrast between two texts that otherwise say much the same
    Facts.of(text)                 a text read once, for comparing it with many (the same three as methods)

An embedder puts "Alice is allergic to peanuts" and "Alice is not allergic to peanuts" close
together (hashing 0.9, MiniLM 0.98): the vectors see the same words about the same people. The
match test (docs/synapse-model.md §4) therefore joins a memory to a knot only when the cosine
says "near" and this rule finds no contrast:

- **negation**: one text is negated and the other is not ("not", "n't", "never", "no",
  "nicht", "kein…", "nie", …; two negators count as one, "does not" = "never");
- **date**: the date words differ: ISO and German numeric dates, years, month and weekday names,
  "yesterday" / "gestern" and their kin (English month names only capitalised: "may" is a verb);
- **version** / **number**: the numbers differ, digits or number words ("two" = "2", "zwei");
  a version when a differing number stands right after a capitalised name ("Python 3" /
  "Python 2") or has a "v" or two dots ("v1.8.0"), else a number ("room 4" / "room 7");
- **name**: each text holds a capitalised word the other lacks in any case ("Rome" / "Paris"),
  unless the two words share a stem (German capitalises nouns: "Besprechung" and
  "Besprechungsraum" are one word to this rule, "Nutzer" and "Benutzer" too).

Words are compared case-insensitively and punctuation is ignored, so a restatement in other
capitals or without its full stop never contrasts. The rule looks at words, not meaning: a
paraphrase that swaps a German noun for another ("Raum" / "Zimmer") contrasts, and a contrast in
words the texts do not share (an antonym: "likes" / "hates") is not found — the cosine has to
keep those apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Tokens: numbers with their inner separators ("9:30", "2024-05-07", "07.05.2024", "v1.8.0")
# and words with an inner apostrophe ("isn't", "Anna's").
_TOKEN = re.compile(r"\b[vV]?\d+(?:[.:\-/]\d+)*\b|[^\W\d_]+(?:['’][^\W\d_]+)*")
_NUMBER = re.compile(r"[vV]?\d+(?:[.:\-/]\d+)*")
_ISO_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_DOTTED_DATE = re.compile(r"\d{1,2}\.\d{1,2}\.\d{2,4}")
_YEAR = re.compile(r"(19|20)\d\d")
_VERSION = re.compile(r"[vV]\d.*|\d+\.\d+\.\d+")

NEGATION, DATE, VERSION, NUMBER, NAME = "negation", "date", "version", "number", "name"


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_NEGATORS = _word_set(
    "not no never none nobody nothing nowhere neither nor cannot without "
    "nicht kein keine keinen keinem keiner keines nie niemals nichts niemand nirgends nirgendwo weder ohne"
)
_NEGATED_SUFFIXES = ("n't", "n’t")
# Month and weekday names (English, German), and the relative day words.
_MONTHS_EN = _word_set("january february march april may june july august september october november december")
_DATE_WORDS = _word_set(
    "monday tuesday wednesday thursday friday saturday sunday yesterday today tomorrow tonight "
    "januar februar märz april mai juni juli august september oktober november dezember "
    "montag dienstag mittwoch donnerstag freitag samstag sonnabend sonntag "
    "gestern vorgestern heute morgen übermorgen"
)
_NUMBER_WORDS = {
    word: str(value)
    for value, words in enumerate(
        (
            "zero null",
            "one eins",
            "two zwei",
            "three drei",
            "four vier",
            "five fünf",
            "six sechs",
            "seven sieben",
            "eight acht",
            "nine neun",
            "ten zehn",
            "eleven elf",
            "twelve zwölf",
        )
    )
    for word in words.split()
}
# Function words a sentence may begin with: capitalised there, they are no names ("Der" / "Die").
_FUNCTION_WORDS = _word_set(
    "the a an this that these those my your his her its our their we i you he she it they in on at to for of "
    "from with by and or but every each some all there here what when where who how "
    "der die das den dem des ein eine einen einem einer eines dies diese dieser dieses mein meine dein "
    "sein seine ihr ihre unser unsere wir ich du er sie es im am an auf zu zum zur für von vom mit bei "
    "nach aus und oder aber jede jeder jedes alle da dort hier was wann wo wer wie"
)
# Letters two capitalised words must share at their start to count as one word (letters):
# "Erdnüsse" / "Erdnussallergie" share "Erdn", "Besprechung" / "Besprechungsraum" all of one.
_STEM_LETTERS = 4
# Dice share of words at or above which two texts say much the same (0..1): "Alice is allergic to
# peanuts" / "Alice is not allergic to peanuts" share 0.91, "Anna works at Siemens" / "… Bosch"
# 0.75, two notes that only name the same person about 0.4.
CONTRADICTION_MIN_OVERLAP = 0.6


@dataclass(frozen=True)
class Contrast:
    """Why two texts state different facts: the kind and the words each has that the other lacks."""

    kind: str
    older: tuple[str, ...]
    newer: tuple[str, ...]

    def as_log(self) -> dict[str, object]:
        return {"kind": self.kind, "older": list(self.older), "newer": list(self.newer)}


@dataclass(frozen=True)
class Facts:
    """What the rule reads of one text."""

    words: frozenset[str]  # every word, lower-cased
    negated: bool
    dates: frozenset[str]
    numbers: dict[str, str]  # every number (digits, or a number word's digits) → VERSION or NUMBER
    capitalised: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> Facts:
        return _facts(text)

    def contrast(self, newer: Facts) -> Contrast | None:
        """facts_contrast(self's text, newer's text)."""
        return _contrast(self, newer)

    def overlap(self, other: Facts) -> float:
        """word_overlap(self's text, other's text)."""
        total = len(self.words) + len(other.words)
        return 2 * len(self.words & other.words) / total if total else 0.0

    def contradicts(self, newer: Facts, min_overlap: float = CONTRADICTION_MIN_OVERLAP) -> Contrast | None:
        """contradicts(self's text, newer's text)."""
        return _contrast(self, newer) if self.overlap(newer) >= min_overlap else None


def _is_negator(lowered: str) -> bool:
    return lowered in _NEGATORS or lowered.endswith(_NEGATED_SUFFIXES)


def _date_word(token: str, lowered: str) -> bool:
    if lowered in _MONTHS_EN:
        return token[0].isupper()  # "may", "march" are verbs
    if lowered == "morgen":
        return token[0].islower()  # "Morgen" is the morning, "morgen" tomorrow
    return lowered in _DATE_WORDS


def _facts(text: str) -> Facts:
    tokens = _TOKEN.findall(text)
    words, dates, numbers, capitalised = set(), set(), {}, []
    negators = 0
    previous = ""
    for token in tokens:
        lowered = token.lower()
        words.add(lowered)
        if _NUMBER.fullmatch(token):
            if _ISO_DATE.fullmatch(token) or _DOTTED_DATE.fullmatch(token) or _YEAR.fullmatch(token):
                dates.add(token)
            elif _VERSION.fullmatch(token) or (previous[:1].isupper() and previous.lower() not in _DATE_WORDS):
                numbers[lowered.lstrip("v")] = VERSION
            else:
                numbers.setdefault(token, NUMBER)
        elif _is_negator(lowered):
            negators += 1
        elif _date_word(token, lowered):
            dates.add(lowered)
        elif lowered in _NUMBER_WORDS:
            numbers.setdefault(_NUMBER_WORDS[lowered], NUMBER)
        elif token[0].isupper() and lowered not in _FUNCTION_WORDS:
            capitalised.append(token)
        previous = token
    return Facts(
        words=frozenset(words),
        negated=negators > 0,
        dates=frozenset(dates),
        numbers=numbers,
        capitalised=tuple(capitalised),
    )


def _same_stem(word: str, others: tuple[str, ...]) -> bool:
    lowered = word.lower()
    for other in others:
        other = other.lower()
        if lowered in other or other in lowered or lowered[:_STEM_LETTERS] == other[:_STEM_LETTERS]:
            return True
    return False


def _names_only_in(one: Facts, other: Facts) -> tuple[str, ...]:
    """`one`'s capitalised words that `other` lacks in any case and shares no stem with."""
    return tuple(
        word
        for word in dict.fromkeys(one.capitalised)
        if word.lower() not in other.words and not _same_stem(word, other.capitalised)
    )


def _contrast(a: Facts, b: Facts) -> Contrast | None:
    if a.negated != b.negated:
        return Contrast(NEGATION, ("negated",) if a.negated else (), ("negated",) if b.negated else ())
    if a.dates != b.dates:
        return Contrast(DATE, tuple(sorted(a.dates - b.dates)), tuple(sorted(b.dates - a.dates)))
    if a.numbers.keys() != b.numbers.keys():
        only_older, only_newer = sorted(a.numbers.keys() - b.numbers), sorted(b.numbers.keys() - a.numbers)
        # A version when either side's differing number stands after a name ("Python 3" / "Python 2").
        kinds = {a.numbers.get(n) for n in only_older} | {b.numbers.get(n) for n in only_newer}
        return Contrast(VERSION if VERSION in kinds else NUMBER, tuple(only_older), tuple(only_newer))
    only_older, only_newer = _names_only_in(a, b), _names_only_in(b, a)
    if only_older and only_newer:
        return Contrast(NAME, only_older, only_newer)
    return None


def facts_contrast(older: str, newer: str) -> Contrast | None:
    """The first contrast between the two texts (negation, date, version or number, name, in
    that order), or None when the rule finds none."""
    return _contrast(_facts(older), _facts(newer))


def word_overlap(a: str, b: str) -> float:
    """2 |A ∩ B| / (|A| + |B|) over the texts' lower-cased words (0 when both have none)."""
    return _facts(a).overlap(_facts(b))


def contradicts(older: str, newer: str, min_overlap: float = CONTRADICTION_MIN_OVERLAP) -> Contrast | None:
    """The contrast between two texts that share at least `min_overlap` of their words (the same
    statement with one fact changed), or None."""
    return _facts(older).contradicts(_facts(newer), min_overlap)
