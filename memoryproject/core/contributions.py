"""Parts of an answer that a higher app contributes to an answer a lower app builds.

`memories` builds the memory object, `/memory/stats`, `/memory/health`, the export and the
import, and `/health` counts; the long-term net (`synapses`) has something to say in each of
them (the memory's `knot_id`, its counts, its rows), but `memories` must never import it. So the
net registers an `AnswerContributor` in its `ready()` and `memories` asks the registry. Below
every app and importing none: the registry knows only ids, dicts and callables
(docs/architecture.md, "Answers the net contributes to").

Several contributors may register (each under its own name, registering again replaces it);
their dicts are merged in registration order, so a later one may fill in a key an earlier
answer left open (`last_promotion_at`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

# Writes a time as the API does (the export's format for every time).
TimeFormatter = Callable[[datetime], str]


@dataclass(frozen=True)
class ImportedSection:
    """What an import did with one section of the file (`knots`, `edges`, …)."""

    created: int = 0
    skipped: int = 0


@dataclass(frozen=True)
class KnotLink:
    """The knot holding a memory's current content, and when the link was made (its `promoted_at`)."""

    knot_id: int
    linked_at: datetime


@dataclass(frozen=True)
class RecallSection:
    """A part the recall text gets for a query (after the memory list), and the same as JSON."""

    name: str  # its key in recall's JSON form (`resonance`)
    text: str  # appended after a blank line; ends with one newline
    data: dict[str, Any]


@dataclass(frozen=True)
class PageSection:
    """A part a higher app adds to a page of the human UI: the template that draws it, and its context."""

    template: str
    context: dict[str, Any]


@dataclass(frozen=True)
class AnswerContributor:
    """What one app adds. Every part is optional; each takes the mind's id, never a model, but
    `recall_section`, which takes the Mind recall loaded."""

    name: str
    # /health `stats`: global counts (cached with the others for a minute).
    service_counts: Callable[[], dict[str, int]] | None = None
    # /memory/stats of one mind.
    mind_stats: Callable[[str], dict[str, Any]] | None = None
    # /memory/health of one mind, at `now`.
    mind_health: Callable[[str, datetime], dict[str, Any]] | None = None
    # The dashboard's part of /memory/health for many minds at once: (mind ids, `now`) in,
    # `{mind id: {...}}` out, in a number of queries that does not grow with the minds.
    minds_health: Callable[[Sequence[str], datetime], dict[str, dict[str, Any]]] | None = None
    # The knot holding each memory's current content and when it came to: (memory id, content
    # hash) pairs in, one query for all of them, `{memory id: KnotLink}` out (memories without one
    # left out).
    memory_knot_ids: Callable[[str, Sequence[tuple[str, str]]], dict[str, KnotLink]] | None = None
    # The export's sections after `memories`, streamed: (section name, its rows) in file order.
    export_sections: Callable[[str, TimeFormatter], Iterator[tuple[str, Iterable[dict]]]] | None = None
    # The names of the sections `import_sections` reads (the import accepts them, none else).
    section_names: tuple[str, ...] = ()
    # Reads those sections of an import into the mind, inside the import's transaction.
    # `memory_ids` maps the file's memory ids to the target mind's. Raises ValidationFailed
    # with fields named by section and index (`knots.3.memory_id`); idempotent.
    import_sections: Callable[[str, Mapping[str, Any], Mapping[str, str]], dict[str, ImportedSection]] | None = None
    # GET /memory/recall?q=: (the Mind recall loaded, q, {mode, intent, mood}) in, the section
    # for the query out. The one part given the model, not its id: the section reads the mind's
    # settings (its modes), which recall has in hand already. May raise ValidationFailed naming a
    # bad option (an unknown mode or mood).
    recall_section: Callable[[Any, str, Mapping[str, str]], RecallSection] | None = None
    # The UI's memory page: (mind id, memory id) in, the section the page shows for it out.
    memory_page_section: Callable[[str, str], PageSection] | None = None
    # Erasing a memory, inside the deleting transaction and before its row goes: (mind id, memory
    # id, the content hash of the version to keep — None when the whole memory goes) in; the app
    # deletes what it copied of the other versions and returns those copies' texts, for the log's
    # search (pipelinelog.erasure).
    memory_erase: Callable[[str, str, str | None], list[str]] | None = None


_contributors: dict[str, AnswerContributor] = {}


def answer_contributor_register(contributor: AnswerContributor) -> None:
    _contributors[contributor.name] = contributor


def answer_contributors() -> list[AnswerContributor]:
    return list(_contributors.values())


def contributed_service_counts() -> dict[str, int]:
    counts: dict[str, int] = {}
    for contributor in answer_contributors():
        if contributor.service_counts:
            counts.update(contributor.service_counts())
    return counts


def contributed_mind_stats(mind_id: str) -> dict[str, Any]:
    stats: dict[str, Any] = {}
    for contributor in answer_contributors():
        if contributor.mind_stats:
            stats.update(contributor.mind_stats(mind_id))
    return stats


def contributed_mind_health(mind_id: str, now: datetime) -> dict[str, Any]:
    health: dict[str, Any] = {}
    for contributor in answer_contributors():
        if contributor.mind_health:
            health.update(contributor.mind_health(mind_id, now))
    return health


def contributed_minds_health(mind_ids: Sequence[str], now: datetime) -> dict[str, dict[str, Any]]:
    """The `minds_health` parts of every contributor, merged per mind in registration order."""
    health: dict[str, dict[str, Any]] = {mind_id: {} for mind_id in mind_ids}
    if not mind_ids:
        return health
    for contributor in answer_contributors():
        if contributor.minds_health:
            for mind_id, part in contributor.minds_health(mind_ids, now).items():
                health.setdefault(mind_id, {}).update(part)
    return health


def contributed_knot_ids(mind_id: str, memories: Sequence[tuple[str, str]]) -> dict[str, KnotLink]:
    """`{memory id: KnotLink}` for the (memory id, content hash) pairs of one mind that have one."""
    knot_ids: dict[str, KnotLink] = {}
    if not memories:
        return knot_ids
    for contributor in answer_contributors():
        if contributor.memory_knot_ids:
            knot_ids.update(contributor.memory_knot_ids(mind_id, memories))
    return knot_ids


def contributed_export_sections(mind_id: str, represent_time: TimeFormatter) -> Iterator[tuple[str, Iterable[dict]]]:
    for contributor in answer_contributors():
        if contributor.export_sections:
            yield from contributor.export_sections(mind_id, represent_time)


def contributed_section_names() -> tuple[str, ...]:
    return tuple(name for contributor in answer_contributors() for name in contributor.section_names)


def contributed_import(
    mind_id: str, sections: Mapping[str, Any], memory_ids: Mapping[str, str]
) -> dict[str, ImportedSection]:
    """Hands each contributor the sections it reads; nothing is called when they are all empty."""
    done: dict[str, ImportedSection] = {}
    for contributor in answer_contributors():
        if not contributor.import_sections:
            continue
        own = {name: sections.get(name) or [] for name in contributor.section_names}
        if any(own.values()):
            done.update(contributor.import_sections(mind_id, own, memory_ids))
        else:
            done.update(dict.fromkeys(contributor.section_names, ImportedSection()))
    return done


def contributed_recall_sections(mind: Any, q: str, options: Mapping[str, str]) -> list[RecallSection]:
    """The sections the recall text of `q` gets, in registration order (`mind`: the Mind model,
    untyped here because this module imports no app)."""
    return [
        contributor.recall_section(mind, q, options)
        for contributor in answer_contributors()
        if contributor.recall_section
    ]


def contributed_memory_page_sections(mind_id: str, memory_id: str) -> list[PageSection]:
    """The sections the UI's memory page shows after the memory itself, in registration order."""
    return [
        contributor.memory_page_section(mind_id, memory_id)
        for contributor in answer_contributors()
        if contributor.memory_page_section
    ]


def contributed_memory_erase(mind_id: str, memory_id: str, keep_content_hash: str | None) -> list[str]:
    """Every contributor's copies of the memory (of its versions other than `keep_content_hash`)
    deleted; their texts returned."""
    return [
        text
        for contributor in answer_contributors()
        if contributor.memory_erase
        for text in contributor.memory_erase(mind_id, memory_id, keep_content_hash)
    ]
