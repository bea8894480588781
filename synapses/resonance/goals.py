"""A mind's goals: what it strives for, which bends what recall notices (perception gravity, §8).

A goal's embedding is computed whenever its statement is written, so recall never embeds a goal.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from memories.embedders import get_embedder
from synapses.models import Goal


def _embed(goal: Goal) -> None:
    embedder = get_embedder()
    goal.embedding = embedder.embed([goal.statement])[0]
    goal.embedding_model = embedder.name


def goal_create(
    *, mind_id: str, statement: str, motivation: float, active: bool = True, now: datetime | None = None
) -> Goal:
    """A new goal of the mind, embedded. `statement` is trimmed text, `motivation` 0..1 (the caller validates)."""
    now = now or timezone.now()
    goal = Goal(mind_id=mind_id, statement=statement, motivation=motivation, active=active, created_at=now)
    goal.updated_at = now
    _embed(goal)
    goal.save()
    return goal


def goal_update(
    *,
    goal: Goal,
    statement: str | None = None,
    motivation: float | None = None,
    active: bool | None = None,
    now: datetime | None = None,
) -> Goal:
    """Change the given fields; a changed statement is embedded again. Nothing given changes nothing."""
    changed: list[str] = []
    if statement is not None and statement != goal.statement:
        goal.statement = statement
        _embed(goal)
        changed += ["statement", "embedding", "embedding_model"]
    if motivation is not None and motivation != goal.motivation:
        goal.motivation = motivation
        changed.append("motivation")
    if active is not None and active != goal.active:
        goal.active = active
        changed.append("active")
    if changed:
        goal.updated_at = now or timezone.now()
        goal.save(update_fields=[*changed, "updated_at"])
    return goal


def goal_delete(*, goal: Goal) -> None:
    goal.delete()
