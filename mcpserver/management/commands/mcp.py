"""`manage.py mcp`: serve the mind of a Mind Key to an agent over the Model Context Protocol.

    SYNAPSE_MIND_KEY=mk_… python manage.py mcp                 # stdio: the client starts this process
    SYNAPSE_MIND_KEY=mk_… python manage.py mcp --http --port 8765   # streamable HTTP on loopback

The key is checked before anything is served (a wrong or revoked key stops with one line) and
again on every call. Over stdio, standard output is the protocol's wire: everything else this
process says goes to standard error.
"""

from __future__ import annotations

import ipaddress
import os

from django.core.management.base import BaseCommand, CommandError

from mcpserver.calls import MIND_KEY_ENV, agent_authenticate, error_of
from mcpserver.server import HTTP_PATH, build_server, serve_http, serve_stdio

# Where `--http` listens unless told otherwise (a loopback address and a port of no common service).
HTTP_DEFAULT_HOST = "127.0.0.1"
HTTP_DEFAULT_PORT = 8765
# Host names that always mean this machine.
LOOPBACK_NAMES = frozenset({"localhost"})


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Command(BaseCommand):
    help = "Serve the mind of a Mind Key over the Model Context Protocol (stdio, or --http on loopback)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--mind-key",
            default=None,
            help=f"The mind's Mind Key (mk_…). Default: the environment variable {MIND_KEY_ENV}, which keeps the "
            "key out of the process list.",
        )
        parser.add_argument("--http", action="store_true", help="Serve streamable HTTP instead of stdio.")
        parser.add_argument(
            "--host",
            default=HTTP_DEFAULT_HOST,
            help=f"With --http: a loopback address to listen on (default {HTTP_DEFAULT_HOST}).",
        )
        parser.add_argument(
            "--port", type=int, default=HTTP_DEFAULT_PORT, help=f"With --http: the port (default {HTTP_DEFAULT_PORT})."
        )

    def handle(self, *args, mind_key: str | None, http: bool, host: str, port: int, **options) -> None:
        mind_key = mind_key or os.environ.get(MIND_KEY_ENV, "")
        if not mind_key.strip():
            raise CommandError(f"No Mind Key: set {MIND_KEY_ENV}=mk_… (or pass --mind-key). docs/mcp.md says how.")
        if http and not is_loopback(host):
            # Every caller of the endpoint acts with this process's key: nothing but this machine may reach it.
            raise CommandError(
                f"--host {host!r} is not a loopback address. The HTTP endpoint has no login of its own (every "
                "caller acts with this process's Mind Key), so it listens on 127.0.0.1, ::1 or localhost only."
            )
        if http and not 0 < port < 65536:
            raise CommandError(f"--port {port} is not a port; use 1–65535.")
        try:
            agent = agent_authenticate(mind_key)
        except Exception as error:
            body, _ = error_of(error)
            raise CommandError(body["error"]["message"]) from None
        server = build_server(mind_key)
        where = f"http://{host}:{port}{HTTP_PATH}" if http else "stdio"
        self.stderr.write(f"Synapse MCP server for mind {agent.mind.pk} ({agent.mind.name}) on {where}.")
        if http:
            serve_http(server, host=host, port=port)
        else:
            serve_stdio(server)
