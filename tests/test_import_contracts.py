"""The apps import one another in one direction only (docs/architecture.md, "The app chain").

import-linter checks the contracts in `.importlinter` against the real import graph, imports
inside functions included.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from importlinter.api import read_configuration

REPO = Path(__file__).resolve().parent.parent
CONTRACTS = REPO / ".importlinter"


def _lint_imports(config: Path) -> subprocess.CompletedProcess:
    # In a child process: the linter puts the working directory on sys.path and configures logging.
    script = (
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))"
    )
    return subprocess.run(
        [sys.executable, "-c", script, str(config)], cwd=REPO, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_every_import_contract_is_kept():
    result = _lint_imports(CONTRACTS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.slow
def test_a_contract_the_code_breaks_is_reported(tmp_path):
    # memories builds on minds; forbidding it must fail, or the linter is not seeing the imports.
    config = tmp_path / "broken.ini"
    config.write_text(
        "[importlinter]\nroot_packages =\n    minds\n    memories\n\n"
        "[importlinter:contract:upside-down]\nname = memories without minds\ntype = forbidden\n"
        "source_modules =\n    memories\nforbidden_modules =\n    minds\n"
    )
    result = _lint_imports(config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "memories without minds BROKEN" in result.stdout
    assert "memories.models -> minds.models" in result.stdout


def test_every_app_of_the_project_has_its_place_in_the_chain():
    project_apps = {app for app in settings.INSTALLED_APPS if (REPO / app / "apps.py").is_file()}
    contracts = read_configuration(str(CONTRACTS))["contracts_options"]
    chain = next(contract for contract in contracts if contract["type"] == "layers")
    # A layer may hold independent siblings ("mcpserver | webhooks").
    assert {app.strip() for layer in chain["layers"] for app in layer.split("|")} == project_apps


def _ini_section(options: dict) -> str:
    """A contract's options as read_configuration gives them, written back as an ini section."""
    lines = []
    for name, value in options.items():
        if isinstance(value, list):
            lines.append(f"{name} =\n" + "\n".join(f"    {item}" for item in value))
        else:
            lines.append(f"{name} = {value}")
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_a_service_that_imports_rest_framework_even_through_a_helper_breaks_the_http_free_contract(tmp_path):
    # The wildcards must reach a nested services/selectors module, and an import through a helper
    # (a selector using a page limit of a module that builds on DRF) counts: else the contract
    # guards only the first step.
    probe = tmp_path / "probe_app"
    (probe / "selectors").mkdir(parents=True)
    (probe / "__init__.py").write_text("")
    (probe / "selectors" / "__init__.py").write_text("")
    (probe / "selectors" / "lists.py").write_text("from rest_framework.exceptions import NotFound\n")
    (probe / "selectors" / "pages.py").write_text("from probe_app.paging import PAGE_LIMIT\n")
    (probe / "paging.py").write_text("from rest_framework.pagination import LimitOffsetPagination\nPAGE_LIMIT = 5\n")
    (probe / "services.py").write_text("from rest_framework_simplejwt.tokens import RefreshToken\n")
    contracts = read_configuration(str(CONTRACTS))["contracts_options"]
    http_free = next(contract for contract in contracts if contract["id"] == "http-free-domain")
    # The probe app has only the wildcard layers; the contract's named modules are the project's.
    http_free = {**http_free, "source_modules": [m for m in http_free["source_modules"] if m.startswith("**.")]}
    config = tmp_path / "http-free.ini"
    config.write_text(
        "[importlinter]\nroot_packages =\n    probe_app\ninclude_external_packages = True\n\n"
        "[importlinter:contract:http-free]\n" + _ini_section(http_free)
    )
    script = (
        "import sys; sys.path.insert(0, sys.argv[2]); from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(config), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert "probe_app.selectors.lists -> rest_framework" in result.stdout
    assert "probe_app.services -> rest_framework_simplejwt" in result.stdout
    assert "probe_app.selectors.pages -> probe_app.paging" in result.stdout
