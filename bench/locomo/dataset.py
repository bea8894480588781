"""Reading a LoCoMo file and turning its dialog turns into memory inputs (pure: no Django, no database).

The format (the public LoCoMo release, `data/locomo10.json`): a list of samples, each with a
`sample_id`, a `conversation` (`speaker_a`, `speaker_b`, `session_<n>` = a list of turns
`{speaker, dia_id, text, …}`, `session_<n>_date_time` like "1:56 pm on 8 May, 2023") and `qa`
(`question`, `answer`, `evidence` = a list of dia_ids, `category` 1–5). Any file of this shape works.

Building memories reads only the conversation: the turns, their speakers and the session dates.
Questions, answers and evidence are read separately and only to score the retrieval.

A turn's `event_time` is a model of when it was said (`TURN_TIMES`): the release dates each
session ("1:56 pm on 8 May, 2023"), not each turn. `session-date` (the default) stores the
session's date alone (day precision), the same for every turn of the session: what the release
says. `turn-order` stores what a live agent writing the conversation down as it happens would:
each turn its own minute, the session's first turn at the session's clock time and every further
one `TURN_INTERVAL` later, in the order they were spoken. The choice changes the input, not the
model; on the development split it moved no system's recall beyond the difference between two
builds (docs/benchmarks.md → LoCoMo), so the default stays what the release says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

# The categories scored; 5 (adversarial: questions whose answer is not in the conversation) is left out.
SCORED_CATEGORIES = (1, 2, 3, 4)
# What the categories of the LoCoMo release ask for (its numbering, not the paper's order).
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# How a session's date is written ("1:56 pm on 8 May, 2023"), and the same without the clock time.
SESSION_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%d %B, %Y", "%d %B %Y")
# How a turn's event_time is modelled (turn_memory): its own minute in the order of the session, or
# the session's date for every turn of the session.
TURN_TIME_ORDER = "turn-order"
TURN_TIME_SESSION_DATE = "session-date"
TURN_TIMES = (TURN_TIME_ORDER, TURN_TIME_SESSION_DATE)
DEFAULT_TURN_TIME = TURN_TIME_SESSION_DATE
# Time between two consecutive turns of a session under turn-order (minutes): the session's time is
# given to the minute and minute is the product's finest event precision, so one minute is the
# smallest step that gives each turn a moment of its own; a chat reply takes about that long.
TURN_INTERVAL = timedelta(minutes=1)
# The memory category every turn is stored under: what was said in a conversation.
TURN_CATEGORY = "context"
# Evidence strings that name several turns at once ("D8:6; D9:17", malformed upstream) split here.
EVIDENCE_SEPARATOR = ";"
# The product's limits on entities (memories.limits); repeated here so this module needs no Django.
MAX_TURN_ENTITIES = 20
MAX_ENTITY_CHARS = 100

_SESSION_KEY = re.compile(r"session_(\d+)")
# A key is letters, digits and _ . : - (memories.services.validation.KEY_PATTERN); anything else becomes "-".
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_.:\-]")
# A capitalised word: an upper-case letter, then letters with at least one lower-case one (so
# acronyms like "LGBTQ" and the pronoun "I" are not names).
_CAPITALISED = re.compile(r"^[^\w]*([A-Z][A-Za-z]*[a-z][A-Za-z]*)(.*)$")
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*$")
# Capitalised words that are times, not names: the session date already anchors the turn in time.
CALENDAR_WORDS = frozenset(
    {
        *("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
        *("January", "February", "March", "April", "May", "June", "July", "August"),
        *("September", "October", "November", "December"),
    }
)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    session_date: date | None  # None when the session's date does not parse
    caption: str = ""  # what a shared image shows (`blip_caption`), "" when the turn shares none
    # The session's date and clock time (naive, as the release writes it), None without a clock time.
    session_start: datetime | None = None
    position: int = 0  # the turn's place in its session, 0 for the first


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]  # the dia_ids of the evidence that name a turn of the conversation


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, ...]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]  # categories 1–4 with at least one evidence turn
    skipped_evidence: int  # evidence strings of those categories that name no turn


def session_date_parse(text: str | None) -> date | None:
    """The date of "1:56 pm on 8 May, 2023" (or "8 May, 2023"); None when it has another form."""
    moment = _session_moment(text)
    return None if moment is None else moment[0].date()


def session_start_parse(text: str | None) -> datetime | None:
    """The date and clock time of "1:56 pm on 8 May, 2023"; None when the text gives no clock time."""
    moment = _session_moment(text)
    return moment[0] if moment is not None and moment[1] else None


def _session_moment(text: str | None) -> tuple[datetime, bool] | None:
    """The parsed session time and whether it holds a clock time (the first format does)."""
    if not text:
        return None
    for index, form in enumerate(SESSION_DATE_FORMATS):
        try:
            return datetime.strptime(text.strip(), form), index == 0
        except ValueError:
            continue
    return None


def _turns(conversation: dict) -> tuple[Turn, ...]:
    sessions = sorted(
        (int(match.group(1)), value)
        for name, value in conversation.items()
        if (match := _SESSION_KEY.fullmatch(name)) and isinstance(value, list)
    )
    turns = []
    for number, session in sessions:
        written = conversation.get(f"session_{number}_date_time")
        when, start = session_date_parse(written), session_start_parse(written)
        for position, turn in enumerate(session):
            turns.append(
                Turn(
                    dia_id=turn["dia_id"],
                    speaker=turn["speaker"],
                    text=turn["text"],
                    session=number,
                    session_date=when,
                    caption=str(turn.get("blip_caption") or "").strip(),
                    session_start=start,
                    position=position,
                )
            )
    return tuple(turns)


def evidence_resolve(evidence: Iterable[str], dia_ids: set[str]) -> tuple[frozenset[str], int]:
    """The turns `evidence` names, and how many of its parts name none.

    An evidence string may hold several dia_ids separated by ";" (malformed upstream); each part
    counts on its own, and a part that is not a dia_id of the conversation is skipped.
    """
    found: set[str] = set()
    skipped = 0
    for entry in evidence:
        for part in str(entry).split(EVIDENCE_SEPARATOR):
            dia_id = part.strip()
            if dia_id in dia_ids:
                found.add(dia_id)
            else:
                skipped += 1
    return frozenset(found), skipped


def conversation_parse(sample: dict) -> Conversation:
    conversation = sample["conversation"]
    turns = _turns(conversation)
    dia_ids = {turn.dia_id for turn in turns}
    questions, skipped = [], 0
    for qa in sample.get("qa", []):
        if qa.get("category") not in SCORED_CATEGORIES:
            continue
        evidence, unresolved = evidence_resolve(qa.get("evidence", []), dia_ids)
        skipped += unresolved
        if evidence:
            questions.append(Question(text=qa["question"], category=qa["category"], evidence=evidence))
    speakers = tuple(name for name in (conversation.get("speaker_a"), conversation.get("speaker_b")) if name)
    return Conversation(
        sample_id=str(sample.get("sample_id", "")),
        speakers=speakers,
        turns=turns,
        questions=tuple(questions),
        skipped_evidence=skipped,
    )


def dataset_load(path: Path, *, conversations: int | None = None) -> list[Conversation]:
    """The first `conversations` samples of the file (all when None)."""
    samples = json.loads(Path(path).read_text(encoding="utf-8"))
    if conversations is not None:
        samples = samples[:conversations]
    return [conversation_parse(sample) for sample in samples]


def names_in(text: str, *, speakers: Iterable[str] = ()) -> list[str]:
    """Names mentioned in `text`, by a rule that reads the text alone.

    A name is a run of capitalised words (upper-case first letter, at least one lower-case
    letter) separated by single spaces. A word does not count when it starts a sentence (first
    word of the text or after . ! ?), unless it is one of the conversation's `speakers`; nor when
    it is a weekday or a month. Punctuation or a possessive after a word ends the run ("Mel!",
    "Caroline's"). Returned in order, without repeats (case-insensitive).
    """
    known = set(speakers)
    names: list[str] = []
    run: list[str] = []
    sentence_start = True

    def close() -> None:
        if run:
            names.append(" ".join(run))
            run.clear()

    for token in text.split():
        match = _CAPITALISED.match(token)
        if match is None:
            close()
        else:
            word, rest = match.group(1), match.group(2)
            if match.start(1) > 0:  # an opening quote or bracket starts a new run
                close()
            if word not in CALENDAR_WORDS and (not sentence_start or word in known):
                run.append(word)
            else:
                close()
            if rest:
                close()
        sentence_start = bool(_SENTENCE_END.search(token))
    close()
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.lower(), name)
    return list(seen.values())


def turn_entities(turn: Turn, *, speakers: Iterable[str]) -> list[str]:
    """The speaker first, then the names in the text (`names_in`), within the product's limits."""
    entities: dict[str, str] = {turn.speaker.lower(): turn.speaker}
    for name in names_in(turn.text, speakers=speakers):
        entities.setdefault(name.lower(), name)
    return [name for name in entities.values() if len(name) <= MAX_ENTITY_CHARS][:MAX_TURN_ENTITIES]


def turn_key(dia_id: str) -> str:
    """The memory key of a turn: its dia_id ("D1:3"), with characters a key cannot hold replaced."""
    key = _KEY_UNSAFE.sub("-", dia_id)
    return key if key[:1].isalnum() else f"turn-{key}"


def turn_content(turn: Turn) -> str:
    """ "<speaker>: <text>", and " [shares <caption>]" when the turn shares an image.

    The caption is part of the turn (the dataset's description of the photo the speaker
    shared); without it a turn like "Look at this!" says nothing of what it showed.
    """
    content = f"{turn.speaker}: {turn.text}"
    return f"{content} [shares {turn.caption}]" if turn.caption else content


def turn_event_time(turn: Turn, turn_time: str = DEFAULT_TURN_TIME) -> str | None:
    """The turn's `event_time` as the client sends it (the module's docstring, `TURN_TIMES`).

    turn-order: the session's clock time plus `position × TURN_INTERVAL`, an ISO datetime in UTC
    (minute precision); a session dated without a clock time falls back to its date. session-date:
    the date (day precision). None when the session's date does not parse.
    """
    if turn_time not in TURN_TIMES:
        raise ValueError(f"unknown turn time {turn_time!r}; known: {', '.join(TURN_TIMES)}")
    if turn_time == TURN_TIME_ORDER and turn.session_start is not None:
        spoken = turn.session_start + turn.position * TURN_INTERVAL
        return spoken.strftime("%Y-%m-%dT%H:%M:00Z")
    return None if turn.session_date is None else turn.session_date.isoformat()


def turn_memory(turn: Turn, *, speakers: Iterable[str], turn_time: str = DEFAULT_TURN_TIME) -> dict:
    """The memory input of one turn, as a client would send it to POST /memory/sync."""
    fields = {
        "category": TURN_CATEGORY,
        "key": turn_key(turn.dia_id),
        "content": turn_content(turn),
        "entities": turn_entities(turn, speakers=speakers),
    }
    event_time = turn_event_time(turn, turn_time)
    if event_time is not None:
        fields["event_time"] = event_time
    return fields
