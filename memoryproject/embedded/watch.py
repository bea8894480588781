"""`manage.py serve` keeps the embedded PostgreSQL it runs on: restarted with back-off when it
dies, and not stoppable by `make stop-db` while serve runs.

- `serving(data_dir)`: while serve runs it holds an exclusive lock on `<data dir>.serve-<pid>.lock`
  beside the data directory; `serving_pids` (what `make stop-db` asks) finds the locks still held.
  The kernel drops a lock when its process dies, even by SIGKILL, so a killed serve blocks nothing.
- `DatabaseWatch`: the postmaster of a server a Synapse process started (never one started
  outside Synapse: docs/operations.md, "The embedded server's lifetime"), looked at on every
  round of serve's loop and started again with `RestartDelay`'s back-off when it is gone.

Django-free: `make stop-db` runs `python -m memoryproject.embedded.server stop`, which asks here.
"""

from __future__ import annotations

import fcntl
import glob
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from memoryproject.embedded.server import restart_embedded_server, synapse_postmaster

# Wait before the first restart of a dead child or database (seconds); doubled after each further
# death, up to the maximum, so something that cannot start does not spin the CPU.
RESTART_FIRST_DELAY_SECONDS = 1
RESTART_MAX_DELAY_SECONDS = 30
# Something that ran this long before it died counts as healthy: its restart waits the first delay.
STABLE_SECONDS = 60
# The longest error text a line of serve quotes (characters).
ERROR_QUOTE_CHARS = 300


class RestartDelay:
    """How long to wait before starting a dead process again: 1 s, then 2, 4 … up to 30 s."""

    def __init__(self) -> None:
        self._next = RESTART_FIRST_DELAY_SECONDS

    def after_death(self, ran_seconds: float) -> float:
        """The wait before the next start, for something that ran `ran_seconds` before it died."""
        if ran_seconds >= STABLE_SECONDS:
            self._next = RESTART_FIRST_DELAY_SECONDS
        delay = self._next
        self._next = min(delay * 2, RESTART_MAX_DELAY_SECONDS)
        return delay


def _lock_path(data_dir: Path, pid: int) -> Path:
    return data_dir.with_name(f"{data_dir.name}.serve-{pid}.lock")


@contextmanager
def serving(data_dir: Path) -> Iterator[None]:
    """Hold this process's serve lock on `data_dir` for the block (see `serving_pids`)."""
    path = _lock_path(data_dir.resolve(), os.getpid())
    path.parent.mkdir(parents=True, exist_ok=True)
    # Python opens files close-on-exec: serve's children do not hold the lock after it dies.
    with open(path, "w") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        file.write(f"{os.getpid()}\n")
        file.flush()
        try:
            yield
        finally:
            path.unlink(missing_ok=True)


def serving_pids(data_dir: Path) -> list[int]:
    """The pids of the `manage.py serve` processes running on `data_dir` (their locks are held);
    the lock files of serves that died are removed on the way."""
    data_dir = Path(data_dir).resolve()
    pids = []
    for path in sorted(data_dir.parent.glob(f"{glob.escape(data_dir.name)}.serve-*.lock")):
        try:
            with open(path) as file:
                fcntl.flock(file, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pids.append(int(path.name.rsplit("-", 1)[1].removesuffix(".lock")))
            continue
        except FileNotFoundError:
            continue  # its serve ended between the listing and the look
        path.unlink(missing_ok=True)
    return pids


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:ERROR_QUOTE_CHARS] or type(error).__name__


class DatabaseWatch:
    """The embedded server serve runs on: started again, with back-off, when its postmaster dies."""

    def __init__(self, data_dir: Path, postmaster: psutil.Process, say: Callable[[str], None]) -> None:
        self.data_dir = data_dir.resolve()
        self.postmaster = postmaster
        self.say = say
        self.started_at = time.monotonic()
        self.delay = RestartDelay()
        self.restart_at: float | None = None

    @classmethod
    def of(cls, data_dir: Path, say: Callable[[str], None]) -> DatabaseWatch | None:
        """A watch over the server of `data_dir` when a Synapse process started it; else None, said once."""
        postmaster = synapse_postmaster(data_dir)
        if postmaster is None:
            say(
                f"The embedded PostgreSQL in {data_dir} was started outside Synapse: serve will not "
                "start it again if it stops."
            )
            return None
        return cls(data_dir, postmaster, say)

    def look(self) -> None:
        """One round of serve's loop: notice a death, or start the server when its wait is over."""
        now = time.monotonic()
        if self.restart_at is None:
            if _running(self.postmaster):
                return
            delay = self.delay.after_death(now - self.started_at)
            self.say(
                f"The embedded PostgreSQL stopped (its postmaster, pid {self.postmaster.pid}, is gone); "
                f"starting it again in {delay} s."
            )
            self.restart_at = now + delay
            return
        if now < self.restart_at:
            return
        try:
            self.postmaster = restart_embedded_server(self.data_dir)
        except (RuntimeError, OSError, subprocess.SubprocessError, psutil.Error) as error:
            delay = self.delay.after_death(0)
            self.say(
                f"The embedded PostgreSQL did not start ({_one_line(error)}; its log: {self.data_dir / 'log'}); "
                f"trying again in {delay} s."
            )
            self.restart_at = time.monotonic() + delay
            return
        self.started_at = time.monotonic()
        self.restart_at = None
        self.say(f"The embedded PostgreSQL runs again (postmaster pid {self.postmaster.pid}).")
