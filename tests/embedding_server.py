"""A fake OpenAI-compatible embedding server on 127.0.0.1 for the tests of the HTTP embedder and
of what uses it: the `fake_server` fixture (import `fake_server_fixture` into the test module) and
replies of chosen vectors."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class FakeEmbeddingServer:
    """A real HTTP server on 127.0.0.1 that answers like /v1/embeddings; `reply` shapes the answer."""

    url: str
    requests: list[dict] = field(default_factory=list)
    headers: list[dict] = field(default_factory=list)
    # (request body) → (status, response body bytes)
    reply: Callable[[dict], tuple[int, bytes]] | None = None
    release: threading.Event = field(default_factory=threading.Event)


def vectors_reply(make_vector: Callable[[int, str], list[float]], *, reverse: bool = False):
    """A reply of one vector per input text, `make_vector(index, text)`, in order or reversed."""

    def reply(body: dict) -> tuple[int, bytes]:
        data = [
            {"object": "embedding", "index": i, "embedding": make_vector(i, text)}
            for i, text in enumerate(body["input"])
        ]
        if reverse:
            data.reverse()
        return 200, json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()

    return reply


def axis_vector(i: int, _text: str) -> list[float]:
    """3 on axis i, 4 on axis i+1: normalised that is exactly 0.6 and 0.8."""
    vector = [0.0] * 384
    vector[i % 383], vector[i % 383 + 1] = 3.0, 4.0
    return vector


@pytest.fixture(name="fake_server")
def fake_server_fixture(monkeypatch) -> Iterator[FakeEmbeddingServer]:
    """The fake server, running for the test (no proxy between it and the client)."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    state: dict = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 — http.server's naming
            server_state: FakeEmbeddingServer = state["server"]
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server_state.requests.append(body)
            server_state.headers.append(dict(self.headers))
            if server_state.reply is None:  # hang until the test ends: the client must time out
                server_state.release.wait(5)
                return
            status, payload = server_state.reply(body)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    server = FakeEmbeddingServer(url=f"http://127.0.0.1:{httpd.server_address[1]}/v1/embeddings")
    state["server"] = server
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield server
    server.release.set()
    httpd.shutdown()
    httpd.server_close()
