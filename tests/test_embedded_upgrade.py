"""A var/pgdata of the previous embedded server (PostgreSQL 16, pgserver) survives the switch to 18.

The slow tests build a real PostgreSQL 16 directory with pgserver, fill it through the app, and
start the app on it the normal way (DATABASE_URL unset): every row must come over. The fast ones
check the interruption rules on plain folders, where no server is needed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memoryproject.embedded.upgrade import (
    NEW_MAJOR,
    OLD_MAJOR,
    UPGRADE_REQUIREMENTS,
    Layout,
    UpgradeError,
    data_dir_major,
    new_bin_dir,
    pgserver_bin_dir,
    server_stop_if_running,
    upgrade_if_needed,
)
from tests.old_postgres import (  # noqa: F401 — the var_dir fixture, for servers of both majors
    app_env,
    old_postgres_var_dir_fixture,
    pgserver_start,
)
from tests.servers import ROOT

# The newest memories migration PostgreSQL 16 with pgvector 0.6 can take (0008 creates btree_gin).
LAST_MEMORIES_MIGRATION_ON_16 = "0007_memory_salience_given"
APPS_MIGRATED_ON_16 = ("minds", "pipelinelog", "webhooks", "django_q", "sessions", "admin")
MEMORY_COUNT = 20

# Run through `manage.py shell -c` against the PostgreSQL 16 server: a user, a mind with two keys,
# memories with embeddings and tags (each in a span, so pipeline-log rows are written too; each
# write also leaves an audit row and a promotion task in django-q's queue).
SEED = f"""
import json
from minds.access import caller_of
from minds.services import mind_create, mind_key_issue, user_register
from memories.services.memory import memory_store
from pipelinelog.spans import span

import memories.selectors.memory

# The code of the PostgreSQL 16 era had no pending-promotion table (memories 0011 creates it):
# the memory reads of today's code ask it, so the seed reads memories as that era's code did.
memories.selectors.memory._with_promotion_pending = lambda memories: memories

owner = user_register(email="owner@example.com", password="correct horse battery staple 42")
mind, issued = mind_create(owner=owner, name="The upgraded mind")
mind_key_issue(mind=mind, label="second key")
for number in range({MEMORY_COUNT}):
    with span("tests.upgrade_seed", mind=mind):
        memory_store(
            mind=mind,
            fields={{
                "category": "fact", "content": f"Fact {{number}} about Anna", "tags": ["anna", f"t{{number % 3}}"]
            }},
            caller=caller_of(owner),
        )
print(json.dumps({{"key": issued.plaintext}}))
"""

# What must survive: exact row counts of every table, and a checksum of the whole text of the
# tables that hold users' data. With KEY set it then authenticates that Mind Key (after the
# inventory, since authenticating stamps the key's last use) and a wrong one.
INSPECT = """
import json, os
from django.db import connection
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory
from minds.authentication import MindKeyAuthentication

CHECKSUMMED = ["auth_user", "minds_mind", "minds_mindkey", "memories_memory", "memories_memoryaudit",
               "pipelinelog_logentry", "django_q_ormq"]
result = {"counts": {}, "checksums": {}}
with connection.cursor() as cursor:
    for table in sorted(connection.introspection.table_names()):
        cursor.execute(f'SELECT count(*) FROM "{table}"')
        result["counts"][table] = cursor.fetchone()[0]
    for table in CHECKSUMMED:
        cursor.execute(f'SELECT md5(coalesce(string_agg(t::text, \\'|\\' ORDER BY t::text), \\'\\')) FROM "{table}" t')
        result["checksums"][table] = cursor.fetchone()[0]
    cursor.execute("SELECT count(*) FROM memories_memory "
                   "WHERE embedding IS NOT NULL AND tags @> ARRAY['anna']::varchar[]")
    result["embedded_and_tagged"] = cursor.fetchone()[0]
    cursor.execute("SELECT current_setting('server_version_num')::int, "
                   "(SELECT extversion FROM pg_extension WHERE extname = 'vector')")
    result["server_version_num"], result["vector_version"] = cursor.fetchone()

def principal(key):
    request = Request(APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Bearer {key}"))
    return MindKeyAuthentication().authenticate(request)[0]

key = os.environ.get("KEY")
if key:
    result["key_mind"] = principal(key).mind.name
    try:
        principal(key[:-4] + "AAAA")
        result["wrong_key_refused"] = False
    except AuthenticationFailed:
        result["wrong_key_refused"] = True
print(json.dumps(result))
"""


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    completed = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, f"manage.py {' '.join(args[:2])} failed:\n{completed.stdout}\n{completed.stderr}"
    return completed


def _last_json_line(output: str) -> dict:
    return json.loads(output.strip().splitlines()[-1])


def _psql(bin_dir: Path, uri: str, script: str) -> str:
    completed = subprocess.run(
        [str(bin_dir / "psql"), "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", uri],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def _is_running(data_dir: Path) -> bool:
    return (data_dir / "postmaster.pid").exists()


@pytest.mark.slow
@pytest.mark.own_postgres
def test_a_postgresql_16_directory_comes_over_with_every_row_and_the_old_one_is_kept_as_backup(var_dir):
    pgdata = var_dir / "pgdata"
    uri = pgserver_start(pgdata)
    assert data_dir_major(pgdata) == "16"
    old = app_env(var_dir, DATABASE_URL=uri)
    # The schema an install of the PostgreSQL 16 era could hold: every migration up to the first
    # that needs PostgreSQL 18's extensions (btree_gin, which pgserver does not ship). The rest
    # applies after the upgrade, as on a real install. --skip-checks: the version check rightly
    # refuses this server's pgvector 0.6.2.
    _manage(old, "migrate", "memories", LAST_MEMORIES_MIGRATION_ON_16, "--no-input", "--skip-checks")
    for app in APPS_MIGRATED_ON_16:
        _manage(old, "migrate", app, "--no-input", "--skip-checks")
    key = _last_json_line(_manage(old, "shell", "-c", SEED).stdout)["key"]
    before = _last_json_line(_manage(old, "shell", "-c", INSPECT).stdout)
    assert before["server_version_num"] // 10000 == 16
    assert before["vector_version"] == "0.6.2"
    # The inventory really holds what we wrote (else comparing it would prove nothing).
    assert before["counts"]["memories_memory"] == MEMORY_COUNT
    assert before["embedded_and_tagged"] == MEMORY_COUNT
    assert before["counts"]["minds_mindkey"] == 2
    assert before["counts"]["memories_memoryaudit"] == MEMORY_COUNT
    assert before["counts"]["pipelinelog_logentry"] >= 2 * MEMORY_COUNT  # span_start + span_end each
    assert before["counts"]["django_q_ormq"] == MEMORY_COUNT
    server_stop_if_running(pgserver_bin_dir(), pgdata)
    assert not _is_running(pgdata)

    # The app starts on the directory the normal way: DATABASE_URL unset, SYNAPSE_PGDATA set.
    new = app_env(var_dir, SYNAPSE_PGDATA=str(pgdata), KEY=key)
    started = _manage(new, "check", "--database", "default")
    after = _last_json_line(_manage(new, "shell", "-c", INSPECT).stdout)

    assert after["server_version_num"] // 10000 == 18
    assert after["vector_version"].startswith("0.8.")
    assert after["counts"] == before["counts"]
    assert after["checksums"] == before["checksums"]
    assert after["embedded_and_tagged"] == MEMORY_COUNT
    assert after["key_mind"] == "The upgraded mind"
    assert after["wrong_key_refused"] is True
    assert data_dir_major(pgdata) == "18"
    backups = list(var_dir.glob("pgdata-pg16-backup-*"))
    assert len(backups) == 1
    assert data_dir_major(backups[0]) == "16"
    assert f"kept at {backups[0]}" in started.stderr
    assert not Layout(pgdata).staging.exists()
    # The migrations PostgreSQL 16 could not take now apply on the upgraded server.
    migrated = _manage(new, "migrate", "--no-input")
    assert "Applying memories.0008_memory_mind_search_index... OK" in migrated.stdout


@pytest.mark.slow
@pytest.mark.own_postgres
def test_an_old_server_left_running_and_an_interrupted_attempt_are_handled_and_the_copy_restarts(var_dir):
    pgdata = var_dir / "pgdata"
    uri = pgserver_start(pgdata)  # left running, as pgserver left it after `make run`
    _psql(
        pgserver_bin_dir(),
        uri,
        "CREATE EXTENSION vector; CREATE TABLE notes (id int PRIMARY KEY, embedding vector(3));"
        "INSERT INTO notes SELECT g, ARRAY[g, 1, 2]::vector FROM generate_series(1, 500) g;"
        "CREATE INDEX ON notes USING hnsw (embedding vector_cosine_ops);"
        "CREATE DATABASE second; CREATE ROLE reader LOGIN;",
    )
    # What a killed attempt leaves: a staging folder with a half-written dump and no verified marker.
    staging = Layout(pgdata).staging
    (staging / "dumps").mkdir(parents=True)
    (staging / "dumps" / "postgres.dump").write_bytes(b"PGDMP half written")

    completed = _embedded_database_url_in_subprocess(
        pgdata,
        "SELECT count(*), sum((embedding::real[])[1]) FROM notes;"
        "SELECT extversion FROM pg_extension WHERE extname = 'vector';"
        "SELECT count(*) FROM pg_database WHERE datname = 'second';"
        "SELECT count(*) FROM pg_roles WHERE rolname = 'reader';",
    )
    assert completed.returncode == 0, completed.stderr
    assert "unfinished earlier upgrade attempt" in completed.stderr
    answer = completed.stdout.strip().splitlines()[-1].split()
    assert answer == ["500|125250", "0.8.6", "1", "1"]
    (backup,) = var_dir.glob("pgdata-pg16-backup-*")
    assert not _is_running(backup), "the old server must be stopped before its directory is moved"
    assert not staging.exists()


def _embedded_database_url_in_subprocess(pgdata: Path, sql: str = "") -> subprocess.CompletedProcess:
    """Start the app's way on `pgdata` in a process of its own and, while it is attached, run `sql`
    with psql; its last line of output is psql's answer. The process started the new server, so
    the server stops when it exits (docs/operations.md, the embedded server's lifetime)."""
    code = "import pathlib, subprocess, sys; from memoryproject.embedded.server import embedded_database_url; "
    code += "uri = embedded_database_url(pathlib.Path(sys.argv[1])); "
    code += "print(subprocess.run([sys.argv[2], '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', uri], input=sys.argv[3], "
    code += "capture_output=True, text=True, check=True).stdout.strip().replace(chr(10), ' '))"
    return subprocess.run(
        [sys.executable, "-c", code, str(pgdata), str(new_bin_dir() / "psql"), sql or "SELECT 1;"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
@pytest.mark.own_postgres
def test_a_failed_upgrade_changes_nothing_says_where_its_log_is_and_succeeds_once_the_cause_is_fixed(var_dir):
    pgdata = var_dir / "pgdata"
    uri = pgserver_start(pgdata)
    _psql(pgserver_bin_dir(), uri, "CREATE TABLE notes (id int); INSERT INTO notes SELECT generate_series(1, 42);")
    server_stop_if_running(pgserver_bin_dir(), pgdata)
    # A fault the old server really trips over: a setting it does not know stops it from starting.
    config = pgdata / "postgresql.conf"
    original = config.read_text()
    config.write_text(original + "\nno_such_setting_here = on\n")

    failed = _embedded_database_url_in_subprocess(pgdata)

    assert failed.returncode != 0
    assert "failed: pg_ctl exited with" in failed.stderr
    assert f"Nothing in {pgdata} was changed" in failed.stderr
    assert data_dir_major(pgdata) == OLD_MAJOR
    assert not list(var_dir.glob("pgdata-pg16-backup-*"))
    assert 'unrecognized configuration parameter "no_such_setting_here"' in (
        (Layout(pgdata).old_server_log).read_text()
    )

    config.write_text(original)
    retried = _embedded_database_url_in_subprocess(pgdata, "SELECT count(*) FROM notes;")

    assert retried.returncode == 0, retried.stderr
    assert "unfinished earlier upgrade attempt" in retried.stderr
    assert retried.stdout.strip().splitlines()[-1] == "42"


def _fake_data_dir(path: Path, major: str) -> Path:
    path.mkdir(parents=True)
    (path / "PG_VERSION").write_text(f"{major}\n")
    return path


def test_a_fresh_or_current_directory_is_left_alone_without_creating_anything(tmp_path):
    upgrade_if_needed(tmp_path / "pgdata")
    current = _fake_data_dir(tmp_path / "current", NEW_MAJOR)
    upgrade_if_needed(current)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["current"]
    assert (current / "PG_VERSION").read_text() == "18\n"


def test_an_attempt_interrupted_between_the_two_renames_is_finished_on_the_next_start(tmp_path):
    data_dir = tmp_path / "pgdata"
    layout = Layout(data_dir)
    backup = _fake_data_dir(tmp_path / "pgdata-pg16-backup-20261201-101500", OLD_MAJOR)
    _fake_data_dir(layout.new_data_dir, NEW_MAJOR)
    (layout.new_data_dir / "base").mkdir()
    layout.verified_marker.write_text(json.dumps({"backup": str(backup)}))

    upgrade_if_needed(data_dir)

    assert data_dir_major(data_dir) == NEW_MAJOR
    assert (data_dir / "base").is_dir()
    assert data_dir_major(backup) == OLD_MAJOR
    assert not layout.staging.exists()


def test_a_leftover_staging_folder_next_to_a_current_directory_is_removed(tmp_path):
    data_dir = _fake_data_dir(tmp_path / "pgdata", NEW_MAJOR)
    layout = Layout(data_dir)
    (layout.dumps).mkdir(parents=True)
    layout.verified_marker.write_text(json.dumps({"backup": str(tmp_path / "gone")}))

    upgrade_if_needed(data_dir)

    assert not layout.staging.exists()
    assert data_dir_major(data_dir) == NEW_MAJOR


def test_a_directory_of_a_version_no_embedded_server_made_is_refused_untouched(tmp_path):
    data_dir = _fake_data_dir(tmp_path / "pgdata", "15")
    with pytest.raises(UpgradeError, match="holds PostgreSQL 15 data"):
        upgrade_if_needed(data_dir)
    assert data_dir_major(data_dir) == "15"
    assert not Layout(data_dir).staging.exists()


def test_without_pgserver_the_error_names_the_exact_pip_command():
    with pytest.raises(UpgradeError) as raised:
        pgserver_bin_dir(package="pgserver_not_installed_here")
    assert f"-m pip install -r {UPGRADE_REQUIREMENTS}" in str(raised.value)
    assert UPGRADE_REQUIREMENTS.read_text().count("pgserver==0.1.4") == 1
