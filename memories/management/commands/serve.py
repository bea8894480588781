"""`make run`: prepare the database, then run the worker and the web server until Ctrl-C."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import time

from django.core.management import call_command
from django.core.management.base import BaseCommand

from minds.services import demo_account_ensure

# How long the children get to stop after Ctrl-C before they are killed (seconds).
SHUTDOWN_GRACE_SECONDS = 10


class Command(BaseCommand):
    help = "Migrate, sync schedules, create the demo account once, then run qcluster and gunicorn."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--web-workers", type=int, default=2)

    def handle(self, *args, host: str, port: int, web_workers: int, **options):
        call_command("migrate", interactive=False, verbosity=0)
        call_command("createcachetable", verbosity=0)
        call_command("sync_schedules", verbosity=0, stdout=io.StringIO())  # its report is for manual runs
        base_url = f"http://{host}:{port}"
        self._announce(base_url)

        children = [
            subprocess.Popen([sys.executable, "manage.py", "qcluster"]),
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "memoryproject.wsgi",
                    "--bind",
                    f"{host}:{port}",
                    "--workers",
                    str(web_workers),
                    "--access-logfile",
                    "-",
                ]
            ),
        ]
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.2)
        self._stop_all(children)
        failed = [child for child in children if child.returncode not in (0, -signal.SIGTERM, -signal.SIGINT)]
        if failed and not stopping:
            raise SystemExit(1)

    def _announce(self, base_url: str) -> None:
        demo = demo_account_ensure()
        self.stdout.write(
            f"Synapse is starting at {base_url}/  (API docs: {base_url}/api/docs/, admin: {base_url}/admin/)"
        )
        if demo is None:
            self.stdout.write("Reusing the existing database; the demo account was created on the first start.")
            return
        self.stdout.write(
            "\nFirst start: a demo account was created. This is shown once — keep it.\n"
            f"  Login:     {demo.email}\n"
            f"  Password:  {demo.password}\n"
            f"  Mind:      {demo.mind.name} ({demo.mind.pk})\n"
            f"  Mind Key:  {demo.key.plaintext}\n"
            f"  Try:       curl -H 'Authorization: Bearer {demo.key.plaintext}' {base_url}/memory/recall\n"
        )

    @staticmethod
    def _stop_all(children: list[subprocess.Popen]) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + SHUTDOWN_GRACE_SECONDS
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
