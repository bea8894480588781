"""Waiting on other processes (one poll loop for every test that starts one, or a thread) and
finding the processes a test started."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import TypeVar

import psutil

T = TypeVar("T")

# How often a condition is asked again (seconds): short enough to add little to a test's time,
# long enough to leave the processes under test the CPU on a loaded 2-core machine.
POLL_SECONDS = 0.05


class ExitedEarly(AssertionError):
    """The process being waited on exited before the condition held."""


def wait_for(
    condition: Callable[[], T],
    *,
    seconds: float,
    every: float = POLL_SECONDS,
    process: subprocess.Popen | None = None,
) -> T:
    """Ask `condition` every `every` seconds until it returns something true or `seconds` pass;
    return its last answer (true, or false once the time is up: the caller asserts on it).

    With `process`: a process that exits before the condition holds raises ExitedEarly at once,
    instead of waiting out the time for something that cannot come. Exceptions of the condition
    propagate (a condition that may fail for a while catches its own).
    """
    deadline = time.monotonic() + seconds
    while True:
        answer = condition()
        if answer or time.monotonic() >= deadline:
            return answer
        if process is not None and process.poll() is not None:
            raise ExitedEarly(f"{process.args!r} exited with {process.returncode} before the wait was over")
        time.sleep(every)


def process_tree(pid: int) -> list[psutil.Process]:
    """The process `pid` and all its descendants, as they are now."""
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def still_running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of `processes` still running (zombies count as gone)."""
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            continue
    return alive
