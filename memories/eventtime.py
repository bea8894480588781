"""`event_time`: when the remembered thing happens or happened, with its precision.

Accepts ISO dates and datetimes and natural phrases in English and German ("yesterday",
"17.10.", "next Friday", "gestern"), parsed relative to the memory's creation time. The
result is normalised to the start of its period (a month anchor is the 1st of the month), so
time distances between anchors of the same precision are exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dateparser.date import DateDataParser
from django.utils.dateparse import parse_date, parse_datetime

from memories.models import EventPrecision

# dateparser's period names → our precisions ("time" means a clock time was given).
_PERIOD_PRECISION = {
    "time": EventPrecision.MINUTE,
    "day": EventPrecision.DAY,
    "week": EventPrecision.WEEK,
    "month": EventPrecision.MONTH,
    "quarter": EventPrecision.QUARTER,
    "year": EventPrecision.YEAR,
}
# German numeric day.month. with an optional year ("17.10.", "17.10.2025"): dateparser reads
# "17.10." as the clock time 17:10, so we take this form ourselves.
_GERMAN_DAY_MONTH = re.compile(r"^\s*(\d{1,2})\.(\d{1,2})\.(\d{2,4})?\s*$")


class EventTimeError(ValueError):
    pass


@dataclass(frozen=True)
class EventTime:
    at: datetime
    precision: str


def period_start(moment: datetime, precision: str) -> datetime:
    """The start of the period of `precision` that contains `moment`."""
    moment = moment.replace(second=0, microsecond=0)
    if precision == EventPrecision.MINUTE:
        return moment
    if precision == EventPrecision.HOUR:
        return moment.replace(minute=0)
    day = moment.replace(hour=0, minute=0)
    if precision == EventPrecision.DAY:
        return day
    if precision == EventPrecision.WEEK:
        return day - timedelta(days=day.weekday())
    if precision == EventPrecision.MONTH:
        return day.replace(day=1)
    if precision == EventPrecision.QUARTER:
        return day.replace(month=3 * ((day.month - 1) // 3) + 1, day=1)
    return day.replace(month=1, day=1)


def event_time_parse(text: str, *, relative_to: datetime, precision: str | None = None) -> EventTime:
    """Parse `text`; `precision` (when given) overrides the inferred one."""
    raw = text.strip()
    if not raw:
        raise EventTimeError("event_time is empty; give a date, a datetime or a phrase like 'yesterday'.")
    at, inferred = _parse_iso(raw) or _parse_german_day_month(raw, relative_to) or _parse_phrase(raw, relative_to)
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    at = at.astimezone(UTC)
    chosen = precision or inferred
    return EventTime(at=period_start(at, chosen), precision=chosen)


def _parse_iso(raw: str) -> tuple[datetime, str] | None:
    try:
        # A bare date first: parse_datetime would also accept it, as midnight with minute precision.
        day = parse_date(raw)
        if day is not None:
            return datetime(day.year, day.month, day.day), EventPrecision.DAY
        moment = parse_datetime(raw)
    except ValueError as error:
        raise EventTimeError(f"event_time {raw!r} is not a valid date: {error}.") from None
    return (moment, EventPrecision.MINUTE) if moment is not None else None


def _parse_german_day_month(raw: str, relative_to: datetime) -> tuple[datetime, str] | None:
    match = _GERMAN_DAY_MONTH.match(raw)
    if not match:
        return None
    day, month, year = int(match.group(1)), int(match.group(2)), match.group(3)
    full_year = relative_to.year if year is None else int(year) + (2000 if len(year) == 2 else 0)
    try:
        return datetime(full_year, month, day), EventPrecision.DAY
    except ValueError:
        raise EventTimeError(f"event_time {raw!r} is not a calendar date.") from None


def _parse_phrase(raw: str, relative_to: datetime) -> tuple[datetime, str]:
    base = relative_to.astimezone(UTC).replace(tzinfo=None)
    parser = DateDataParser(languages=["en", "de"], settings={"RETURN_TIME_AS_PERIOD": True, "RELATIVE_BASE": base})
    data = parser.get_date_data(raw)
    if data.date_obj is None:
        raise EventTimeError(
            f"event_time {raw!r} could not be understood. Use an ISO date (2026-10-17), a datetime "
            "(2026-10-17T15:00:00Z) or a phrase like 'yesterday', '17.10.', 'next Friday'."
        )
    return data.date_obj, _PERIOD_PRECISION.get(data.period or "day", EventPrecision.DAY)
