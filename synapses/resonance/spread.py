"""Spreading activation from the anchors, one statement per shell (docs/synapse-model.md §5,
"One statement per shell"): a window function picks each frontier entry's top edges."""

from __future__ import annotations

import numpy as np
from django.db import connection

from synapses import constants
from synapses.net.selectors.candidates import vector_literal
from synapses.resonance.arithmetic import Reached, Step, fan_out, spread_activation
from synapses.resonance.sql import SHELL_SQL


def spread(
    *, mind_id: str, anchors: list[Reached], hop_depth: int, vector: np.ndarray, ranking: str = constants.RANKING_SEED
) -> list[Reached]:
    """Every knot reached from the anchors in up to `hop_depth` shells (duplicates included;
    ranking dedups them), each entry with the activation it carries (spread_activation). One
    statement per shell that has a frontier; `ranking` picks the edges each entry follows."""
    pool: list[Reached] = []
    frontier = anchors
    statement = SHELL_SQL[ranking]
    literal = vector_literal(vector)
    for shell in range(1, min(hop_depth, constants.MAX_HOP_DEPTH) + 1):
        if not frontier:
            break
        with connection.cursor() as cursor:
            cursor.execute(
                statement,
                {
                    "mind_id": mind_id,
                    "sources": [r.knot_id for r in frontier],
                    "predecessors": [r.predecessor for r in frontier],
                    "k": fan_out(shell),
                    "vector": literal,
                },
            )
            rows = cursor.fetchall()
        following: list[Reached] = []
        for slot, edge_id, target, layers, shared_entities, shared_themes, present, emotion, cosine in rows:
            origin = frontier[slot - 1]
            step = Step(
                from_knot_id=origin.knot_id,
                edge_id=edge_id,
                layers=tuple(layers),
                shared_entities=tuple(shared_entities),
                shared_themes=tuple(shared_themes),
            )
            activation = spread_activation(origin.activation, shell, float(cosine))
            following.append(
                origin.then(step, knot_id=target, weight_present=present, emotion=emotion, activation=activation)
            )
        pool.extend(following)
        frontier = following
    return pool
