"""Refuse a PostgreSQL or pgvector too old for Synapse, when a command starts.

Synapse supports PostgreSQL 15 or newer (it is tested on 18 and uses no SQL only 18 has) and
needs pgvector 0.8 or newer: a mind's vector search filters the index all minds share by mind,
and only pgvector 0.8's iterative index scans keep that search's recall when a server holds
many minds (docs/operations.md).

Tagged `database`, so it runs where Django checks the database: `migrate`, `check --database
default`, and `serve` (which migrates first). The version logic is a pure function so its rules
are tested without a server of each version.
"""

from __future__ import annotations

import re

from django.core.checks import Error, Tags, register
from django.db import connections

# The oldest versions Synapse supports (PostgreSQL by major; pgvector as major, minor).
MIN_POSTGRESQL_MAJOR = 15
MIN_PGVECTOR = (0, 8)
PGVECTOR_WHY = "for filtered vector search (iterative index scans)"


def version_problems(
    *, server_version_num: int, pgvector_installed: str | None, pgvector_available: str | None
) -> list[str]:
    """What is too old, each as a sentence naming the version found and what to install.

    `server_version_num` is PostgreSQL's own number (180006 for 18.6); `pgvector_installed` is the
    extension's version in this database, `pgvector_available` the version the server would install.
    """
    problems = []
    postgresql = postgresql_version_text(server_version_num)
    if server_version_num // 10000 < MIN_POSTGRESQL_MAJOR:
        problems.append(
            f"PostgreSQL {postgresql} found; Synapse needs PostgreSQL ≥ {MIN_POSTGRESQL_MAJOR} (tested on 18): "
            f"upgrade the server DATABASE_URL points to, or unset DATABASE_URL to use the embedded PostgreSQL 18."
        )
    needed = ".".join(map(str, MIN_PGVECTOR))
    install = f"install pgvector ≥ {needed} for PostgreSQL {server_version_num // 10000} on the database server"
    if pgvector_installed is not None:
        if _version_tuple(pgvector_installed) < MIN_PGVECTOR:
            if pgvector_available is not None and _version_tuple(pgvector_available) >= MIN_PGVECTOR:
                fix = f"the server has {pgvector_available}: run ALTER EXTENSION vector UPDATE; in this database"
            else:
                fix = f"{install}, then run ALTER EXTENSION vector UPDATE; in this database"
            problems.append(
                f"pgvector {pgvector_installed} found (installed in this database); "
                f"Synapse needs pgvector ≥ {needed} {PGVECTOR_WHY}: {fix}."
            )
    elif pgvector_available is None:
        problems.append(f"pgvector not found on this PostgreSQL server; Synapse needs pgvector ≥ {needed}: {install}.")
    elif _version_tuple(pgvector_available) < MIN_PGVECTOR:
        problems.append(
            f"pgvector {pgvector_available} found (available on the server, not yet installed); "
            f"Synapse needs pgvector ≥ {needed} {PGVECTOR_WHY}: {install}."
        )
    return problems


def postgresql_version_text(server_version_num: int) -> str:
    """180006 → "18.6" (the numbering since PostgreSQL 10: major × 10000 + minor)."""
    return f"{server_version_num // 10000}.{server_version_num % 10000}"


def _version_tuple(version: str) -> tuple[int, ...]:
    # "0.8.6" → (0, 8, 6); a suffix such as "0.9.0-dev" keeps its numeric part. Compared as
    # numbers, so 0.10 is newer than 0.8.
    return tuple(int(part) for part in re.findall(r"\d+", version.split("-")[0]))


def database_versions(alias: str) -> tuple[int, str | None, str | None]:
    """(server_version_num, pgvector installed here, pgvector available) of one database."""
    with connections[alias].cursor() as cursor:
        # Catalogs every supported PostgreSQL has (nothing newer than 15).
        cursor.execute(
            "SELECT current_setting('server_version_num')::int, "
            "(SELECT extversion FROM pg_extension WHERE extname = 'vector'), "
            "(SELECT default_version FROM pg_available_extensions WHERE name = 'vector')"
        )
        return cursor.fetchone()


@register(Tags.database)
def postgresql_and_pgvector_versions(app_configs, databases=None, **kwargs) -> list[Error]:
    errors = []
    for alias in databases or ():
        if connections[alias].vendor != "postgresql":
            continue
        server_version_num, installed, available = database_versions(alias)
        errors += [
            Error(problem, obj=f"database {alias!r}", id="memoryproject.E001")
            for problem in version_problems(
                server_version_num=server_version_num, pgvector_installed=installed, pgvector_available=available
            )
        ]
    return errors
