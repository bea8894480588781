"""The start-up check that refuses a PostgreSQL or pgvector too old for Synapse."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memoryproject.embedded.checks import (
    database_versions,
    postgresql_and_pgvector_versions,
    postgresql_version_text,
    version_problems,
)
from tests.old_postgres import (  # noqa: F401 — the var_dir fixture, for servers of both majors
    app_env,
    old_postgres_var_dir_fixture,
    pgserver_start,
)
from tests.servers import ROOT


def test_postgresql_18_with_pgvector_0_8_6_passes():
    assert version_problems(server_version_num=180006, pgvector_installed="0.8.6", pgvector_available="0.8.6") == []


def test_the_oldest_supported_versions_pass():
    assert version_problems(server_version_num=150000, pgvector_installed="0.8.0", pgvector_available="0.8.0") == []


def test_pgvector_versions_compare_as_numbers_so_0_10_is_newer_than_0_8():
    assert version_problems(server_version_num=170002, pgvector_installed="0.10.1", pgvector_available="0.10.1") == []


def test_postgresql_14_is_refused_naming_the_version_found_and_what_to_do():
    (problem,) = version_problems(server_version_num=140010, pgvector_installed="0.8.0", pgvector_available="0.8.0")
    assert problem.startswith("PostgreSQL 14.10 found; Synapse needs PostgreSQL ≥ 15")
    assert "unset DATABASE_URL" in problem


def test_an_available_but_old_pgvector_is_refused_saying_what_to_install():
    (problem,) = version_problems(server_version_num=160002, pgvector_installed=None, pgvector_available="0.6.2")
    assert problem == (
        "pgvector 0.6.2 found (available on the server, not yet installed); Synapse needs pgvector ≥ 0.8 "
        "for filtered vector search (iterative index scans): install pgvector ≥ 0.8 for PostgreSQL 16 "
        "on the database server."
    )


def test_an_old_installed_pgvector_on_a_server_that_has_a_new_one_only_needs_an_alter_extension():
    (problem,) = version_problems(server_version_num=170000, pgvector_installed="0.7.4", pgvector_available="0.8.1")
    assert problem.startswith("pgvector 0.7.4 found (installed in this database)")
    assert problem.endswith("the server has 0.8.1: run ALTER EXTENSION vector UPDATE; in this database.")


def test_an_old_installed_pgvector_without_a_newer_one_needs_both_the_install_and_the_update():
    (problem,) = version_problems(server_version_num=160002, pgvector_installed="0.6.2", pgvector_available="0.6.2")
    assert "install pgvector ≥ 0.8 for PostgreSQL 16 on the database server, then run ALTER EXTENSION" in problem


def test_a_server_without_pgvector_is_refused():
    (problem,) = version_problems(server_version_num=180006, pgvector_installed=None, pgvector_available=None)
    assert problem.startswith("pgvector not found on this PostgreSQL server")


def test_old_postgresql_and_old_pgvector_are_both_reported():
    problems = version_problems(server_version_num=130020, pgvector_installed="0.5.1", pgvector_available="0.5.1")
    assert [problem.split(" found")[0] for problem in problems] == ["PostgreSQL 13.20", "pgvector 0.5.1"]


def test_server_version_numbers_read_as_major_dot_minor():
    assert [postgresql_version_text(number) for number in (180006, 150000, 140010)] == ["18.6", "15.0", "14.10"]


@pytest.mark.django_db
def test_the_real_server_is_new_enough_and_the_check_says_nothing():
    server_version_num, installed, available = database_versions("default")
    assert server_version_num >= 150000
    assert installed is not None and tuple(map(int, installed.split(".")[:2])) >= (0, 8)
    assert available is not None
    assert postgresql_and_pgvector_versions(None, databases=["default"]) == []


def test_the_check_touches_no_database_unless_asked_to():
    # Django runs database-tagged checks only for commands that name databases (migrate, check --database).
    assert postgresql_and_pgvector_versions(None, databases=None) == []


@pytest.mark.slow
@pytest.mark.own_postgres
def test_check_against_the_previous_embedded_server_refuses_its_pgvector_0_6_2(var_dir):
    uri = pgserver_start(var_dir / "pgdata")  # PostgreSQL 16.2 with pgvector 0.6.2 available
    completed = subprocess.run(
        [sys.executable, "manage.py", "check", "--database", "default"],
        cwd=ROOT,
        env=app_env(var_dir, DATABASE_URL=uri),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 1
    assert "(memoryproject.E001) pgvector 0.6.2 found (available on the server, not yet installed)" in completed.stderr
    assert "install pgvector ≥ 0.8 for PostgreSQL 16" in completed.stderr
