"""Time anchors named in a text, relative to a reference moment, with the precision each phrase has. Pure.

    time_anchors_find(text, reference)   every anchor, in the order of the text

A memory's content often says when its event was: "yesterday", "last Friday", "on 3 May",
"2023-05-07", "next week", "gestern", "letzten Freitag", "am 3. Mai", "nächste Woche". Promotion
anchors the knot in time by the first of them, relative to the memory's `event_time` (or its
creation), so the temporal edge layer links what happened close together (docs/synapse-model.md
§3, "Time anchors in the content").

Each anchor is the start of its period, as `event_time` is (memories.eventtime.period_start): a
day at midnight, a week on its Monday, a month on its 1st, a year on 1 January, in the
reference's time zone. What is read, in English and German:

- day words: yesterday / today / tonight / tomorrow / the day before yesterday / the day after
  tomorrow; vorgestern / gestern / heute / morgen / übermorgen (day);
- last / this / next week, month, year; letzte(n) / vorige / vergangene / diese(n) / nächste(n)
  / kommende(n) Woche, Monat, Jahr (week, month, year);
- last / this / next Friday; letzten / vergangenen / diesen / nächsten / kommenden Freitag
  (day): "last" is the latest such day before the reference's, "next" the first after it,
  "this" the one in the reference's week;
- N days / weeks / months / years ago, in N …; vor N Tagen …, in N Tagen … (N in digits or a
  number word up to twelve, "a", "ein…") (the unit's precision);
- dates: 2023-05-07, 07.05.2023, 7.5., 3 May [2023], May 3[, 2023], the 3rd of May, am 3. Mai
  [2023] (day); 2023-05, May 2023, in / since / during May, im Mai (month); in 2023, im Jahr
  2023 (year). A date without a year is in the reference's year.

What is left alone, on purpose: a weekday alone ("on Friday": past or future cannot be told),
English month names not capitalised ("we may go", "they march"), a month name that could be a
word or a name unless a day, a year or a preposition goes with it ("May I come?", "March is
cold", "May's car"), weekday abbreviations ("Sat" is a verb), "We", and "Morgen" capitalised
inside a sentence (the morning, not tomorrow).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

# The precisions an anchor may have: the values of memories.models.EventPrecision.
DAY, WEEK, MONTH, YEAR = "day", "week", "month", "year"

_MONTHS_EN = {
    name: number
    for number, names in enumerate(
        ("January Jan", "February Feb", "March Mar", "April Apr", "May", "June Jun", "July Jul",
         "August Aug", "September Sep Sept", "October Oct", "November Nov", "December Dec"),
        start=1,
    )
    for name in names.split()
}  # fmt: skip
_MONTHS_DE = {
    name: number
    for number, names in enumerate(
        ("Januar Jänner", "Februar", "März Maerz", "April", "Mai", "Juni", "Juli", "August", "September",
         "Oktober", "November", "Dezember"),
        start=1,
    )
    for name in names.split()
}  # fmt: skip
_WEEKDAYS = {
    name: number
    for number, names in enumerate(
        ("monday montag", "tuesday dienstag", "wednesday mittwoch", "thursday donnerstag", "friday freitag",
         "saturday samstag sonnabend", "sunday sonntag")
    )
    for name in names.split()
}  # fmt: skip
_NUMBER_WORDS = {
    name: number
    for number, names in enumerate(
        ("", "a an one ein eine einem einer einen eins", "two zwei", "three drei", "four vier", "five fünf",
         "six sechs", "seven sieben", "eight acht", "nine neun", "ten zehn", "eleven elf", "twelve zwölf"),
    )
    for name in names.split()
}  # fmt: skip
_UNITS = {
    "day": DAY, "days": DAY, "tag": DAY, "tage": DAY, "tagen": DAY,
    "week": WEEK, "weeks": WEEK, "woche": WEEK, "wochen": WEEK,
    "month": MONTH, "months": MONTH, "monat": MONTH, "monate": MONTH, "monaten": MONTH,
    "year": YEAR, "years": YEAR, "jahr": YEAR, "jahre": YEAR, "jahren": YEAR,
}  # fmt: skip
_DAY_WORDS = {
    "the day before yesterday": -2, "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1,
    "the day after tomorrow": 2, "vorgestern": -2, "gestern": -1, "heute": 0, "übermorgen": 2,
}  # fmt: skip
_LAST = ("last", "previous", "letzte", "letzten", "letzter", "letztes", "vorige", "vorigen", "voriger",
         "voriges", "vergangene", "vergangenen", "vergangener", "vergangenes")  # fmt: skip
_THIS = ("this", "diese", "diesen", "dieser", "dieses")
_NEXT = ("next", "coming", "nächste", "nächsten", "nächster", "nächstes", "kommende", "kommenden", "kommender",
         "kommendes")  # fmt: skip


def _alternatives(words) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


# Month names as written: English ones capitalised only ("may" is a verb), German ones too.
_MONTH_EN = f"(?P<month>{_alternatives(_MONTHS_EN)})"
_MONTH_DE = f"(?P<month>{_alternatives(_MONTHS_DE)})"
# Full English names only where a month stands without a day ("in Jun" is rare, "in Mar" a typo).
_MONTH_EN_FULL = f"(?P<month>{_alternatives(name for name in _MONTHS_EN if len(name) > 3 or name == 'May')})"
_MONTH_DE_NAMED = f"(?P<month_de>{_alternatives(_MONTHS_DE)})"
_NUMBER = f"(?P<n>\\d{{1,3}}|(?i:{_alternatives(n for n in _NUMBER_WORDS if n)}))"
_UNIT = f"(?P<unit>(?i:{_alternatives(_UNITS)}))"
_DAY = r"(?P<day>\d{1,2})"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_ORDINAL = r"(?:st|nd|rd|th)?"
# No letter, digit or joining mark right before or after a phrase.
_BEFORE, _AFTER = r"(?<![\w.\-/:])", r"(?![\w'’]|[.\-/:]\d)"


@dataclass(frozen=True)
class TimeAnchor:
    """A phrase of the text that names a time: the start of the period it names and its precision."""

    at: datetime
    precision: str
    phrase: str
    start: int  # offset of the phrase in the text (characters)


def _midnight(day: date, reference: datetime) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=reference.tzinfo)


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _period(day: date, precision: str) -> date:
    """The first day of the period of `precision` that holds `day`."""
    if precision == WEEK:
        return day - timedelta(days=day.weekday())
    if precision == MONTH:
        return day.replace(day=1)
    if precision == YEAR:
        return day.replace(month=1, day=1)
    return day


def _shifted(day: date, precision: str, steps: int) -> date:
    """`day` moved by `steps` periods of `precision`, at the start of the period it lands in."""
    if precision == DAY:
        return day + timedelta(days=steps)
    if precision == WEEK:
        return _period(day + timedelta(weeks=steps), WEEK)
    if precision == MONTH:
        return _add_months(day, steps)
    return date(day.year + steps, 1, 1)


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text.lower()]


def _direction(word: str) -> int:
    lowered = word.lower()
    return -1 if lowered in _LAST else 1 if lowered in _NEXT else 0


def _calendar(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# --- the rules: a pattern and what its match names, (day, precision) or None -------------------


@dataclass(frozen=True)
class _Rule:
    """A pattern, what its match names ((day, precision), the day None for no calendar day), and
    the words (lower-cased) of which a text must hold one for the pattern to be tried at all, or
    DIGITS: most texts name no time, and one set lookup is cheaper than twenty regular expressions."""

    pattern: re.Pattern[str]
    handler: Callable[[re.Match[str], date], tuple[date | None, str]]
    needs: frozenset[str]


# A rule's `needs` for the numeric dates: any digit in the text.
DIGITS = frozenset({"<digit>"})
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")


def _day_words(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    return ref + timedelta(days=_DAY_WORDS[m["word"].lower()]), DAY


def _tomorrow(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    return ref + timedelta(days=1), DAY


def _relative_period(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    precision = _UNITS[m["unit"].lower()]
    return _shifted(_period(ref, precision), precision, _direction(m["which"])), precision


def _relative_weekday(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    weekday, direction = _WEEKDAYS[m["weekday"].lower()], _direction(m["which"])
    if direction < 0:  # the latest such day before the reference's day
        return ref - timedelta(days=(ref.weekday() - weekday - 1) % 7 + 1), DAY
    if direction > 0:  # the first such day after it
        return ref + timedelta(days=(weekday - ref.weekday() - 1) % 7 + 1), DAY
    return ref + timedelta(days=weekday - ref.weekday()), DAY


def _ago(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    precision = _UNITS[m["unit"].lower()]
    return _shifted(ref, precision, -_number(m["n"])), precision


def _ahead(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    precision = _UNITS[m["unit"].lower()]
    return _shifted(ref, precision, _number(m["n"])), precision


def _month_number(name: str) -> int:
    return _MONTHS_EN.get(name) or _MONTHS_DE[name]


def _full_date(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    month = int(m["month"]) if m["month"].isdigit() else _month_number(m["month"])
    year = ref.year if not m["year"] else int(m["year"]) + (2000 if len(m["year"]) == 2 else 0)
    return _calendar(year, month, int(m["day"])), DAY


def _month(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    month = int(m["month"]) if m["month"].isdigit() else _month_number(m["month"])
    year = int(m["year"]) if m.groupdict().get("year") else ref.year
    return _calendar(year, month, 1), MONTH


def _relative_month(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    month, direction = _month_number(m["month"]), _direction(m["which"])
    year = ref.year
    if direction < 0 and month >= ref.month:
        year -= 1
    elif direction > 0 and month <= ref.month:
        year += 1
    return date(year, month, 1), MONTH


def _year(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    return date(int(m["year"]), 1, 1), YEAR


def _rule(pattern: str, handler, needs) -> _Rule:
    return _Rule(re.compile(_BEFORE + pattern + _AFTER), handler, frozenset(word.lower() for word in needs))


_MONTH_WORDS = (*_MONTHS_EN, *_MONTHS_DE)


_WHICH_PERIOD = f"(?P<which>(?i:{_alternatives((*_LAST, *_THIS, *_NEXT))}))"
_WHICH_MONTH = f"(?P<which>(?i:{_alternatives(('last', 'next', 'this'))}))"

_RULES: tuple[_Rule, ...] = (
    _rule(f"(?P<word>(?i:{_alternatives(_DAY_WORDS)}))", _day_words, (w.split()[-1] for w in _DAY_WORDS)),
    _rule(r"morgen", _tomorrow, ["morgen"]),  # lower-case: "Morgen" is the morning
    _rule(r"(?:^|(?<=[.!?]\s))Morgen", _tomorrow, ["morgen"]),  # a sentence's first word is capitalised
    _rule(rf"{_WHICH_PERIOD}\s+{_UNIT}", _relative_period, _UNITS),
    _rule(rf"{_WHICH_PERIOD}\s+(?P<weekday>(?i:{_alternatives(_WEEKDAYS)}))", _relative_weekday, _WEEKDAYS),
    _rule(rf"{_NUMBER}\s+{_UNIT}\s+(?i:ago)", _ago, ["ago"]),
    _rule(rf"(?i:vor)\s+{_NUMBER}\s+{_UNIT}", _ago, ["vor"]),
    _rule(rf"(?i:in)\s+{_NUMBER}\s+{_UNIT}", _ahead, _UNITS),
    _rule(r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})", _full_date, DIGITS),
    _rule(r"(?P<year>\d{4})-(?P<month>\d{2})", _month, DIGITS),
    _rule(r"(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4}|\d{2})", _full_date, DIGITS),
    # Without a year only after a preposition: "iOS 17.4." is a version.
    _rule(r"(?i:am|ab|den|vom|zum|bis|on)\s+(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>)", _full_date, DIGITS),
    _rule(rf"(?:(?i:the)\s+)?{_DAY}{_ORDINAL}\s+(?:(?i:of)\s+)?{_MONTH_EN}\.?(?:,?\s+{_YEAR})?", _full_date,
          _MONTHS_EN),
    _rule(rf"{_MONTH_EN}\.?\s+{_DAY}{_ORDINAL}(?:,?\s+{_YEAR})?", _full_date, _MONTHS_EN),
    _rule(rf"{_DAY}\.\s*{_MONTH_DE}(?:\s+{_YEAR})?", _full_date, _MONTHS_DE),
    _rule(rf"(?:{_MONTH_EN_FULL}|{_MONTH_DE_NAMED})\s+{_YEAR}", lambda m, ref: _month_named(m, ref), _MONTH_WORDS),
    _rule(rf"(?i:in|since|during|until|by|early|late|mid)\s+{_MONTH_EN_FULL}(?:,?\s+{_YEAR})?", _month, _MONTHS_EN),
    _rule(rf"(?i:im|seit|bis|anfang|mitte|ende)\s+{_MONTH_DE}(?:\s+{_YEAR})?", _month, _MONTHS_DE),
    _rule(rf"{_WHICH_MONTH}\s+{_MONTH_EN_FULL}", _relative_month, _MONTHS_EN),
    _rule(rf"(?i:in|since|during|im\s+jahre?|seit)\s+{_YEAR}", _year, DIGITS),
)  # fmt: skip


def _month_named(m: re.Match[str], ref: date) -> tuple[date | None, str]:
    name = m["month"] or m["month_de"]
    return _calendar(int(m["year"]), _month_number(name), 1), MONTH


def time_anchors_find(text: str, reference: datetime) -> list[TimeAnchor]:
    """Every time anchor of `text` relative to `reference`, in the order of the text. Where two
    phrases overlap, the longer one counts ("3 May 2023" over "May 2023"); a phrase naming no
    calendar day ("31 June") is none."""
    ref = reference.date()
    words = set(_WORD.findall(text.lower()))
    if _DIGIT.search(text):
        words |= DIGITS
    found: list[tuple[int, int, TimeAnchor]] = []
    for rule in _RULES:
        if rule.needs.isdisjoint(words):
            continue
        for match in rule.pattern.finditer(text):
            day, precision = rule.handler(match, ref)
            if day is not None:
                anchor = TimeAnchor(_midnight(day, reference), precision, match.group(0), match.start())
                found.append((match.start(), match.end(), anchor))
    found.sort(key=lambda item: (item[0], -(item[1] - item[0])))
    kept: list[TimeAnchor] = []
    reached = -1
    for start, end, anchor in found:
        if start >= reached:
            kept.append(anchor)
            reached = end
    return kept
