"""Entity discovery: the names of people, places, organisations, products and titles in English
and German content, found without a model and without the agent's help. Pure (no Django).

    language_of(text)                          "en" or "de", by the text's function words
    Evidence.of(texts)                         what a set of texts (a batch, a mind) says of its words
    discover(text, evidence=…, known=…)        the names found in `text`, each with the rule that found it
    capitalised_mention(text, name)            whether `text` writes `name` with its capitals

Capitals alone do not make a name: German capitalises every noun, and every sentence starts with
a capital. A capitalised word counts only with evidence (the rule recorded with each name):

- `handle`: an @handle ("@anna_k");
- `title`: a quoted title after a cue word ("the book “Dune”", "den Film „Das Boot“") or in
  title case ("“The Name of the Wind”");
- `phrase`: two or more capitalised words in a row, none a common word at a sentence start
  ("New York", "Marie Curie", "Bank of America");
- `name-list`: a German name of the shipped list (first names, surnames, places; Wiktionary) —
  when it is a common noun too (Koch, Mark) only without an article before it;
- `mid-sentence`: in English, a capitalised word inside a sentence; in German, one that is
  neither a known noun (the shipped list, its plural and case endings, or a compound of two known
  words: "Hauptsitz" = Haupt + Sitz) nor an English common word;
- `sentence-start`: a sentence's first word that is no common word of the language;
- `recurrence`: a common word the texts of the same mind use as a name — in English written
  capitalised inside a sentence elsewhere ("Will" at a sentence start, "met Will" in another
  memory), in German without an article at least RECURRENCE_MIN times and never with one
  ("bei Siemens", "Siemens hat");
- `known`: a name or alias the mind already knows, found whole-word; when the name is also a
  common word ("Will", "Post") only where the content writes it with its capitals.

Months, weekdays and "I" are never names; a possessive "'s" (English) or genitive "s" of a known
German name (Annas) is dropped. The word lists are in synapses/promotion/lexicon/ (README there).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

LEXICON = Path(__file__).resolve().parent / "lexicon"


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


RULE_HANDLE = "handle"
RULE_TITLE = "title"
RULE_PHRASE = "phrase"
RULE_NAME_LIST = "name-list"
RULE_MID_SENTENCE = "mid-sentence"
RULE_SENTENCE_START = "sentence-start"
RULE_RECURRENCE = "recurrence"
RULE_KNOWN = "known"
RULE_GIVEN = "given"  # the agent's `entities` (recorded by promotion, never found here)

# Bare uses of a German common noun in a mind's texts that make it a name, when it is never
# written with an article there (uses): one bare use is a mass noun as often as a name.
RECURRENCE_MIN = 2
# Longest quoted title taken (words): a longer quotation is speech, not a title.
TITLE_MAX_WORDS = 8
# Shortest last part of a German compound discovery splits, the first may be one shorter (characters).
COMPOUND_PART_MIN = 4
# The English inflections stripped before a word is looked up (as generate.py removed them).
_EN_ENDINGS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"),
               ("ly", ""), ("er", ""), ("est", ""))  # fmt: skip
# German case and plural endings stripped before a noun is looked up.
_DE_ENDINGS = ("s", "es", "n", "en", "e", "er", "ern", "nen")
# Endings of a declined German adjective.
_DE_ADJECTIVE_ENDINGS = ("e", "er", "es", "en", "em")
# Linking letters between the parts of a German compound (Fugenelemente).
_DE_LINKS = ("", "s", "es", "n", "en", "e", "er")

# Months and weekdays (their time belongs to the time anchor) and the English "I": never names.
_TIME_WORDS = _set(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday "
    "januar februar märz mai juni juli oktober dezember montag dienstag mittwoch donnerstag freitag "
    "samstag sonnabend sonntag heute morgen gestern i"
)
# German words that make the next noun a common one: articles, determiners, contractions.
_DE_DETERMINERS = _set(
    "der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner "
    "mein meine meinen meinem meiner dein deine deinen deinem deiner sein seine seinen seinem seiner "
    "ihr ihre ihren ihrem ihrer unser unsere unseren unserem euer eure jeder jede jedes jeden "
    "dieser diese dieses diesen diesem alle beim im am zum zur vom ins ans"
)
# Words that join the capitalised words of one name ("Bank of America", "Ludwig van Beethoven").
_CONNECTORS = _set("of de del da van von der den di la le du")
# Abbreviations a full stop does not end a sentence after; the honorifics among them are not part
# of the name they stand before ("Dr. Patel" is Patel).
_HONORIFICS = _set("dr mr mrs ms prof herr frau hr fr")
_ABBREVIATIONS = _HONORIFICS | _set("st nr no vs bzw ca usw etc z b")
# German prepositions after which a noun without an article is read as a name's use ("bei
# Siemens", "nach Hamburg"), as at a sentence start; not those that take bare plurals and mass
# nouns as often ("seit Jahren", "mit Zucker").
_DE_BARE_BEFORE = _set("bei nach von aus in an")
# Words before a quotation that make it a title.
_TITLE_CUES = _set(
    "book novel film movie song album show series game podcast article paper play poem episode "
    "buch roman film lied album serie spiel podcast artikel stück gedicht folge titel"
)
# Acronyms that are not names.
_NOT_ACRONYMS = _set("OK TODO FYI ASAP PS AM PM TV PDF URL API CEO CTO ETA USB ID IT HR PR QA FAQ")
# English function words, for language_of (German ones: lexicon/de-words.txt).
_EN_FUNCTION = _set(
    "the a an and or but is are was were be been am to of at on with from for by my your his her its our "
    "their i you he she it we they me him us them this that these those has have had do does did not no "
    "would can could should there here what when where who why how if then than as about after "
    "before lives works met went got just also very in"
)
# Letters only German (of the two) writes.
_UMLAUTS = frozenset("äöüß")

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_TOKEN = re.compile(r"@?[^\W_](?:[\w]|[-'’&](?=\w))*", re.UNICODE)
_QUOTED = re.compile(r"[“\"„‚«»‹]([^“”\"„‚‘’«»‹›\n]{1,120})[”“\"‘’»«›]")
_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z0-9_](?:[\w.-]*\w)?)")


@cache
def _words(name: str) -> frozenset[str]:
    return frozenset((LEXICON / name).read_text(encoding="utf-8").split())


@cache
def _english_common(lower: str) -> bool:
    """Listed, or an inflection of a listed word — of one that is itself an inflection too, as the
    list keeps neither ("quarterly": quarter, quart)."""
    if lower in _words("en.txt"):
        return True
    return any(
        lower.endswith(end) and len(lower) - len(end) >= 3 and _english_common(lower[: -len(end)] + stem)
        for end, stem in _EN_ENDINGS
    )


def _german_noun(lower: str) -> bool:
    """A known German noun: listed, or listed after a case or plural ending, or a compound whose
    last part is a listed noun and whose first is a listed word (joined by a linking letter, or
    with a final e dropped: Schul-orchester), or a hyphenated compound whose last part is one
    (WLAN-Passwort): German compounds end in their head."""
    if "-" in lower:
        return _german_noun(lower.rsplit("-", 1)[1])
    nouns = _words("de-nouns.txt")
    if lower in nouns or any(lower.endswith(end) and lower[: -len(end)] in nouns for end in _DE_ENDINGS):
        return True
    for cut in range(COMPOUND_PART_MIN - 1, len(lower) - COMPOUND_PART_MIN + 1):
        head = lower[cut:]
        if head in nouns or any(head.endswith(end) and head[: -len(end)] in nouns for end in _DE_ENDINGS):
            first = lower[:cut]
            for link in _DE_LINKS:
                if link and not first.endswith(link):
                    continue
                stem = first[: len(first) - len(link)] if link else first
                known = stem in nouns or stem + "e" in nouns or stem in _words("de-words.txt")
                if len(stem) >= COMPOUND_PART_MIN - 1 and known:
                    return True
    return False


@cache
def _german_names() -> frozenset[str]:
    return frozenset(name.lower() for name in _words("de-names.txt"))


def language_of(text: str) -> str:
    """The text's language: "de" when it has more German function words (and words with ä, ö, ü
    or ß) than English ones, or as many and more German nouns than English words; else "en"."""
    words = [word.lower() for word in _TOKEN.findall(text)]
    de_words = _words("de-words.txt")
    german = sum((word in de_words and word not in _EN_FUNCTION) or not _UMLAUTS.isdisjoint(word) for word in words)
    english = sum(word in _EN_FUNCTION and word not in de_words for word in words)
    if german == english:
        german = sum(word in _words("de-nouns.txt") for word in words)
        english = sum(_english_common(word) for word in words)
    return "de" if german > english else "en"


@dataclass(frozen=True)
class _Token:
    text: str  # as written, possessive dropped
    start: int  # of the whole token in the sentence
    end: int
    first: bool  # the sentence's first word
    previous: str  # the word before it, as written ("" at the start)
    gap: str  # what stands between the previous word and this one


def _tokens(sentence: str) -> list[_Token]:
    tokens: list[_Token] = []
    previous, last_end = "", 0
    for match in _TOKEN.finditer(sentence):
        word = match.group()
        for ending in ("'s", "’s"):
            if word.endswith(ending):
                word = word[: -len(ending)]
        gap = sentence[last_end : match.start()] if tokens else ""
        tokens.append(_Token(word, match.start(), match.start() + len(word), not tokens, previous, gap))
        previous, last_end = word, match.end()
    return tokens


def _sentences(text: str) -> list[str]:
    """The text's sentences, leading bullets and quotes dropped; a full stop after an abbreviation
    ("Dr.", "St.") does not end one."""
    sentences: list[str] = []
    for part in _SENTENCE_END.split(text):
        if not part.strip():
            continue
        last = sentences[-1].rstrip() if sentences else ""
        words = last[:-1].split() if last.endswith(".") else []
        if words and words[-1].lower().strip("(\"'“„") in _ABBREVIATIONS:
            sentences[-1] = f"{last} {part}"
        else:
            sentences.append(part)
    return [sentence.strip(" \t-*•>\"'“„") for sentence in sentences]


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and not word.startswith("@")


def _acronym(word: str) -> bool:
    return 2 <= len(word) <= 6 and word.isupper() and word.isalpha() and word not in _NOT_ACRONYMS


@dataclass
class Evidence:
    """What the texts of one mind (a promotion batch, a rebuild's history) say about words: the
    English words written capitalised inside a sentence, and the German nouns used without and
    with an article."""

    capitalised_inside: set[str] = field(default_factory=set)
    bare: Counter = field(default_factory=Counter)
    determined: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, texts: Iterable[str]) -> Evidence:
        evidence = cls()
        for text in texts:
            evidence.add(text)
        return evidence

    def add(self, text: str) -> None:
        for sentence in _sentences(text):
            for token in _tokens(sentence):
                if not _capitalised(token.text):
                    continue
                lower = token.text.lower()
                if not token.first:
                    self.capitalised_inside.add(lower)
                if token.previous.lower() in _DE_DETERMINERS:
                    self.determined.add(lower)
                elif token.first or token.previous in _DE_BARE_BEFORE:
                    self.bare[lower] += 1

    def recurring_bare(self, lower: str) -> bool:
        return self.bare[lower] >= RECURRENCE_MIN and lower not in self.determined


@dataclass(frozen=True)
class Found:
    """One name found in a text and the rule that found it."""

    name: str
    rule: str


def _name_rule(token: _Token, language: str, evidence: Evidence) -> str | None:
    """The rule by which one capitalised word is a name on its own, or None."""
    word, lower = token.text, token.text.lower()
    if lower in _TIME_WORDS or lower in _HONORIFICS or len(word) < 2:
        return None
    if lower in _EN_FUNCTION or (language == "de" and lower in _words("de-words.txt")):
        return None
    if _acronym(word):
        return RULE_MID_SENTENCE if not token.first else RULE_SENTENCE_START
    if language == "en":
        if not token.first:
            return RULE_MID_SENTENCE
        if not _english_common(lower):
            return RULE_SENTENCE_START
        return RULE_RECURRENCE if lower in evidence.capitalised_inside else None
    # German
    names = _german_names()
    genitive = lower[:-1] if lower.endswith("s") and lower[:-1] in names else None
    if lower in names or genitive:
        # A name that is a noun too (Koch, Hund) is a name where a name stands: at the sentence's
        # start, after a preposition or after another capitalised word, not after "den neuen".
        previous = token.previous
        name_place = (
            token.first
            or previous.lower() in _DE_BARE_BEFORE
            or (
                previous[:1].isupper()
                and previous.lower() not in _DE_DETERMINERS | _words("de-words.txt") | _german_names()
                and _german_noun(previous.lower())
            )
        )
        if name_place or not _german_noun(genitive or lower):
            return RULE_NAME_LIST
        return None
    if _german_noun(lower) or _english_common(lower):
        return RULE_RECURRENCE if evidence.recurring_bare(lower) else None
    return RULE_SENTENCE_START if token.first else RULE_MID_SENTENCE


def _genitive_dropped(word: str, language: str) -> str:
    lower = word.lower()
    if language == "de" and lower.endswith("s") and lower not in _german_names() and lower[:-1] in _german_names():
        return word[:-1]
    return word


def _german_adjective_phrase(tokens: list[_Token]) -> bool:
    """German writes adjectives in lower case except in names: a capitalised word with an
    adjective's ending after an article, before a capitalised word, starts a name ("die Deutsche
    Bahn", "im Blauen Mond")."""
    if len(tokens) < 2 or tokens[0].first:
        return False
    first = tokens[0].text.lower()
    return (
        tokens[0].previous.lower() in _DE_DETERMINERS
        and first.endswith(_DE_ADJECTIVE_ENDINGS)
        and first not in _german_names()
        and (not _german_noun(first) or _german_adjectival(first))
        and all(token.text[:1].isupper() for token in tokens[1:])
    )


def _german_adjectival(lower: str) -> bool:
    """A noun declined as an adjective (Deutsche, Angestellte), or a compound ending in one
    (Süddeutsche), in any of its endings."""
    adjectival = _words("de-adjectival.txt")
    stems = {lower, lower[:-1], lower[:-2]}
    return any(stem[cut:] in adjectival for stem in stems for cut in range(max(len(stem) - 3, 0)))


def _sentence_names(sentence: str, language: str, evidence: Evidence) -> list[Found]:
    """Names of one sentence: runs of capitalised words joined into phrases, each word judged."""
    tokens = _tokens(sentence)
    found: list[Found] = []
    run: list[tuple[_Token, str | None]] = []

    def close() -> None:
        while run and run[-1][0].text.lower() in _CONNECTORS:
            run.pop()
        for at in range(len(run) - 1) if language == "de" else ():
            if _german_adjective_phrase([token for token, _ in run[at:]]):
                start, end = run[at][0].start, run[-1][0].end
                found.append(Found(" ".join(sentence[start:end].split()), RULE_PHRASE))
                del run[at:]
                break
        # A phrase starts at its first word that is a name, or inside a sentence at its first word.
        while run and (
            run[0][0].text.lower() in _CONNECTORS or (run[0][1] is None and (run[0][0].first or language == "de"))
        ):
            run.pop(0)
        while language == "de" and run and run[-1][1] is None:
            run.pop()
        if not run:
            return
        capitals = [rule for token, rule in run if token.text.lower() not in _CONNECTORS]
        if not capitals:
            run.clear()
            return
        if len(capitals) >= 2:
            if language == "de" and any(rule is None for rule in capitals):
                for token, rule in run:  # a German noun inside breaks the run into its names
                    if rule is not None:
                        found.append(Found(_genitive_dropped(token.text, language), rule))
            else:
                start, end = run[0][0].start, run[-1][0].end
                found.append(Found(" ".join(sentence[start:end].split()), RULE_PHRASE))
        elif capitals[0] is not None:
            found.append(Found(_genitive_dropped(run[0][0].text, language), capitals[0]))
        run.clear()

    for token in tokens:
        if token.text.lower() in _HONORIFICS:
            close()
            continue
        after_abbreviation = token.gap.strip() == "." and token.previous.lower() in _ABBREVIATIONS
        joined = bool(run) and (token.gap.strip() in ("", "-") or after_abbreviation)
        if _capitalised(token.text) and (not run or joined):
            run.append((token, _name_rule(token, language, evidence)))
        elif run and joined and token.text.lower() in _CONNECTORS:
            run.append((token, None))
        else:
            close()
            if _capitalised(token.text):
                run.append((token, _name_rule(token, language, evidence)))
    close()
    return found


def _titles(text: str) -> list[Found]:
    found = []
    for match in _QUOTED.finditer(text):
        inner = match.group(1).strip()
        words = inner.split()
        if not words or len(words) > TITLE_MAX_WORDS or not inner[:1].isupper() or inner[-1] in ".,!?;:":
            continue
        before = [word.lower() for word in _TOKEN.findall(text[: match.start()])[-3:]]
        capitals = sum(word[:1].isupper() for word in words)
        if any(word in _TITLE_CUES for word in before) or (len(words) >= 2 and capitals * 2 > len(words)):
            found.append(Found(inner, RULE_TITLE))
    return found


def discover(text: str, *, evidence: Evidence | None = None, known: Iterable[str] = ()) -> list[Found]:
    """The names in `text`, each once (case-insensitively, the first rule that found it), in the
    order: handles, titles, the mind's known names, then the sentences' names in text order.
    `evidence`: what the mind's texts, this one among them, say (Evidence.of); without it, the
    text's own."""
    language = language_of(text)
    own = evidence if evidence is not None else Evidence.of([text])
    found = [Found("@" + handle, RULE_HANDLE) for handle in _HANDLE.findall(text)]
    titles = _titles(text)
    found += titles
    found += [Found(name, RULE_KNOWN) for name in known if capitalised_mention(text, name)]
    # A title's words and a handle are not looked at again as the sentence's words.
    stripped = _HANDLE.sub(" ", text)
    for title in titles:
        stripped = stripped.replace(title.name, " ")
    for sentence in _sentences(stripped):
        found += _sentence_names(sentence, language, own)
    kept: dict[str, Found] = {}
    for name in found:
        kept.setdefault(name.name.casefold(), name)
    return list(kept.values())


def _is_common(lower: str) -> bool:
    """An English common word, or a German one that is not also a name of the German list."""
    german = _german_noun(lower) or lower in _words("de-words.txt")
    return _english_common(lower) or (german and lower not in _german_names())


def capitalised_mention(text: str, name: str) -> bool:
    """Whether `text` mentions the known `name` as whole words: in any case, unless every word of
    it is a common word ("Will", "Post"), which counts only where written with its capitals."""
    if not name.strip():
        return False
    flags = 0 if all(_is_common(part.lower()) for part in name.split()) else re.IGNORECASE
    return re.search(r"(?<!\w)" + re.escape(name.strip()) + r"(?!\w)", text, flags) is not None
