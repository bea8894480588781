"""`make run` (`manage.py serve`): prepare the database, then run and supervise the worker cluster
and the web server.

The command itself (memories/management/commands/serve.py) only parses its arguments and
creates the demo account, the one step that needs an app; everything else is here.

Each child runs in a session (and process group) of its own: the terminal's Ctrl-C reaches only
`serve`, which stops each child once, and a child's whole process tree can be signalled even
after its main process died and left its own children behind (django-q2's sentinel and
workers outlive a killed `qcluster`). See docs/operations.md → Serving.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TextIO

import psutil
from django.conf import settings
from django.core.management import call_command
from django.http.request import validate_host

import memoryproject.gunicorn_conf as gunicorn_conf
from memoryproject.embedded.port import listen_problem
from memoryproject.embedded.watch import DatabaseWatch, RestartDelay, serving

# How long each child gets to stop after Ctrl-C before it is killed (seconds); a little more
# than gunicorn's own graceful_timeout, so in-flight requests finish first.
SHUTDOWN_GRACE_SECONDS = gunicorn_conf.graceful_timeout + 5
# How long the processes a dead child left behind get after SIGTERM before SIGKILL (seconds).
LEFTOVER_GRACE_SECONDS = 3
# How often serve looks at its children (seconds).
SUPERVISE_POLL_SECONDS = 0.2
# Exit status when the web server died under serve (not asked to stop).
WEB_SERVER_DIED_EXIT_STATUS = 1
# Exit status when the port is taken or the address cannot be used.
CANNOT_LISTEN_EXIT_STATUS = 1
# Exit status when Ctrl-C came while the database was being prepared (128 + SIGINT, as a shell says).
INTERRUPTED_EXIT_STATUS = 130
# Linux prctl option: the kernel signals the child when serve dies, even by SIGKILL.
PR_SET_PDEATHSIG = 1
WILDCARD_HOSTS = ("0.0.0.0", "::", "")  # noqa: S104 - names, compared against --host


def _stop_with_parent() -> None:
    """In the child before exec: get SIGTERM when serve dies, so no child outlives it."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _group_members(pgid: int) -> list[psutil.Process]:
    """Live (non-zombie) processes of a process group, wherever they were reparented."""
    members = []
    for process in psutil.process_iter(["status"]):
        try:
            if process.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(process.pid) == pgid:
                members.append(process)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return members


def _wait_group_gone(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _group_members(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def _signal_quietly(process: psutil.Process, signum: int) -> None:
    with contextlib.suppress(psutil.NoSuchProcess):  # it ended on its own meanwhile
        process.send_signal(signum)


def _describe_exit(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit status {returncode}"


class Child:
    """One supervised child process in a session of its own (its pid is its process group id)."""

    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.argv = argv
        self.process: subprocess.Popen | None = None
        self.started_at = 0.0

    def start(self) -> None:
        self.process = subprocess.Popen(  # preexec_fn only calls prctl
            self.argv, cwd=settings.BASE_DIR, start_new_session=True, preexec_fn=_stop_with_parent
        )
        self.started_at = time.monotonic()

    @property
    def returncode(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def ask_to_stop(self) -> None:
        """SIGTERM to the main process only: it stops its own children in order."""
        if self.returncode is None and self.process is not None:
            self.process.send_signal(signal.SIGTERM)

    def wait_stopped(self, timeout: float) -> None:
        """Wait for the main process, then end whatever of its group is left (SIGTERM, then SIGKILL)."""
        if self.process is None:
            return
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.end_leftovers()

    def end_leftovers(self) -> int:
        """Stop the processes the main process left in its group; how many there were."""
        if self.process is None:
            return 0
        pgid = self.process.pid
        leftovers = _group_members(pgid)
        for process in leftovers:
            _signal_quietly(process, signal.SIGTERM)
        if not _wait_group_gone(pgid, LEFTOVER_GRACE_SECONDS):
            for process in _group_members(pgid):
                _signal_quietly(process, signal.SIGKILL)
            _wait_group_gone(pgid, LEFTOVER_GRACE_SECONDS)
        return len(leftovers)


def serve(
    *,
    host: str,
    port: int,
    web_workers: int | None,
    web_threads: int | None,
    announce: Callable[[str], None],
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    """`make run` in order: the port, the database, `announce(base_url)`, then both children
    until Ctrl-C, SIGTERM or the web server's death. Returns the exit status."""
    problem = listen_problem(host, port)
    if problem:
        stderr.write(problem)
        return CANNOT_LISTEN_EXIT_STATUS
    # While serve runs, `make stop-db` refuses: serve would start the server again at once.
    with serving(settings.EMBEDDED_PGDATA) if settings.EMBEDDED_DATABASE else contextlib.nullcontext():
        try:
            prepare()
        except KeyboardInterrupt:
            stderr.write("Interrupted before the server started.")
            return INTERRUPTED_EXIT_STATUS
        announce(f"http://{host}:{port}")
        warning = unreachable_host_warning(host)
        if warning:
            stderr.write(warning)
        database = DatabaseWatch.of(settings.EMBEDDED_PGDATA, stderr.write) if settings.EMBEDDED_DATABASE else None
        return supervise(
            gunicorn_argv(host, port, web_workers, web_threads), database=database, stdout=stdout, stderr=stderr
        )


def prepare() -> None:
    """Migrate (the database checks run first), create the cache table, sync the schedules."""
    call_command("migrate", interactive=False, verbosity=0, skip_checks=False)  # incl. the database checks
    call_command("createcachetable", verbosity=0)
    call_command("sync_schedules", verbosity=0, stdout=io.StringIO())  # its report is for manual runs


def gunicorn_argv(host: str, port: int, web_workers: int | None, web_threads: int | None) -> list[str]:
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:memoryproject.gunicorn_conf", "--bind", bind]
    if web_workers is not None:
        argv += ["--workers", str(web_workers)]
    if web_threads is not None:
        argv += ["--threads", str(web_threads)]
    return [*argv, "memoryproject.wsgi"]


def supervise(gunicorn_argv: list[str], *, database: DatabaseWatch | None, stdout: TextIO, stderr: TextIO) -> int:
    """Run both children until a signal or gunicorn's death; restart the cluster when it dies,
    and the embedded PostgreSQL when `database` watches it."""
    stop_signal: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: stop_signal.append(signum))
    signal.signal(signal.SIGTERM, lambda signum, frame: stop_signal.append(signum))
    cluster = Child("worker cluster", [sys.executable, str(settings.BASE_DIR / "manage.py"), "qcluster"])
    web = Child("web server", gunicorn_argv)
    cluster.start()
    web.start()
    restart_at: float | None = None
    cluster_delay = RestartDelay()
    exit_status = 0
    while not stop_signal:
        if web.returncode is not None:
            stderr.write(
                f"The web server (gunicorn) stopped ({_describe_exit(web.returncode)}); "
                "stopping the worker cluster and exiting."
            )
            exit_status = WEB_SERVER_DIED_EXIT_STATUS
            break
        if database is not None:
            database.look()
        if restart_at is None and cluster.returncode is not None:
            delay = cluster_delay.after_death(time.monotonic() - cluster.started_at)
            leftovers = cluster.end_leftovers()
            stderr.write(
                f"The worker cluster stopped ({_describe_exit(cluster.returncode)}; "
                f"{leftovers} of its processes were left and are stopped); restarting it in {delay} s."
            )
            restart_at = time.monotonic() + delay
        if restart_at is not None and time.monotonic() >= restart_at and not stop_signal:
            cluster.start()
            restart_at = None
        time.sleep(SUPERVISE_POLL_SECONDS)
    if stop_signal:
        stdout.write("Stopping Synapse (worker cluster and web server)…")
    for child in (web, cluster):
        child.ask_to_stop()
    for child in (web, cluster):
        child.wait_stopped(SHUTDOWN_GRACE_SECONDS)
    return exit_status


def unreachable_host_warning(host: str) -> str | None:
    """One line when requests to the address served would be refused by ALLOWED_HOSTS (400)."""
    allowed = settings.ALLOWED_HOSTS or ([".localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    if host in WILDCARD_HOSTS:
        if "*" in allowed:
            return None
        where = "every interface"
    elif validate_host(f"[{host}]" if ":" in host else host, allowed):
        return None
    else:
        where = host
    return (
        f"Warning: listening on {where}, but ALLOWED_HOSTS is {','.join(allowed) or '(empty)'}: a request "
        "naming this machine any other way answers 400. Set ALLOWED_HOSTS to the names clients use."
    )
