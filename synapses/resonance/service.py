"""Recall with resonance: what the query brings up from the long-term net (docs/synapse-model.md §5, §8).

Passive: nothing here writes a weight. The statements of one call, whatever the size of the net
or the number of results (tests/synapses/test_resonance_service.py pins them; each is written
whole in synapses.resonance.sql):

1. the active goals (gravity; skipped when the factor is 0): search_vector here,
2. the vector plan and, for a large mind, its common lexemes (synapses.resonance.anchors),
3. the anchor candidates: full-text and vector lists in one statement (anchors), and in the same
   message the same lists of the mind's pending memories (synapses.resonance.pending),
4. one statement per shell of spreading activation (synapses.resonance.spread),
5. the resulting knots with their memory links, the superseded flag and the entity names: here.

The arithmetic (ranking, dedup, gravity, modes, the text) is in the pure
`synapses.resonance.arithmetic`; what recall's text gets of it is `synapses.resonance.contribution`.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import numpy as np
from django.db import connection

from memories.embedders import get_embedder
from memories.embedders.installation import mind_embedder_refuse
from memories.emotions import emotion_canonical
from memoryproject.core.domain import ValidationFailed
from minds.models import Mind
from pipelinelog.spans import current_span, span
from synapses import constants
from synapses.config import synapse_settings
from synapses.resonance.anchors import anchor_candidates, anchor_list_sizes
from synapses.resonance.arithmetic import (
    GravityShift,
    Mode,
    RankedKnot,
    Reached,
    gravity_shift,
    mode_of,
    modes_with_overrides,
    mood_problem,
    ranked,
    ranked_by_relevance,
    unknown_mode_message,
)
from synapses.resonance.contradiction import Said, contradictions_order
from synapses.resonance.pending import PendingMemory, pending_item
from synapses.resonance.spread import spread
from synapses.resonance.sql import DETAILS_SQL, GOALS_SQL

# --- modes and mood -----------------------------------------------------------------------------


def mind_modes(mind: Mind) -> tuple[dict[str, Mode], dict[str, str]]:
    """The modes this mind knows (the defaults with its overrides) and the overrides left out."""
    return modes_with_overrides((mind.settings or {}).get(constants.MIND_MODES_SETTING))


def mode_resolve(mind: Mind, name: str) -> Mode:
    """The mind's mode called `name` (empty: `default`); ValidationFailed listing the known ones."""
    modes, _ = mind_modes(mind)
    mode = mode_of(name, modes)
    if mode is None:
        raise ValidationFailed({"mode": [unknown_mode_message(name, modes)]})
    return mode


def mood_resolve(label: str) -> str:
    """The canonical label of the mood `label` ("" for none); ValidationFailed naming the known
    labels for an unknown one. The one check of a mood, for the API's parameters and recall's."""
    problem = mood_problem(label)
    if problem:
        raise ValidationFailed({"mood": [problem]})
    return emotion_canonical(label) or ""


# --- search vector ------------------------------------------------------------------------------


def search_vector(*, mind: Mind, q: str, mode: Mode, intent: str) -> GravityShift:
    """The embedding of `q` bent by the mind's active goals (perception gravity), with exactly
    one `calculation` log row saying what gravity did."""
    embedder = get_embedder()
    mind_embedder_refuse(mind.pk, recorded=mind.embedding_model, running=embedder.name)
    raw = embedder.embed([q])[0]
    raw_intent = intent.strip().lower() in constants.RAW_SEARCH_INTENTS
    goals: list[tuple[int, Any, float]] = []
    if not raw_intent and mode.gravity_factor > 0:
        with connection.cursor() as cursor:
            cursor.execute(GOALS_SQL, {"mind_id": mind.pk, "model": embedder.name})
            goals = [
                (goal_id, np.asarray(vector, dtype=np.float64), motivation)
                for goal_id, vector, motivation in cursor.fetchall()
            ]
    shift = gravity_shift(
        raw, goals, factor=mode.gravity_factor, raw_intent=raw_intent, threshold=synapse_settings.GRAVITY_THRESHOLD
    )
    current_span().calculation(
        {"calculation": "perception_gravity", "mode": mode.name, "mode_factor": mode.gravity_factor, **shift.as_log()}
    )
    return shift


# --- the answer ---------------------------------------------------------------------------------


class KnotDetails(NamedTuple):
    """A result knot's row of DETAILS_SQL (its last column, the path entities' names, apart)."""

    id: int
    memory_id: str
    content: str
    themes: list[str]
    emotion: str
    observer: str
    created_at: Any  # datetime
    linked: list[str]  # every memory linked to the knot, oldest link first
    superseded: bool
    entity_names: list[str]


def _knot_details(
    mind_id: str, knot_ids: list[int], path_entities: set[int]
) -> tuple[dict[int, KnotDetails], dict[int, str]]:
    """The result knots' details by id, and the names of `path_entities`. One statement, none for
    no knots."""
    if not knot_ids:
        return {}, {}
    with connection.cursor() as cursor:
        cursor.execute(DETAILS_SQL, {"mind_id": mind_id, "ids": knot_ids, "path_entities": sorted(path_entities)})
        rows = cursor.fetchall()
    details = {row[0]: KnotDetails._make(row[:-1]) for row in rows}
    names = {int(entity_id): name for entity_id, name in json.loads(rows[0][-1]).items()} if rows else {}
    return details, names


def _contradictions_apply(
    result: list[RankedKnot], details: dict[int, KnotDetails], pending: dict[int, PendingMemory], limit: int
) -> tuple[list[RankedKnot], dict[int, int]]:
    """The ranked knots after the contradiction step (synapses.resonance.contradiction), cut to
    `limit` and numbered again from 1, and which newer knot contradicts which. Logs a decision
    when it moved anything. Pending memories (by their stand-in ids) take part: one stored a
    moment ago is the newest of all, so it outranks the older knot it contradicts at once."""
    said = [
        Said(k.reached.knot_id, details[k.reached.knot_id].content,
             (details[k.reached.knot_id].created_at, k.reached.knot_id))
        if k.reached.knot_id in details
        else Said(k.reached.knot_id, pending[k.reached.knot_id].content,
                  (pending[k.reached.knot_id].created_at, k.reached.knot_id))
        for k in result
        if k.reached.knot_id in details or k.reached.knot_id in pending
    ]  # fmt: skip
    order, contradicted_by = contradictions_order(said)
    if not contradicted_by:
        return result[:limit], {}
    by_id = {k.reached.knot_id: k for k in result}
    reordered = [
        RankedKnot(rank=i, reached=by_id[knot_id].reached, rank_weight=by_id[knot_id].rank_weight)
        for i, knot_id in enumerate(order[:limit], start=1)
    ]
    current_span().decision(
        {"decision": "contradictions", "contradicted_by": {str(k): v for k, v in contradicted_by.items()},
         "order": order[:limit]}
    )  # fmt: skip
    return reordered, contradicted_by


def _with_contradiction(
    item: dict[str, Any], newer: int | None, pending: dict[int, PendingMemory], memory_of: dict[int, str]
) -> dict[str, Any]:
    """`item` with the newer result that contradicts it: `contradicted_by` its knot id (null when
    it is a memory not in the net yet), `contradicted_by_memory_id` its memory either way."""
    item["contradicted_by"] = None if newer is None or newer in pending else newer
    item["contradicted_by_memory_id"] = None if newer is None else memory_of.get(newer)
    return item


def _item(knot: RankedKnot, details: KnotDetails, names: dict[int, str]) -> dict[str, Any]:
    reached = knot.reached
    memory_ids = [details.memory_id, *dict.fromkeys(m for m in details.linked if m != details.memory_id)]
    return {
        "rank": knot.rank,
        "knot_id": reached.knot_id,
        "in_net": True,
        "memory_id": details.memory_id,
        "memory_ids": memory_ids,
        "content": details.content,
        "themes": list(details.themes),
        "entities": list(details.entity_names),
        "emotion": details.emotion,
        "observer": details.observer,
        "created_at": details.created_at,
        "weight_present": reached.weight_present,
        "shell": reached.shell,
        "rank_weight": knot.rank_weight,
        "superseded": details.superseded,
        "contradicted_by": None,  # set by _with_contradiction, the one place that knows
        "path": [
            {
                "from_knot_id": step.from_knot_id,
                "edge_id": step.edge_id,
                "layers": list(step.layers),
                "shared_entities": [names[e] for e in step.shared_entities if e in names],
                "shared_themes": list(step.shared_themes),
            }
            for step in reached.path
        ],
    }


def resonance_of(
    *,
    mind: Mind,
    q: str,
    mode: Mode | str = "",
    intent: str = "",
    mood: str = "",
    limit: int,
    ranking: str | None = None,
) -> dict[str, Any]:
    """GET /synapses/resonance: the mind's knots resonating with `q`, strongest first (§5.6).

    `mode`: a Mode the caller resolved against the mind's modes (the API's parameters are checked
    against mind_modes), or its name, resolved here (ValidationFailed for an unknown one). `mood`:
    a canonical label or "" (mood_resolve). `limit` knots whenever the net holds that many active
    knots that are anchor candidates or reachable from the anchors. `ranking` (default: the
    RESONANCE_RANKING setting): "relevance" weighs every anchor candidate and every knot
    spreading reached by the query (ranked_by_relevance); "seed" ranks the anchors and their
    spread by presence, and further anchor candidates (shell 0, no path) only fill the list when
    spreading yields fewer. One pipeline-log span `synapses.resonance` records the search
    vector, anchors, shells, paths, factors and the outcome.
    """
    chosen = mode if isinstance(mode, Mode) else mode_resolve(mind, mode)
    ranking = ranking or synapse_settings.RESONANCE_RANKING
    relevance = ranking == constants.RANKING_RELEVANCE
    with span("synapses.resonance", mind=mind) as log:
        log.input({"q": q[:200], "mode": chosen.name, "intent": intent, "mood": mood, "limit": limit,
                   "ranking": ranking})  # fmt: skip
        shift = search_vector(mind=mind, q=q, mode=chosen, intent=intent)
        sizes = anchor_list_sizes(limit=limit, relevance=relevance)
        candidates = anchor_candidates(mind_id=mind.pk, q=q, vector=shift.vector, sizes=sizes)
        as_reached = [
            Reached(
                knot_id=c.knot_id,
                shell=0,
                weight_present=c.weight_present,
                emotion=c.emotion,
                activation=c.score if relevance else 0.0,
            )
            for c in candidates
        ]
        anchors, reserve = as_reached[: constants.ANCHOR_COUNT], as_reached[constants.ANCHOR_COUNT :]
        pending = {c.knot_id: c.pending for c in candidates if c.pending is not None}  # by stand-in id
        log.decision(
            {
                "decision": "anchors",
                "anchors": [
                    {"knot_id": c.knot_id if c.pending is None else None,
                     "memory_id": None if c.pending is None else c.pending.memory_id,
                     "cosine": round(c.cosine, 6), "text_match": c.text_match, "score": round(c.score, 6)}
                    for c in candidates[: constants.ANCHOR_COUNT]
                ],
                "floor": synapse_settings.ANCHOR_FLOOR,
                "candidates": len(candidates),
                "pending": len(pending),
            }
        )  # fmt: skip
        # A pending memory has no edges yet: it spreads nowhere.
        in_net = [a for a in anchors if a.knot_id not in pending]
        reached = spread(
            mind_id=mind.pk, anchors=in_net, hop_depth=chosen.hop_depth, vector=shift.vector, ranking=ranking
        )
        pool = [*anchors, *reached]
        # A few knots past the limit are ranked too: the contradiction step may lift one of them.
        wider = limit + constants.CONTRADICTION_LOOKAHEAD
        if relevance:
            own = {c.knot_id: c.score for c in candidates}
            result = ranked_by_relevance([*as_reached, *reached], own=own, mood=mood, limit=wider)
            anchor_ids = {r.knot_id for r in anchors}
            fill_ids = {
                k.reached.knot_id for k in result if k.reached.shell == 0 and k.reached.knot_id not in anchor_ids
            }
        else:
            distinct = {r.knot_id for r in pool}
            fill = [r for r in reserve if r.knot_id not in distinct][: max(0, limit - len(distinct))]
            result = ranked([*pool, *fill], mood=mood, limit=wider)
            fill_ids = {r.knot_id for r in fill}
        path_entities = {e for k in result for step in k.reached.path for e in step.shared_entities}
        knot_ids = [k.reached.knot_id for k in result if k.reached.knot_id not in pending]
        details, names = _knot_details(mind.pk, knot_ids, path_entities)
        result, contradicted_by = _contradictions_apply(result, details, pending, limit)
        filled = sum(1 for k in result if k.reached.knot_id in fill_ids)
        newer_memory = {**{k: d.memory_id for k, d in details.items()}, **{k: p.memory_id for k, p in pending.items()}}
        items = [
            _with_contradiction(
                pending_item(k.rank, k.rank_weight, pending[k.reached.knot_id])
                if k.reached.knot_id in pending
                else _item(k, details[k.reached.knot_id], names),
                contradicted_by.get(k.reached.knot_id),
                pending,
                newer_memory,
            )
            for k in result
            if k.reached.knot_id in pending or k.reached.knot_id in details
        ]
        log.output(
            {
                "outcome": "resonance" if items else ("empty" if anchors else "no_anchor"),
                "ranking": ranking,
                "shells": {str(s): sum(1 for r in pool if r.shell == s) for s in range(chosen.hop_depth + 1)},
                "filled": filled,
                "items": [
                    {"knot_id": i["knot_id"], "memory_id": i["memory_id"], "shell": i["shell"],
                     "rank_weight": round(i["rank_weight"], 6), "path": [step["edge_id"] for step in i["path"]]}
                    for i in items
                ],
            }
        )  # fmt: skip
    return {
        "anchor_count": len(anchors),
        "hop_depth": chosen.hop_depth,
        "mode": chosen.name,
        "mood": mood,
        "ranking": ranking,
        "gravity": {"factor": shift.factor, "cosine_to_raw": shift.cosine_to_raw, "outcome": shift.outcome},
        "items": items,
    }
