"""What the pipeline log hears from the apps below it. Connected in `PipelinelogConfig.ready()`."""

from __future__ import annotations

from typing import Any

from pipelinelog.erasure import mind_erasure_request
from pipelinelog.spans import current_span


def mind_bind_to_span(sender: Any, *, mind: Any, **kwargs: Any) -> None:
    """`minds.signals.mind_resolved`: the request's rows belong to `mind`, earlier rows included."""
    current_span().bind_mind(mind)


def mind_erasure_record(sender: Any, *, mind_id: str, **kwargs: Any) -> None:
    """`minds.signals.mind_deleting`: the log records that the mind was erased (pipelinelog.erasure)."""
    mind_erasure_request(mind_id)
