"""`manage.py serve` (what `make run` runs): the arguments and the demo account; the rest is
memoryproject/embedded/supervisor.py.

It lives in an app because Django finds commands only in installed apps' management/commands,
and in this one because the demo account (minds) is the one step of `make run` that needs an
app: memoryproject imports none (the `shared-helpers` import contract).
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

import memoryproject.gunicorn_conf as gunicorn_conf
from memories.embedders.installation import startup_report
from memoryproject.embedded import supervisor
from minds.services import demo_account_ensure


class Command(BaseCommand):
    help = (
        "Migrate, sync schedules, create the demo account once, then run the django-q2 worker cluster "
        "(restarted when it dies) and gunicorn until Ctrl-C or SIGTERM."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--host",
            default="127.0.0.1",
            help="address to listen on (default 127.0.0.1); 0.0.0.0 for every interface, then set ALLOWED_HOSTS",
        )
        parser.add_argument("--port", type=int, default=8000, help="TCP port to listen on (default 8000)")
        parser.add_argument(
            "--web-workers",
            type=int,
            default=None,
            help=f"gunicorn processes (default: WEB_WORKERS, now {gunicorn_conf.workers})",
        )
        parser.add_argument(
            "--web-threads",
            type=int,
            default=None,
            help=f"threads per gunicorn process (default: WEB_THREADS, now {gunicorn_conf.threads})",
        )

    def handle(self, *args, host: str, port: int, web_workers: int | None, web_threads: int | None, **options):
        raise SystemExit(
            supervisor.serve(
                host=host,
                port=port,
                web_workers=web_workers,
                web_threads=web_threads,
                announce=self._announce,
                stdout=self.stdout,
                stderr=self.stderr,
            )
        )

    def _announce(self, base_url: str) -> None:
        # The local demo account opens the admin; on a configured database it is a plain user.
        demo = demo_account_ensure(admin=settings.EMBEDDED_DATABASE)
        self.stdout.write(
            f"Synapse is starting at {base_url}/  (API docs: {base_url}/api/docs/, admin: {base_url}/admin/)"
        )
        for line in startup_report():
            self.stdout.write(line)
        if demo is None:
            self.stdout.write("Reusing the existing database; the demo account was created on the first start.")
            return
        self.stdout.write(
            "\nFirst start: a demo account was created. This is shown once — keep it.\n"
            f"  Login:     {demo.email}  (also for the admin)\n"
            f"  Password:  {demo.password}\n"
            f"  Mind:      {demo.mind.name} ({demo.mind.pk})\n"
            f"  Mind Key:  {demo.key.plaintext}\n"
            f"  Try:       curl -H 'Authorization: Bearer {demo.key.plaintext}' {base_url}/memory/recall\n"
        )
