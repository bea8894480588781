"""Times and durations as clients send them."""

from datetime import UTC, datetime, timedelta

import pytest

from memoryproject.core.timeinput import (
    EARLIEST,
    LATEST,
    MAX_EPOCH_SECONDS,
    parse_duration,
    parse_time,
    time_after,
    time_before,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-06-27T10:00:00Z", datetime(2026, 6, 27, 10, 0, tzinfo=UTC)),
        ("2026-06-27T12:00:00+02:00", datetime(2026, 6, 27, 10, 0, tzinfo=UTC)),
        ("2026-06-27T10:00:00", datetime(2026, 6, 27, 10, 0, tzinfo=UTC)),  # naive means UTC
        ("2026-06-27", datetime(2026, 6, 27, tzinfo=UTC)),
        (1782554400, datetime(2026, 6, 27, 10, 0, tzinfo=UTC)),
        ("1782554400", datetime(2026, 6, 27, 10, 0, tzinfo=UTC)),
        (1782554400.5, datetime(2026, 6, 27, 10, 0, 0, 500000, tzinfo=UTC)),
    ],
)
def test_it_reads_iso_times_and_epoch_seconds_as_utc(raw, expected):
    assert parse_time(raw) == expected


@pytest.mark.parametrize("raw", ["tomorrow", "", "2026-13-01", True, None, [], -1, MAX_EPOCH_SECONDS + 1, "nan"])
def test_it_refuses_what_is_not_a_time(raw):
    with pytest.raises(ValueError):
        parse_time(raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("3600", timedelta(hours=1)),
        (90, timedelta(seconds=90)),
        ("90s", timedelta(seconds=90)),
        ("15m", timedelta(minutes=15)),
        ("12h", timedelta(hours=12)),
        ("7d", timedelta(days=7)),
        ("2w", timedelta(weeks=2)),
        (" 1.5h ", timedelta(minutes=90)),
    ],
)
def test_it_reads_durations_in_seconds_or_with_a_unit(raw, expected):
    assert parse_duration(raw) == expected


def test_a_zero_duration_is_refused_as_not_positive():
    with pytest.raises(ValueError, match="more than 0 seconds"):
        parse_duration("0d")


def test_an_endless_duration_is_refused_as_too_long():
    with pytest.raises(ValueError, match="too long"):
        parse_duration("99999999w")


@pytest.mark.parametrize("raw", ["7 days", "d", "-1d", "1y", True, ""])
def test_it_refuses_what_is_not_a_duration(raw):
    with pytest.raises(ValueError):
        parse_duration(raw)


def test_shifting_within_the_time_line_is_plain_arithmetic():
    now = datetime(2026, 6, 27, tzinfo=UTC)
    assert time_before(now, timedelta(days=1)) == datetime(2026, 6, 26, tzinfo=UTC)
    assert time_after(now, timedelta(days=1)) == datetime(2026, 6, 28, tzinfo=UTC)


def test_shifting_past_the_ends_of_time_stops_at_them():
    now = datetime(2026, 6, 27, tzinfo=UTC)
    assert time_before(now, timedelta.max) == EARLIEST == datetime(1, 1, 1, tzinfo=UTC)
    assert time_after(now, timedelta.max) == LATEST == datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
