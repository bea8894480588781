"""Times and durations as clients send them: ISO 8601 or epoch seconds; `7d`-style durations."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

from django.utils.dateparse import parse_date, parse_datetime

# Seconds per duration unit letter.
DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
# Epoch seconds beyond this are not a time a memory can carry (year 9999).
MAX_EPOCH_SECONDS = 253402300799

TIME_HELP = "Use ISO 8601 (2026-06-27T10:00:00Z) or epoch seconds."
DURATION_HELP = "Use seconds (3600) or a number with a unit s, m, h, d or w (7d)."


def parse_time(value: object) -> datetime:
    """ISO 8601 date/datetime or epoch seconds → aware UTC datetime. ValueError with a reason."""
    if isinstance(value, bool):
        raise ValueError(TIME_HELP)
    if isinstance(value, (int, float)) or isinstance(value, str) and re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", value):
        try:
            seconds = float(value)
        except OverflowError:  # a JSON integer of hundreds of digits
            seconds = math.inf
    elif isinstance(value, str):
        text = value.strip()
        try:
            parsed = parse_datetime(text)
        except ValueError:
            raise ValueError(f"{value!r} is not a valid time. {TIME_HELP}") from None
        if parsed is None:
            try:
                day = parse_date(text)
            except ValueError:
                day = None
            if day is None:
                raise ValueError(f"{value!r} is not a valid time. {TIME_HELP}")
            parsed = datetime(day.year, day.month, day.day)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    else:
        raise ValueError(TIME_HELP)
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_EPOCH_SECONDS:
        raise ValueError(f"{value!r} is out of range. {TIME_HELP}")
    return datetime.fromtimestamp(seconds, tz=UTC)


def parse_duration(value: object) -> timedelta:
    """`3600`, `90s`, `15m`, `12h`, `7d`, `2w` → timedelta (> 0). ValueError with a reason."""
    if isinstance(value, bool):
        raise ValueError(DURATION_HELP)
    match = _DURATION.match(str(value))
    if not match:
        raise ValueError(f"{value!r} is not a duration. {DURATION_HELP}")
    amount = float(match.group(1))
    seconds = amount * DURATION_UNITS[match.group(2) or "s"]
    if seconds <= 0:
        raise ValueError(f"{value!r} is not a duration; it must be more than 0 seconds.")
    if seconds > MAX_EPOCH_SECONDS:
        raise ValueError(f"{value!r} is too long; the longest duration is {MAX_EPOCH_SECONDS} seconds.")
    return timedelta(seconds=seconds)


# The ends of the representable time line: a duration may reach past them ("99999w").
EARLIEST = datetime.min.replace(tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)


def time_before(moment: datetime, span: timedelta) -> datetime:
    """`moment - span`, or EARLIEST when that would lie before the year 1."""
    try:
        return moment - span
    except OverflowError:
        return EARLIEST


def time_after(moment: datetime, span: timedelta) -> datetime:
    """`moment + span`, or LATEST when that would lie after the year 9999."""
    try:
        return moment + span
    except OverflowError:
        return LATEST
