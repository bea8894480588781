"""Compaction's grouping, pure: memories grouped by tag overlap, and the summary text of a group
(docs/api-memory.md, "Compaction"). No Django: anything with an id, tags and content."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol, TypeVar

# Prefix of each member's line in the summary (an extractive list).
SUMMARY_BULLET = "- "
# Indentation of a member's second and later lines under its bullet.
SUMMARY_CONTINUATION = "  "


class Clusterable(Protocol):
    @property
    def pk(self) -> str: ...
    @property
    def tags(self) -> Sequence[str]: ...
    @property
    def content(self) -> str: ...


Item = TypeVar("Item", bound=Clusterable)


def summary_entry(content: str) -> str:
    """One member's part of the summary: its bullet, and its further lines indented under it."""
    first, *rest = content.splitlines() or [""]
    return "\n".join([SUMMARY_BULLET + first, *(SUMMARY_CONTINUATION + line if line else "" for line in rest)])


def summary_content(contents: Sequence[str]) -> str:
    """The members' contents as a list, one bullet each, oldest first; their own line breaks are
    kept, indented under the bullet."""
    return "\n".join(summary_entry(content) for content in contents)


def clusters_by_tag(
    items: Sequence[Item], *, max_clusters: int, min_cluster_size: int, max_members: int, max_chars: int
) -> list[tuple[list[Item], list[str]]]:
    """Group items by tag overlap, greedily: the tag most of the remaining items carry (ties:
    alphabetical) seeds a group of the remaining items carrying it (in the given order, at most
    `max_members`, and no more than fit into one summary of `max_chars` characters); an item
    joins at most one group. Stops when no tag is carried by `min_cluster_size` remaining items,
    or at `max_clusters` groups. Returns `[(members, shared tags)]`; the shared tags are those
    every member carries, in the order of the first member's tags."""
    remaining = list(items)
    tried: set[str] = set()
    groups: list[tuple[list[Item], list[str]]] = []
    while len(groups) < max_clusters:
        counts = Counter(tag for item in remaining for tag in set(item.tags) if tag not in tried)
        ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
        if not ranked or ranked[0][1] < min_cluster_size:
            break
        seed = ranked[0][0]
        tried.add(seed)
        members: list[Item] = []
        length = 0  # of the summary of `members`: their entries joined by line breaks
        for item in remaining:
            if seed not in item.tags:
                continue
            longer = length + (1 if members else 0) + len(summary_entry(item.content))
            if longer > max_chars:
                break
            members.append(item)
            length = longer
            if len(members) == max_members:
                break
        if len(members) < min_cluster_size:
            continue  # the theme's items are too long to fold together; try the next tag
        shared = [tag for tag in members[0].tags if all(tag in member.tags for member in members[1:])]
        groups.append((members, shared))
        taken = {member.pk for member in members}
        remaining = [item for item in remaining if item.pk not in taken]
    return groups
