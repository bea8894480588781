"""The apps import one another in one direction only (docs/architecture.md, "The app chain").

import-linter checks the contracts in `.importlinter` against the real import graph, imports
inside functions included.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_every_import_contract_is_kept():
    result = _lint_imports(CONTRACTS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


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
    assert set(chain["layers"]) == project_apps
