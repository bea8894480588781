"""Django set-up for a benchmark run, and the throw-away database it runs in.

The benchmark uses the real settings (memoryproject.settings), so the same middleware,
authentication, throttling and pipeline log run as in production, with three changes made
through the environment before Django starts: DEBUG off (DEBUG records every query in memory),
the hashing embedder, and a Mind Key throttle rate high enough for thousands of requests a minute.
"""

from __future__ import annotations

import os
import secrets

# The database the benchmark creates, fills and drops again.
BENCH_DATABASE = "bench_synapse"
# Requests per Mind Key per minute during a run; the real limit (1200/min) would answer 429.
BENCH_THROTTLE_RATE = "1000000/min"


def django_setup(*, embedder: str = "hashing") -> None:
    """Configure the environment and start Django (idempotent); `embedder` is a SYNAPSE_EMBEDDER value."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "memoryproject.settings"
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "bench-" + secrets.token_urlsafe(40))
    os.environ["SYNAPSE_EMBEDDER"] = embedder
    os.environ["THROTTLE_MIND_KEY"] = BENCH_THROTTLE_RATE
    os.environ["WORKER_SYNC"] = "false"  # promotion is enqueued, as in production; no worker runs
    os.environ["PIPELINE_LOG_SYNC"] = "false"  # the buffered writer thread, as in production
    import logging

    import django

    django.setup()
    # django-q2 logs every enqueued task at INFO, Django every 404 at WARNING (the request floor
    # is one): thousands of lines would bury the tables.
    logging.getLogger("django-q").setLevel(logging.WARNING)
    logging.getLogger("django.request").setLevel(logging.ERROR)


def _maintenance_connection():
    """An autocommit psycopg connection to the server's `postgres` database, with the
    connection parameters Django itself would use (socket folder, user, password, options)."""
    import psycopg
    from django.db import connection

    params = connection.get_connection_params()
    params["dbname"] = "postgres"
    return psycopg.connect(**params, autocommit=True)


def database_create(name: str = BENCH_DATABASE) -> None:
    """Create database `name` (dropping a leftover one), point Django at it, migrate it."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    connections.close_all()
    with _maintenance_connection() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    settings.DATABASES["default"]["NAME"] = name
    call_command("migrate", verbosity=0, interactive=False)
    call_command("createcachetable", verbosity=0)


def database_open(name: str) -> bool:
    """Point Django at database `name` and migrate it, if it exists (a fixture kept by an earlier
    run); False, and nothing changed, if it does not."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    with _maintenance_connection() as admin:
        if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            return False
    connections.close_all()
    settings.DATABASES["default"]["NAME"] = name
    call_command("migrate", verbosity=0, interactive=False)
    return True


def database_drop(name: str = BENCH_DATABASE) -> None:
    """Stop everything that holds a connection, then drop database `name`."""
    from django.db import connections

    from pipelinelog.writer import writer

    writer.stop()  # its last flush goes into the bench database, before it is dropped
    connections.close_all()
    with _maintenance_connection() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def server_versions() -> dict[str, str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        postgres = cursor.fetchone()[0]
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    return {"postgres": postgres, "pgvector": row[0] if row else "not installed"}
