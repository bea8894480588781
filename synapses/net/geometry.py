"""The arithmetic of the synapse model (docs/synapse-model.md §1, §3, §9). Pure: no Django.

    damp(raw)                                   the 0..10 weight scale
    entity_layer / embedding_layer / themes_layer / timeline_layer
                                                does a layer fire between two knots, how deep
    layers_between(a, b)                        all four layers of a pair at once
    edge_strength(anchor_a, anchor_b, layers)   both directions' raw and anchor weights
    decayed_presence / half_reactivation_presence

Every function takes its constants as arguments with the defaults of `synapses.constants`, so
the worked examples can pin the values they were computed with (threshold 0.85, day tolerance
21) while the server passes its calibrated ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from synapses import constants


class NoFiringLayerError(ValueError):
    """edge_strength was asked for an edge no layer supports: such a pair gets no edge."""


def damp(raw: float, *, cap: float = constants.WEIGHT_CAP, exponent: float = constants.DAMPING_EXPONENT) -> float:
    """`cap · sin(min(raw / cap, 1) · π/2) ^ exponent`: raw weights onto 0..cap with diminishing returns.

    Negative raw weights (never written, but arithmetic may produce them) count as 0.
    """
    share = min(max(raw, 0.0) / cap, 1.0)
    return cap * math.sin(share * math.pi / 2) ** exponent


# --- the four layers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LayerHit:
    """One firing layer: its depth in [0, 1] and what it shared."""

    depth: float
    shared: tuple[str, ...] | tuple[int, ...] = ()
    distance: float | None = None  # timeline only: in the precision's unit
    cosine: float | None = None  # embedding only


def entity_layer(entities_a: Iterable[int], entities_b: Iterable[int]) -> LayerHit | None:
    """Fires when the knots share at least one entity; the depth is always 1."""
    shared = tuple(sorted(set(entities_a) & set(entities_b)))
    return LayerHit(depth=1.0, shared=shared) if shared else None


def embedding_depth(cosine: float, threshold: float = constants.EMBEDDING_THRESHOLD) -> float:
    """`(cosine − threshold) / (1 − threshold)`, clamped to [0, 1] (0 at or below the threshold)."""
    if threshold >= 1.0:
        return 0.0
    return min(max((cosine - threshold) / (1.0 - threshold), 0.0), 1.0)


def embedding_layer(cosine: float, threshold: float = constants.EMBEDDING_THRESHOLD) -> LayerHit | None:
    """Fires when the cosine is strictly above the threshold."""
    if cosine > threshold:
        return LayerHit(depth=embedding_depth(cosine, threshold), cosine=cosine)
    return None


def cosine_similarity(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """The cosine of two vectors; 0 when either has no length."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb / norm) if norm > 0 else 0.0


def themes_depth(themes_a: Iterable[str], themes_b: Iterable[str]) -> tuple[float, tuple[str, ...]]:
    """`shared / max(len a, len b)` over the de-duplicated, non-empty themes: breadth is penalised."""
    set_a = {t for t in themes_a if t}
    set_b = {t for t in themes_b if t}
    shared = tuple(sorted(set_a & set_b))
    if not shared:
        return 0.0, ()
    return len(shared) / max(len(set_a), len(set_b)), shared


def themes_layer(themes_a: Iterable[str], themes_b: Iterable[str]) -> LayerHit | None:
    """Fires when the knots share at least one theme."""
    depth, shared = themes_depth(themes_a, themes_b)
    return LayerHit(depth=depth, shared=shared) if shared else None


def _utc(moment: datetime) -> datetime:
    # Calendar arithmetic is done in UTC, where times are stored; a naive time is taken as UTC.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def time_distance(a: datetime, b: datetime, precision: str) -> float:
    """The distance of two time anchors of one precision, in that precision's unit (PRECISION_UNITS).

    minute, hour: elapsed days (fractional: both anchors know the time of day);
    day: whole calendar days between the dates; week: whole weeks between their ISO weeks
    (Monday starts); month, quarter, year: whole calendar months, quarters, years.
    """
    a, b = _utc(a), _utc(b)
    if precision in ("minute", "hour"):
        return abs((a - b).total_seconds()) / constants.SECONDS_PER_DAY
    if precision == "day":
        return float(abs((a.date() - b.date()).days))
    if precision == "week":
        monday_a = a.date() - timedelta(days=a.weekday())
        monday_b = b.date() - timedelta(days=b.weekday())
        return float(abs((monday_a - monday_b).days) // 7)
    if precision == "month":
        return float(abs((a.year * 12 + a.month) - (b.year * 12 + b.month)))
    if precision == "quarter":
        return float(abs((a.year * 4 + (a.month - 1) // 3) - (b.year * 4 + (b.month - 1) // 3)))
    if precision == "year":
        return float(abs(a.year - b.year))
    raise ValueError(f"unknown time precision {precision!r}; known: {', '.join(constants.PRECISIONS)}")


def timeline_depth(
    time_a: datetime | None,
    precision_a: str,
    time_b: datetime | None,
    precision_b: str,
    tolerances: Mapping[str, float] = constants.TIMELINE_TOLERANCES,
) -> tuple[float, float | None]:
    """`((tolerance − distance) / tolerance, distance)` when the layer fires, else `(0.0, None)`.

    It fires when both knots have an anchor of the same precision at most the tolerance apart
    (at exactly the tolerance with depth 0). Different precisions never connect over time.
    """
    if time_a is None or time_b is None or not precision_a or precision_a != precision_b:
        return 0.0, None
    tolerance = tolerances[precision_a]
    distance = time_distance(time_a, time_b, precision_a)
    if distance > tolerance:
        return 0.0, None
    return (tolerance - distance) / tolerance, distance


def timeline_layer(
    time_a: datetime | None,
    precision_a: str,
    time_b: datetime | None,
    precision_b: str,
    tolerances: Mapping[str, float] = constants.TIMELINE_TOLERANCES,
) -> LayerHit | None:
    depth, distance = timeline_depth(time_a, precision_a, time_b, precision_b, tolerances)
    return None if distance is None else LayerHit(depth=depth, distance=distance)


@dataclass(frozen=True)
class KnotFeatures:
    """What edge formation needs of one knot."""

    weight_anchor: float
    embedding: Sequence[float] | np.ndarray | None = None
    entities: tuple[int, ...] = ()
    themes: tuple[str, ...] = ()
    event_time: datetime | None = None
    event_precision: str = ""


@dataclass(frozen=True)
class EdgeParameters:
    """The constants of edge formation; defaults from synapses.constants."""

    embedding_threshold: float = constants.EMBEDDING_THRESHOLD
    tolerances: Mapping[str, float] = field(default_factory=lambda: dict(constants.TIMELINE_TOLERANCES))
    layer_factors: Mapping[str, float] = field(default_factory=lambda: dict(constants.LAYER_FACTORS))
    layer_bonus: float = constants.LAYER_BONUS
    pull_up: float = constants.PULL_UP
    pull_down: float = constants.PULL_DOWN
    weight_cap: float = constants.WEIGHT_CAP
    damping_exponent: float = constants.DAMPING_EXPONENT


def layers_between(
    a: KnotFeatures, b: KnotFeatures, params: EdgeParameters | None = None, *, cosine: float | None = None
) -> dict[str, LayerHit]:
    """Every firing layer of the pair, in canonical order (all four are always evaluated).

    `cosine` may be given when the database already computed it; else it is computed from the
    embeddings (no embedding on either side: the layer does not fire).
    """
    params = params or EdgeParameters()
    if cosine is None and a.embedding is not None and b.embedding is not None:
        cosine = cosine_similarity(a.embedding, b.embedding)
    hits = {
        constants.LAYER_ENTITY: entity_layer(a.entities, b.entities),
        constants.LAYER_EMBEDDING: None if cosine is None else embedding_layer(cosine, params.embedding_threshold),
        constants.LAYER_THEMES: themes_layer(a.themes, b.themes),
        constants.LAYER_TIMELINE: timeline_layer(
            a.event_time, a.event_precision, b.event_time, b.event_precision, params.tolerances
        ),
    }
    return {name: hit for name, hit in hits.items() if hit is not None}


# --- edge strength ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EdgeStrength:
    """Both directions of one edge pair and how they came about."""

    raw_ab: float  # A→B
    raw_ba: float  # B→A
    anchor_ab: float  # damp(raw_ab)
    anchor_ba: float  # damp(raw_ba)
    layers: tuple[str, ...]  # the firing layers, canonical order
    winner: str
    depth: float
    bonus: float


def edge_strength(
    anchor_a: float,
    anchor_b: float,
    layer_depths: Mapping[str, float] | Mapping[str, LayerHit],
    params: EdgeParameters | None = None,
) -> EdgeStrength:
    """The §3 edge of new knot A and candidate B, given the depth of every firing layer.

    Only the winner (the highest factor) sets the factor and the depth; every further layer
    adds the bonus. A weak knot is pulled up by PULL_UP of the gap, a strong one down by
    PULL_DOWN, both interpolated from the weaker pre-weighted anchor by the depth.
    """
    params = params or EdgeParameters()
    if not layer_depths:
        raise NoFiringLayerError("no layer fires between these knots: no edge")
    depths = {name: (hit.depth if isinstance(hit, LayerHit) else float(hit)) for name, hit in layer_depths.items()}
    unknown = set(depths) - set(params.layer_factors)
    if unknown:
        raise ValueError(f"unknown layers {sorted(unknown)}; known: {', '.join(constants.LAYERS)}")
    winner = max(depths, key=lambda name: params.layer_factors[name])
    factor = params.layer_factors[winner]
    depth = min(max(depths[winner], 0.0), 1.0)
    bonus = params.layer_bonus * (len(depths) - 1)

    weighted_a = anchor_a * factor + bonus
    weighted_b = anchor_b * factor + bonus
    weak, strong = min(weighted_a, weighted_b), max(weighted_a, weighted_b)
    gap = strong - weak
    up = weak + gap * params.pull_up
    down = strong - gap * params.pull_down
    edge_up = weak + (up - weak) * depth
    edge_down = weak + (down - weak) * depth
    raw_ab, raw_ba = (edge_up, edge_down) if weighted_a <= weighted_b else (edge_down, edge_up)

    def damp_edge(raw: float) -> float:
        return damp(raw, cap=params.weight_cap, exponent=params.damping_exponent)

    return EdgeStrength(
        raw_ab=raw_ab,
        raw_ba=raw_ba,
        anchor_ab=damp_edge(raw_ab),
        anchor_ba=damp_edge(raw_ba),
        layers=tuple(name for name in constants.LAYERS if name in depths),
        winner=winner,
        depth=depth,
        bonus=bonus,
    )


# --- presence (§9) ---------------------------------------------------------------------------------


def decayed_presence(presence_base: float, days: float, rate: float = constants.DECAY_RATE) -> float:
    """`presence_base · e^(−rate · days)`: the presence `days` after the last reinforcement.

    The decay job computes the same in SQL (synapses/upkeep/decay.py); this is its reference.
    """
    return presence_base * math.exp(-rate * days)


def half_reactivation_presence(weight_anchor: float, min_weight: float = constants.MIN_WEIGHT) -> float:
    """`(weight_anchor + min_weight) / 2`: the presence an inactive knot returns with when a new
    memory matches it. Decay continues from here (it becomes the knot's presence_base)."""
    return (weight_anchor + min_weight) / 2


def entity_rarity(carriers: int, cap: int) -> float:
    """`min(1, cap / carriers)`: the weight of an entity carried by `carriers` knots of a mind.

    An entity more knots carry than one knot's pair cap could hold would, at full weight, fill
    every knot's cap by itself (a conversation's speaker is in every turn): it scales the entity
    layer's factor down in proportion (docs/synapse-model.md §3, a deviation of ours).
    """
    if cap <= 0 or carriers <= cap:
        return 1.0
    return cap / carriers


# --- many pairs at once (edge formation over a knot's candidates) ------------------------------------

# Column of each layer in a depth matrix (layer_depth_matrix), in canonical order.
LAYER_COLUMNS: dict[str, int] = {name: column for column, name in enumerate(constants.LAYERS)}


@dataclass(frozen=True)
class EdgeStrengths:
    """edge_strength over n pairs of one new knot A: one array entry per candidate B."""

    raw_ab: np.ndarray
    raw_ba: np.ndarray
    anchor_ab: np.ndarray
    anchor_ba: np.ndarray
    winner: np.ndarray  # column of the winning layer (LAYER_COLUMNS); meaningless where nothing fires
    fires: np.ndarray  # bool: at least one layer fires (the others' weights are meaningless)


def damp_array(
    raw: np.ndarray, *, cap: float = constants.WEIGHT_CAP, exponent: float = constants.DAMPING_EXPONENT
) -> np.ndarray:
    """damp() of every entry of `raw`."""
    share = np.minimum(np.maximum(raw, 0.0) / cap, 1.0)
    return cap * np.sin(share * np.pi / 2) ** exponent


def edge_strengths(
    anchor_a: float,
    anchors_b: np.ndarray,
    depths: np.ndarray,
    params: EdgeParameters | None = None,
    *,
    entity_scale: np.ndarray | None = None,
) -> EdgeStrengths:
    """edge_strength of knot A with each of n candidates, as arrays: the same formula, vectorised.

    `depths` is n × 4 (columns LAYER_COLUMNS), NaN where a layer does not fire; `entity_scale`
    (n, default 1) multiplies the entity layer's factor per pair (its rarity, entity_rarity). The
    winner is the firing layer of the highest factor, the first in canonical order on a tie, as
    edge_strength picks it from a canonically ordered mapping.
    """
    params = params or EdgeParameters()
    anchors_b = np.asarray(anchors_b, dtype=np.float64)
    firing = ~np.isnan(depths)
    factors = np.broadcast_to(
        np.array([params.layer_factors[name] for name in constants.LAYERS], dtype=np.float64), depths.shape
    ).copy()
    if entity_scale is not None:
        factors[:, LAYER_COLUMNS[constants.LAYER_ENTITY]] *= entity_scale
    ranked = np.where(firing, factors, -np.inf)
    winner = np.argmax(ranked, axis=1)
    rows = np.arange(len(depths))
    factor = factors[rows, winner]
    depth = np.clip(np.nan_to_num(depths[rows, winner]), 0.0, 1.0)
    bonus = params.layer_bonus * (firing.sum(axis=1) - 1)

    weighted_a = anchor_a * factor + bonus
    weighted_b = anchors_b * factor + bonus
    weak, strong = np.minimum(weighted_a, weighted_b), np.maximum(weighted_a, weighted_b)
    gap = strong - weak
    up = weak + gap * params.pull_up
    down = strong - gap * params.pull_down
    edge_up = weak + (up - weak) * depth
    edge_down = weak + (down - weak) * depth
    a_is_weak = weighted_a <= weighted_b
    raw_ab = np.where(a_is_weak, edge_up, edge_down)
    raw_ba = np.where(a_is_weak, edge_down, edge_up)
    return EdgeStrengths(
        raw_ab=raw_ab,
        raw_ba=raw_ba,
        anchor_ab=damp_array(raw_ab, cap=params.weight_cap, exponent=params.damping_exponent),
        anchor_ba=damp_array(raw_ba, cap=params.weight_cap, exponent=params.damping_exponent),
        winner=winner,
        fires=firing.any(axis=1),
    )
