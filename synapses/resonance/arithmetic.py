"""The arithmetic of recall with resonance (docs/synapse-model.md §5, §8). Pure: no Django.

    Mode, modes_with_overrides(), mode_of()     the modes table (hop depth, gravity factor)
    sector_of / ring_distance / sector_factor   the mood's colouring of a knot
    rank_weight()                               weight_present × shell factor × sector factor
    Reached, dedup_smallest_shell(), ranked()    the pool of spreading activation, deduplicated, ranked (seed)
    spread_activation(), ranked_by_relevance()   the relevance ranking: the query's score plus what spreads
    gravity_shift()                              perception gravity: the search vector bent by the goals
    resonance_text()                             the recall text's resonance section

The emotion vocabulary (labels, synonyms, the wheel) lives in `memories.emotions`, where it
validates a memory's `emotion`; the net reads the sectors from there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memories.emotions import EMOTION_SYNONYMS, NEUTRAL, SECTORS, emotion_canonical, known_emotion_labels
from synapses import constants

# --- modes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    name: str
    hop_depth: int  # shells spreading activation walks beyond the anchors (hops, 0..MAX_HOP_DEPTH)
    gravity_factor: float  # share of the search vector the active goals may take (0..1)


def default_modes() -> dict[str, Mode]:
    """The built-in modes, plus `default` (the DEFAULT_MODE's values under that name)."""
    modes = {name: Mode(name, depth, factor) for name, (depth, factor) in constants.MODES.items()}
    base = modes[constants.DEFAULT_MODE]
    modes["default"] = Mode("default", base.hop_depth, base.gravity_factor)
    return modes


def mode_override_problem(value: Any) -> str | None:
    """Why one mind override `{"hop_depth": int, "gravity_factor": float}` is unusable, or None."""
    if not isinstance(value, Mapping):
        return "must be an object with hop_depth and gravity_factor"
    depth, factor = value.get("hop_depth"), value.get("gravity_factor")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= constants.MAX_HOP_DEPTH:
        return f"hop_depth must be a whole number 0–{constants.MAX_HOP_DEPTH}"
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not 0.0 <= factor <= 1.0:
        return "gravity_factor must be a number 0–1"
    return None


def modes_with_overrides(overrides: Any) -> tuple[dict[str, Mode], dict[str, str]]:
    """The built-in modes with a mind's overrides (`{name: {hop_depth, gravity_factor}}`) on top.

    Returns the modes and the overrides left out with the reason (a mind's settings are data an
    operator wrote; a bad entry must not break recall, so it is reported and skipped).
    """
    modes = default_modes()
    rejected: dict[str, str] = {}
    if not isinstance(overrides, Mapping):
        if overrides not in (None, {}):
            rejected["modes"] = "must be an object of modes by name"
        return modes, rejected
    for name, value in overrides.items():
        problem = mode_override_problem(value)
        if not isinstance(name, str) or not name.strip():
            rejected[str(name)] = "a mode needs a name"
        elif problem:
            rejected[name] = problem
        else:
            key = name.strip().lower()
            modes[key] = Mode(key, value["hop_depth"], float(value["gravity_factor"]))
    return modes, rejected


def mode_of(name: str, modes: Mapping[str, Mode]) -> Mode | None:
    """The mode called `name` (any case; empty = `default`), or None when there is none."""
    key = name.strip().lower() or "default"
    return modes.get(key)


def unknown_mode_message(name: str, modes: Mapping[str, Mode]) -> str:
    return f"Unknown mode {name!r}. Known modes: {', '.join(sorted(modes))}."


# --- sectors -----------------------------------------------------------------------------------


def sector_of(label: str | None) -> int | None:
    """The wheel position (0..7) of an emotion label; None for empty, neutral or unknown labels."""
    word = (label or "").strip().lower()
    if not word or word == NEUTRAL:
        return None
    sector = EMOTION_SYNONYMS.get(word)
    return SECTORS.index(sector) if sector else None


def mood_problem(label: str) -> str | None:
    """Why `label` is no mood (an emotion label or empty), naming the known labels; None when it is one."""
    if not label.strip() or emotion_canonical(label) is not None:
        return None
    return f"Unknown mood {label!r}. Known labels: {', '.join(known_emotion_labels())}."


def ring_distance(a: int, b: int) -> int:
    """Steps between two sectors around the wheel of len(SECTORS): 0..4."""
    gap = abs(a - b) % len(SECTORS)
    return min(gap, len(SECTORS) - gap)


def sector_factor(mood: str | None, emotion: str | None) -> float:
    """SECTOR_FACTOR by the ring distance of the two labels; 1.0 when either side has no sector
    (neutral thinking does not colour memories)."""
    a, b = sector_of(mood), sector_of(emotion)
    if a is None or b is None:
        return 1.0
    return constants.SECTOR_FACTOR[ring_distance(a, b)]


def shell_factor(shell: int) -> float:
    return constants.SHELL_FACTOR.get(shell, 0.0)


def rank_weight(weight_present: float, shell: int, mood: str | None, emotion: str | None) -> float:
    """`weight_present × SHELL_FACTOR[shell] × SECTOR_FACTOR[distance(mood, emotion)]`."""
    return weight_present * shell_factor(shell) * sector_factor(mood, emotion)


# --- the pool of spreading activation ----------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One hop of a path: from which knot, over which edge, why the edge exists."""

    from_knot_id: int
    edge_id: int
    layers: tuple[str, ...]
    shared_entities: tuple[int, ...] = ()
    shared_themes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reached:
    """A knot spreading activation reached: in which shell, by which path (empty for an anchor)."""

    knot_id: int
    shell: int
    weight_present: float
    emotion: str = ""
    path: tuple[Step, ...] = ()
    predecessor: int | None = None  # the knot it came from (the predecessor lock's other end)
    # What the query gives this entry (relevance ranking): an anchor candidate its own fused score,
    # a spread entry the activation it carries (spread_activation); 0 in the seed ranking.
    activation: float = 0.0

    def then(
        self, step: Step, *, knot_id: int, weight_present: float, emotion: str, activation: float = 0.0
    ) -> Reached:
        """The knot one hop further along `step`."""
        return Reached(
            knot_id=knot_id,
            shell=self.shell + 1,
            weight_present=weight_present,
            emotion=emotion,
            path=(*self.path, step),
            predecessor=self.knot_id,
            activation=activation,
        )


def fan_out(shell: int) -> int:
    """Outgoing edges each frontier knot follows into `shell` (FAN_OUT; 0 beyond the table)."""
    return constants.FAN_OUT.get(shell, 0)


def dedup_smallest_shell(pool: Iterable[Reached]) -> list[Reached]:
    """One entry per knot, the one with the smallest shell (the first of those on ties), in the
    order the kept entries were first met."""
    kept: dict[int, Reached] = {}
    for reached in pool:
        if reached.knot_id not in kept or reached.shell < kept[reached.knot_id].shell:
            kept[reached.knot_id] = reached
    return list(kept.values())


@dataclass(frozen=True)
class RankedKnot:
    rank: int  # 1 = strongest
    reached: Reached
    rank_weight: float


def ranked(pool: Iterable[Reached], *, mood: str | None, limit: int) -> list[RankedKnot]:
    """The deduplicated pool by rank weight, strongest first (ties: smaller shell, then smaller
    knot id, so the order is deterministic), the first `limit`, numbered from 1."""
    weighed = [(rank_weight(r.weight_present, r.shell, mood, r.emotion), r) for r in dedup_smallest_shell(pool)]
    weighed.sort(key=lambda pair: (-pair[0], pair[1].shell, pair[1].knot_id))
    return [RankedKnot(rank=i, reached=r, rank_weight=w) for i, (w, r) in enumerate(weighed[:limit], start=1)]


# --- the relevance ranking ---------------------------------------------------------------------


def spread_activation(
    origin_activation: float, shell: int, target_cosine: float, *, gain: float = constants.SPREAD_GAIN
) -> float:
    """What a hop into `shell` carries to its target: the origin's activation × `gain` × the
    shell's step (SHELL_FACTOR[shell] / SHELL_FACTOR[shell − 1], so a path of s hops carries the
    anchor's score × gain^s × SHELL_FACTOR[s] × the product of its targets' cosines) × the
    target's cosine to the query, never below 0 (query-aware spreading: an association the query
    does not touch carries nothing)."""
    before = shell_factor(shell - 1)
    step = shell_factor(shell) / before if before > 0 else 0.0
    return origin_activation * gain * step * max(target_cosine, 0.0)


def ranked_by_relevance(
    pool: Iterable[Reached], *, own: Mapping[int, float], mood: str | None, limit: int
) -> list[RankedKnot]:
    """Each knot of the pool once (its smallest shell and that entry's path), weighted by
    `(own score + Σ activation of its spread entries) × sector factor`, strongest first (ties:
    more present, smaller shell, smaller knot id), the first `limit`, numbered from 1.

    `own` holds the anchor candidates' fused full-text and cosine score (0 for a knot only
    spreading reached): a knot the query finds and its associations confirm rises above one
    only the query finds; an association alone rises as far as the activation it receives.
    """
    entries = list(pool)
    received: dict[int, float] = {}
    for entry in entries:
        if entry.shell > 0:
            received[entry.knot_id] = received.get(entry.knot_id, 0.0) + entry.activation
    weighed = []
    for reached in dedup_smallest_shell(entries):
        score = own.get(reached.knot_id, 0.0) + received.get(reached.knot_id, 0.0)
        weighed.append((score * sector_factor(mood, reached.emotion), reached))
    weighed.sort(key=lambda pair: (-pair[0], -pair[1].weight_present, pair[1].shell, pair[1].knot_id))
    return [RankedKnot(rank=i, reached=r, rank_weight=w) for i, (w, r) in enumerate(weighed[:limit], start=1)]


# --- perception gravity ------------------------------------------------------------------------

# Why gravity did or did not move the search vector (the calculation row's `outcome`).
GRAVITY_SHIFTED = "shifted"
GRAVITY_RAW_INTENT = "instruction"  # the intent forces factor 0
GRAVITY_ZERO_FACTOR = "factor_zero"  # the mode's factor is 0
GRAVITY_NO_GOALS = "no_active_goals"  # no goal reaches the threshold
GRAVITY_DISCARDED = "discarded_degenerate"  # non-finite, or cosine to raw outside (0, 1]


@dataclass(frozen=True)
class GoalPull:
    goal_id: int
    similarity: float  # cosine(raw query, goal)
    motivation: float
    activation: float  # similarity × motivation
    counted: bool  # activation ≥ the threshold


@dataclass(frozen=True)
class GravityShift:
    vector: np.ndarray  # the search vector (the raw one unless outcome is GRAVITY_SHIFTED)
    factor: float  # the factor applied (0 unless shifted)
    pulls: tuple[GoalPull, ...] = ()
    cosine_to_raw: float = 1.0
    outcome: str = GRAVITY_SHIFTED

    def as_log(self) -> dict[str, Any]:
        return {
            "factor": self.factor,
            "goals": [
                {"goal_id": p.goal_id, "similarity": round(p.similarity, 6), "motivation": p.motivation,
                 "activation": round(p.activation, 6), "counted": p.counted}
                for p in self.pulls
            ],
            "cosine_to_raw": round(self.cosine_to_raw, 6),
            "outcome": self.outcome,
        }  # fmt: skip


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b / norm) if norm > 0 else 0.0


def gravity_shift(
    raw: Sequence[float] | np.ndarray,
    goals: Sequence[tuple[int, Sequence[float] | np.ndarray, float]],
    *,
    factor: float,
    raw_intent: bool = False,
    threshold: float = constants.GRAVITY_THRESHOLD,
) -> GravityShift:
    """`shifted = q·(1 − f) + Σ goal_i · activation_i · f` over the goals (id, vector, motivation)
    whose `activation_i = cosine(q, goal_i) × motivation_i` reaches `threshold`.

    Activations are measured against the raw vector (the shifted one would be its own input);
    the sum is not normalised (goals reinforce each other), but the result is scaled to unit
    length for the cosine index. Falls back to the raw vector, factor 0, when the intent forces
    it, the factor is 0, no goal counts, or the result is degenerate (not finite, or its cosine
    to the raw vector is not in (0, 1]).
    """
    q = np.asarray(raw, dtype=np.float64)
    if raw_intent:
        return GravityShift(vector=q, factor=0.0, outcome=GRAVITY_RAW_INTENT)
    pulls = []
    for goal_id, vector, motivation in goals:
        g = np.asarray(vector, dtype=np.float64)
        similarity = _cosine(q, g) if g.shape == q.shape else 0.0
        activation = similarity * motivation
        pulls.append(GoalPull(goal_id, similarity, motivation, activation, activation >= threshold))
    if factor <= 0.0:
        return GravityShift(vector=q, factor=0.0, pulls=tuple(pulls), outcome=GRAVITY_ZERO_FACTOR)
    counted = [
        (np.asarray(vector, dtype=np.float64), pull)
        for (_, vector, _), pull in zip(goals, pulls, strict=True)
        if pull.counted
    ]
    if not counted:
        return GravityShift(vector=q, factor=0.0, pulls=tuple(pulls), outcome=GRAVITY_NO_GOALS)
    shifted = q * (1.0 - factor) + sum(g * pull.activation for g, pull in counted) * factor
    norm = float(np.linalg.norm(shifted))
    cosine = _cosine(q, shifted)
    if not np.all(np.isfinite(shifted)) or not math.isfinite(cosine) or norm == 0.0 or not 0.0 < cosine <= 1.0 + 1e-9:
        return GravityShift(vector=q, factor=0.0, pulls=tuple(pulls), outcome=GRAVITY_DISCARDED)
    return GravityShift(vector=shifted / norm, factor=factor, pulls=tuple(pulls), cosine_to_raw=min(cosine, 1.0))


# --- the recall text's section -----------------------------------------------------------------


@dataclass(frozen=True)
class ResonanceLine:
    """What the text shows of one resonating knot (the service resolves names and flags)."""

    content: str
    observer: str
    emotion: str
    layers_by_step: Sequence[Sequence[str]] = ()
    entity_names_by_step: Sequence[Sequence[str]] = ()
    themes_by_step: Sequence[Sequence[str]] = ()
    superseded: bool = False
    in_net: bool = True  # False: a pending memory, not yet promoted
    contradicted: bool = False  # a newer knot of the answer states the fact changed


# How each layer of a path step reads; entity and themes name what they share.
_LAYER_PHRASES = {"timeline": "close in time", "embedding": "similar content"}
DIRECT_LINE = "Came directly in response to the query"
SUPERSEDED_LINE = "(an earlier version: the memory has changed since)"
PENDING_LINE = "(stored recently: not yet in the long-term net)"
CONTRADICTED_LINE = "(contradicted by a newer memory shown below it)"
NOTHING_LINE = "Nothing in the long-term net resonates."


def _one_line(text: str) -> str:
    return " ".join(text.split())


def step_phrase(layers: Sequence[str], entity_names: Sequence[str], themes: Sequence[str]) -> str:
    """One hop in words: "shared entity Anna, shared theme family, close in time, similar content"."""
    parts: list[str] = []
    for layer in layers:
        if layer == "entity":
            parts.extend(f"shared entity {_one_line(name)}" for name in entity_names)
        elif layer == "themes":
            parts.extend(f"shared theme {_one_line(theme)}" for theme in themes)
        elif layer in _LAYER_PHRASES:
            parts.append(_LAYER_PHRASES[layer])
    return ", ".join(parts) or "an association"


def resonance_text(query: str, lines: Sequence[ResonanceLine]) -> str:
    """The recall text's resonance section for `lines` given strongest first. The text lists
    them weakest first and strongest last (nearest the agent's next words), numbered in the
    order shown. Ends with one newline."""
    head = f'Resonance for: "{_one_line(query)}"\n'
    if not lines:
        return head + NOTHING_LINE + "\n"
    count = len(lines)
    intro = "One memory resonates." if count == 1 else f"{count} memories resonate."
    if count > 1:
        intro += " The least present first, the strongest last."
    blocks = []
    for number, line in enumerate(reversed(lines), start=1):
        block = [f"--- {number} ---", f'"{_one_line(line.content)}"']
        if line.superseded:
            block.append(SUPERSEDED_LINE)
        if not line.in_net:
            block.append(PENDING_LINE)
        if line.contradicted:
            block.append(CONTRADICTED_LINE)
        block.append(f"Speaker: {line.observer or 'unknown'}")
        if line.emotion and line.emotion.strip().lower() != NEUTRAL:
            block.append(f"Feeling: {line.emotion.strip().capitalize()}")
        if not line.layers_by_step:
            block.append(DIRECT_LINE)
        else:
            steps = [
                step_phrase(layers, names, themes)
                for layers, names, themes in zip(
                    line.layers_by_step, line.entity_names_by_step, line.themes_by_step, strict=True
                )
            ]
            block.append("Came via: " + " -> ".join(steps))
        blocks.append("\n".join(block) + "\n")
    return head + intro + "\n\n" + "\n".join(blocks)
