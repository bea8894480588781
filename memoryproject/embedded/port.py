"""Is a TCP port free to listen on? Django-free, so `make run` asks before it installs or starts anything.

`python -m memoryproject.embedded.port HOST PORT` prints one line and exits 1 when the port cannot
be used; `manage.py serve` asks the same before it migrates or starts a process.
"""

from __future__ import annotations

import errno
import socket
import sys


def listen_problem(host: str, port: int) -> str | None:
    """A one-line reason why nothing can listen on host:port now, or None when it is free."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as error:
        return f"Cannot listen on {host}:{port}: {error.strerror}."
    with socket.socket(family, kind, proto) as probe:
        # As gunicorn binds: a port whose old connections linger in TIME_WAIT counts as free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return (
                    f"Port {port} on {host} is already in use: stop what listens there, "
                    f"or pick another port (make run PORT={port + 10})."
                )
            return f"Cannot listen on {host}:{port}: {error.strerror}."
    return None


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (for tests and benchmarks that start a server)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def main(argv: list[str]) -> int:
    host, raw_port = argv[1], argv[2]
    port = int(raw_port) if raw_port.isdigit() else -1
    problem = listen_problem(host, port) if 0 < port < 65536 else f"PORT={raw_port!r} is not a port number (1-65535)."
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
