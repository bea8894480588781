"""Thin django-q2 entry points of the pipeline log."""

from __future__ import annotations

from pipelinelog import services


def prune_log() -> int:
    """The daily retention job (memoryproject/schedules.py)."""
    return services.prune_log()
