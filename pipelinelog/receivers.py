"""What the pipeline log hears from the apps below it. Connected in `PipelinelogConfig.ready()`."""

from __future__ import annotations

from typing import Any

from pipelinelog.spans import current_span


def mind_bind_to_span(sender: Any, *, mind: Any, **kwargs: Any) -> None:
    """`minds.signals.mind_resolved`: the request's rows belong to `mind`, earlier rows included."""
    current_span().bind_mind(mind)
