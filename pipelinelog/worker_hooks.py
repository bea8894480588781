"""Every django-q2 task runs in a span, and the buffer is flushed when the task ends.

`pre_enqueue` stamps the current turn id onto the task, so a job enqueued by a request (the
promotion after POST /memory) continues that request's turn; a scheduled job starts its own.
`pre_execute` opens the task's span (source `worker`, node = the task function's dotted path)
and `post_execute_in_worker` closes it — both run in the worker process, around the function.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from django_q.utils import get_func_repr

from pipelinelog.constants import SOURCE_WORKER, setting
from pipelinelog.redaction import summarize
from pipelinelog.spans import current_turn_id, span
from pipelinelog.writer import log_flush

# Key under which the enqueuing turn travels inside django-q2's task dictionary.
TASK_TURN_KEY = "synapse_turn_id"

_open = threading.local()


def on_pre_enqueue(sender: Any, task: dict, **kwargs: Any) -> None:
    turn_id = current_turn_id()
    if turn_id:
        task[TASK_TURN_KEY] = turn_id


def on_pre_execute(sender: Any, func: Any, task: dict, **kwargs: Any) -> None:
    node = get_func_repr(func) or str(task.get("func"))
    task_span = span(node, turn_id=task.get(TASK_TURN_KEY) or f"task:{task.get('id')}", source=SOURCE_WORKER)
    task_span.__enter__()
    task_span.input({"task_id": task.get("id"), "name": task.get("name"), "args": summarize(task.get("args"))})
    # A stack: in django-q2's sync mode a task may run another task inside itself.
    if not hasattr(_open, "spans"):
        _open.spans = []
    _open.spans.append(task_span)


def on_post_execute_in_worker(sender: Any, func: Any, task: dict, **kwargs: Any) -> None:
    spans = getattr(_open, "spans", None)
    task_span = spans.pop() if spans else None
    if task_span is not None:
        if not task.get("success"):
            # The worker caught the exception and keeps its text (message + traceback) in
            # `result`; in sync mode it sends this signal from its `except` block instead, before
            # setting `result`, so the exception itself is at hand there.
            task_span.fail(sys.exc_info()[1] or str(task.get("result", "")))
        task_span.__exit__(None, None, None)
    if not task.get("sync") and setting("PIPELINE_LOG_ENABLED"):
        log_flush()
