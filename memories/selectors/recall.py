"""What recall shows: the mind's current memories in recall order, and the counts of its header."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q
from django.utils import timezone

from memories.models import RECALL_ORDER, Memory, current_filter
from memories.recall import RecallCounts, RecallEntry, RecallText, recall_render
from memories.selectors.memory import memories_of
from memoryproject.core.contributions import RecallSection, contributed_recall_sections
from minds.models import Mind
from pipelinelog.spans import current_span


@dataclass(frozen=True)
class RecallSelection:
    counts: RecallCounts
    memories: list[Memory]  # at most `limit`, in recall order


def recall_select(*, mind: Mind, limit: int, now: datetime | None = None) -> RecallSelection:
    """The first `limit` current memories in recall order (priority, then most recently updated)
    and the counts over all current memories. Two queries whatever the mind's size: the rows come
    from `memory_recall_order_idx` (mind, priority_rank, -updated_at, id) with a LIMIT, the counts from one
    aggregate."""
    now = now or timezone.now()
    current = memories_of(mind.pk).filter(current_filter(now))
    # Count("mind"), not Count("pk"): every column the count touches is in memory_count_idx, so
    # PostgreSQL answers from the index without visiting the wide rows.
    counts = current.order_by().aggregate(total=Count("mind"), verified=Count("mind", filter=Q(verified=True)))
    rows = list(current.order_by(*RECALL_ORDER)[:limit])
    return RecallSelection(
        counts=RecallCounts(
            total=counts["total"], verified=counts["verified"], unverified=counts["total"] - counts["verified"]
        ),
        memories=rows,
    )


@dataclass(frozen=True)
class Recall:
    selection: RecallSelection
    rendered: RecallText
    # What the long-term net adds for a query (the resonance), after the memory list.
    sections: tuple[RecallSection, ...] = ()

    @property
    def text(self) -> str:
        """The memory list, then each section after a blank line."""
        return self.rendered.text + "".join("\n" + section.text for section in self.sections)

    @property
    def shown_memories(self) -> list[Memory]:
        return self.selection.memories[: self.rendered.shown]


def recall_entry_of(memory: Memory) -> RecallEntry:
    return RecallEntry(
        category=memory.category,
        priority=memory.priority,
        verified=memory.verified,
        key=memory.key,
        content=memory.content,
        tags=memory.tags,
    )


def recall_build(
    *,
    mind: Mind,
    limit: int,
    max_chars: int | None = None,
    q: str = "",
    options: dict[str, str] | None = None,
) -> Recall:
    """GET /memory/recall: the selection and its text. `format=json` returns the same memories
    the text shows (`shown_memories`), so both forms agree on what `limit`/`max_chars` cut.

    With `q`, the apps above memories add their sections (the long-term net's resonance, shaped
    by `options`: mode, intent, mood) through the answer registry; `limit` and `max_chars` cut
    the memory list only. Without any contributor the log records that the resonance was skipped.
    """
    sections: tuple[RecallSection, ...] = ()
    if q:
        sections = tuple(contributed_recall_sections(mind, q, options or {}))
        if not sections:
            current_span().decision(
                {"decision": "recall.resonance", "outcome": "skipped", "reason": "no long-term net"}
            )
    selection = recall_select(mind=mind, limit=limit)
    rendered = recall_render(
        mind_name=mind.name,
        counts=selection.counts,
        entries=[recall_entry_of(memory) for memory in selection.memories],
        limit=limit,
        max_chars=max_chars,
    )
    return Recall(selection=selection, rendered=rendered, sections=sections)
