"""What one promotion writes: the memory's vector when it lacks the current embedder's, the
match test's nearest knot, a link to an existing knot, or a new knot with its presence and link."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from memories.embedders import get_embedder
from memories.eventtime import period_start
from memories.models import Memory
from memories.selectors.vector_plan import VectorPlan, exact_scan_probe, plan_for
from memories.services.memory import embed_all
from pipelinelog.spans import Span
from synapses.constants import MATCH_CANDIDATES
from synapses.models import Knot, LinkKind
from synapses.net.geometry import damp
from synapses.net.selectors.candidates import NetFacts, net_hnsw_settings, rows_under_net_hnsw_settings, vector_literal
from synapses.net.time_anchors import time_anchors_find
from synapses.promotion.magnets import themes_of, time_anchor
from synapses.promotion.sql import KNOT_CREATE_SQL, LINK_SQL, NEAREST_SQL, NEAREST_UNDER_SETTINGS_SQL, PLAN_SQL


@dataclass(frozen=True)
class Nearest:
    knot_id: int
    cosine: float
    is_active: bool
    plan: VectorPlan
    content: str = ""  # the knot's, for the match test's contrast rule


def nearest_other_knot(*, mind_id: str, memory_id: str, vector, facts: NetFacts | None = None) -> Nearest | None:
    """The knot of the mind nearest to `vector` that belongs to another memory (nearest_other_knots' first)."""
    found = nearest_other_knots(mind_id=mind_id, memory_id=memory_id, vector=vector, facts=facts)
    return found[0] if found else None


def nearest_other_knots(*, mind_id: str, memory_id: str, vector, facts: NetFacts | None = None) -> list[Nearest]:
    """The MATCH_CANDIDATES knots of the mind nearest to `vector` that belong to other memories,
    closest first (two statements: the plan, the rows). Exact while the mind holds at most
    SYNAPSE_EXACT_SCAN_MAX_ROWS knots, else the HNSW index with an iterative scan; the rows are
    ordered here, because the HNSW scan returns them in relaxed order. A mind `facts` knows
    above the bound is not counted again: one round trip, the HNSW settings and the rows in one
    message."""
    params = {"vector": vector_literal(vector), "mind": mind_id, "memory": memory_id, "candidates": MATCH_CANDIDATES}
    with connection.cursor() as cursor:
        if facts is not None and mind_id in facts.knots_above_bound:  # nothing to count
            plan = VectorPlan.HNSW
            rows = rows_under_net_hnsw_settings(cursor, NEAREST_UNDER_SETTINGS_SQL, params, candidates=MATCH_CANDIDATES)
        else:
            probe = {"mind": mind_id, "probe": exact_scan_probe(), **net_hnsw_settings(MATCH_CANDIDATES)}
            cursor.execute(PLAN_SQL, probe)
            plan = plan_for(cursor.fetchone()[0])
            if plan == VectorPlan.HNSW and facts is not None:
                facts.knots_above_bound.add(mind_id)
            cursor.execute(NEAREST_SQL[plan], params)
            rows = cursor.fetchall()
    return [
        Nearest(knot_id=knot_id, cosine=1.0 - float(distance), is_active=is_active, plan=plan, content=content)
        for knot_id, distance, is_active, content in sorted(rows, key=lambda row: (row[1], row[0]))
    ]


def embedding_ensure(memory: Memory, sp: Span) -> None:
    """The knot needs the content's vector in the current embedder's space: computed (and stored
    on the memory) when the memory has none or one of another model."""
    embedder = get_embedder()
    if memory.embedding is not None and memory.embedding_model == embedder.name:
        return
    previous = memory.embedding_model or None
    embed_all([memory])
    Memory.objects.filter(pk=memory.pk).update(embedding=memory.embedding, embedding_model=memory.embedding_model)
    sp.db_write({"table": "memories_memory", "operation": "update", "field": "embedding", "previous_model": previous})


def link_create(memory: Memory, knot_id: int, kind: LinkKind, now: datetime) -> None:
    """The memory's current version linked to an existing knot (a duplicate or a reactivation)."""
    params = {"mind": memory.mind_id, "memory": memory.pk, "hash": memory.content_hash, "knot": knot_id,
              "kind": kind.value, "now": now}  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(LINK_SQL, params)


def knot_time(memory: Memory) -> tuple[datetime | None, str]:
    """The knot's time anchor: the first time the content names ("yesterday", "am 3. Mai"),
    relative to the memory's event time or else its creation, with the phrase's precision; the
    memory's event time as given when the content names none, or names the period the event
    time already lies in ("today" of an event time to the minute keeps the minute)
    (docs/synapse-model.md §4, "Time anchors in the content")."""
    given = time_anchor(memory.event_time, memory.event_precision)
    found = time_anchors_find(memory.content, memory.event_time or memory.created_at)
    if not found:
        return given
    named = found[0]
    if given[0] is not None and period_start(given[0], named.precision) == named.at:
        return given
    return named.at, named.precision


def knot_create(memory: Memory, *, entity_ids: list[int], now: datetime) -> Knot:
    """The memory's knot, active at its anchor, and the memory's origin link to it (one
    statement); the Knot returned carries every field edge formation reads.

    The Knot is built once from the memory; the statement's parameters are its fields by their
    column names (KNOT_CREATE_SQL names each), so a column is spelled in the model, here and in
    the SQL only."""
    event_time, precision = knot_time(memory)
    knot = Knot(
        mind_id=memory.mind_id,
        memory_id=memory.pk,
        content=memory.content,
        content_hash=memory.content_hash,
        category=memory.category,
        observer=memory.speaker,
        emotion=memory.emotion,
        attributes=memory.attributes,
        embedding=memory.embedding,
        embedding_model=memory.embedding_model,
        themes=themes_of(memory.tags),
        entities=entity_ids,
        event_time=event_time,
        event_precision=precision,
        weight_raw=memory.salience,
        weight_anchor=damp(memory.salience),
        activation_count=1,
        created_at=now,
        source_created_at=memory.created_at,
    )
    params = {
        field.attname: getattr(knot, field.attname) for field in Knot._meta.concrete_fields if not field.generated
    }
    params |= {
        "attributes": json.dumps(knot.attributes),
        "embedding": vector_literal(knot.embedding),
        "kind": LinkKind.ORIGIN.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(KNOT_CREATE_SQL, params)
        knot.pk = cursor.fetchone()[0]
    return knot
