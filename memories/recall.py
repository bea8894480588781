"""The recall text: data in, text out (no ORM, no Django), so the layout is tested as golden files.

Layout (docs/recall.md):

    Mind: <name>
    Memories: N total (V verified, U unverified)

    [001] <category> (<PRIORITY>) [verified|unverified]
      <key>
      <content, every line indented>
      Tags: a, b

    … 7 more memories not shown (limit 20).

The text always ends with one newline. The counts describe the mind's current (not expired)
memories, which is what recall lists; the caller passes them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Indentation of the lines under an entry's heading (spaces).
INDENT = "  "
# Width of the zero-padded entry number: [001] … [999], then [1000].
NUMBER_WIDTH = 3
# What an empty recall says instead of entries.
EMPTY_TEXT = "No memories yet."

# Which parameter cut the list, as named in the omission line.
CUT_BY_LIMIT = "limit"
CUT_BY_MAX_CHARS = "max_chars"


@dataclass(frozen=True)
class RecallEntry:
    """What the text shows of one memory."""

    category: str
    priority: str
    verified: bool
    key: str
    content: str
    tags: Sequence[str]


@dataclass(frozen=True)
class RecallCounts:
    total: int
    verified: int
    unverified: int


@dataclass(frozen=True)
class RecallText:
    text: str
    shown: int  # how many of the entries passed in are in the text
    omitted: int  # how many current memories the text leaves out
    cut_by: str | None  # CUT_BY_LIMIT, CUT_BY_MAX_CHARS or None


def _one_line(text: str) -> str:
    """Headings, keys and tags must stay on their line whatever characters they hold."""
    return " ".join(text.split())


def header_of(mind_name: str, counts: RecallCounts) -> str:
    return (
        f"Mind: {_one_line(mind_name)}\n"
        f"Memories: {counts.total} total ({counts.verified} verified, {counts.unverified} unverified)\n"
    )


def entry_block(number: int, entry: RecallEntry) -> str:
    """One entry, ending with a newline. Blank lines inside the content keep only the indent,
    so an entry never contains an empty line (the empty line separates entries)."""
    state = "verified" if entry.verified else "unverified"
    lines = [f"[{number:0{NUMBER_WIDTH}d}] {entry.category} ({entry.priority.upper()}) [{state}]"]
    lines.append(INDENT + _one_line(entry.key))
    lines.extend(INDENT + line.rstrip() for line in entry.content.splitlines() or [""])
    tags = [_one_line(tag) for tag in entry.tags]
    if tags:
        lines.append(INDENT + "Tags: " + ", ".join(tags))
    return "\n".join(lines) + "\n"


def omission_line(omitted: int, cut_by: str, cut_value: int) -> str:
    noun = "memory" if omitted == 1 else "memories"
    return f"… {omitted} more {noun} not shown ({cut_by} {cut_value}).\n"


def recall_render(
    *,
    mind_name: str,
    counts: RecallCounts,
    entries: Sequence[RecallEntry],
    limit: int,
    max_chars: int | None = None,
) -> RecallText:
    """The recall text of `entries` (already in recall order, at most `limit` of them).

    `counts.total` is the number of current memories; when it exceeds what is shown, a last line
    says how many were left out and which parameter cut the list. With `max_chars`, entries are
    added while the whole text, omission line included, stays within `max_chars` characters; the
    header is always there, so a `max_chars` shorter than the header yields the header alone
    plus the omission line.
    """
    header = header_of(mind_name, counts)
    if counts.total == 0:
        return RecallText(text=f"{header}\n{EMPTY_TEXT}\n", shown=0, omitted=0, cut_by=None)

    blocks: list[str] = []
    length = len(header)
    cut_by: str | None = None
    for number, entry in enumerate(entries, start=1):
        block = "\n" + entry_block(number, entry)
        if max_chars is not None:
            remaining = counts.total - number
            tail = len("\n" + omission_line(remaining, CUT_BY_MAX_CHARS, max_chars)) if remaining else 0
            if length + len(block) + tail > max_chars:
                cut_by = CUT_BY_MAX_CHARS
                break
        blocks.append(block)
        length += len(block)

    shown = len(blocks)
    omitted = counts.total - shown
    text = header + "".join(blocks)
    if omitted > 0:
        if cut_by is None:
            cut_by = CUT_BY_LIMIT
        cut_value = max_chars if cut_by == CUT_BY_MAX_CHARS else limit
        text += "\n" + omission_line(omitted, cut_by, cut_value)
    return RecallText(text=text, shown=shown, omitted=omitted, cut_by=cut_by)
