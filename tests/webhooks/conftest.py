"""A real HTTP receiver on loopback (an `http.server` thread) that records every request and
answers with the status and delay a test sets."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    status: int = 200
    delay_seconds: float = 0.0
    requests: list[Received] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        receiver.requests.append(Received(self.path, dict(self.headers.items()), body))
        time.sleep(receiver.delay_seconds)
        try:
            self.send_response(receiver.status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        except OSError:  # the client gave up (timeout) before the answer
            pass

    def log_message(self, format, *args) -> None:  # quiet
        pass


@pytest.fixture
def receiver():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    state = Receiver(url=f"http://127.0.0.1:{server.server_address[1]}/hook")
    server.receiver = state  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def dead_url() -> str:
    """A loopback URL where nothing listens (the port was bound, then closed)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


@pytest.fixture
def loopback_allowed(settings):
    """Local use (`make run`): loopback receivers allowed, private networks still refused."""
    settings.SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK = True
    settings.SYNAPSE_WEBHOOKS_ALLOW_PRIVATE = False
    return settings
