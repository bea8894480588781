"""Every hand-written statement the project runs, printed whole and pinned.

A stage of the net has its statements in its `sql.py`, the memory selectors theirs in
`memories/selectors/sql.py`: each a module-level constant or an entry of a module-level mapping
built at import (docs/architecture.md, "synapses/ by stage of the model").
This test prints every one of them — every variant of a mapping — into one text and compares it
with `tests/golden/statements.sql`, so any change to a statement shows in review as a diff of
that file. After an intended change: `SYNAPSE_GOLDEN_UPDATE=1 make test PYTEST_ARGS=tests/test_statements.py`.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

import pytest

from synapses.net.tables import TABLES

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "statements.sql"
UPDATE = os.environ.get("SYNAPSE_GOLDEN_UPDATE") == "1"
# A `{name}` or `{}` left in a statement: a format pass that never ran.
PLACEHOLDER = re.compile(r"\{\w*\}")
# A project table named in a statement (an app label, an underscore, a model name).
TABLE_NAME = re.compile(r"\b(?:synapses|memories)_[a-z]+\b")


def _sql_modules() -> list[str]:
    paths = [
        *(ROOT / "synapses").glob("*/sql.py"),
        ROOT / "memories" / "selectors" / "sql.py",
        ROOT / "minds" / "sql.py",
        ROOT / "pipelinelog" / "sql.py",
    ]
    return sorted(".".join(path.relative_to(ROOT).with_suffix("").parts) for path in paths)


def _statements(module_name: str) -> dict[str, str]:
    """The module's public statements by name; a mapping's entries as NAME[key]."""
    module = importlib.import_module(module_name)
    found: dict[str, str] = {}
    for name, value in vars(module).items():
        if name.startswith("_") or not name.isupper():
            continue
        if isinstance(value, str):
            found[name] = value
        elif isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()):
            for key, statement in value.items():
                found[f"{name}[{key!r}]"] = statement
    return found


def _printed() -> str:
    parts = []
    for module_name in _sql_modules():
        for name, statement in sorted(_statements(module_name).items()):
            parts.append(f"-- {module_name}.{name}\n{statement.strip()}\n")
    return "\n".join(parts)


def test_every_stage_has_its_statements_in_its_sql_module():
    assert {"synapses.net.sql", "memories.selectors.sql", "pipelinelog.sql"} <= set(_sql_modules())
    # Hybrid search: two plans × with or without a tag filter × with or without a category filter.
    assert sum(1 for name in _statements("memories.selectors.sql") if name.startswith("CANDIDATES_SQL[")) == 8
    assert {"KNOT_PLAN_SQL", "EDGES_INSERT_SQL"} <= set(_statements("synapses.net.sql"))
    assert sum(1 for name in _statements("synapses.net.sql") if name.startswith("EDGE_CANDIDATES_SQL[")) == 32


def test_no_statement_is_left_with_a_placeholder_of_its_template():
    # A statement built at import has its table names and fragments filled in; only the
    # parameters (%(name)s) are left for the execute.
    for module_name in _sql_modules():
        for name, statement in _statements(module_name).items():
            # '{}' is PostgreSQL's empty array or JSON object literal, the one brace a statement may hold.
            assert not PLACEHOLDER.search(statement.replace("'{}'", "''")), (module_name, name)


def test_every_table_a_statement_names_comes_from_the_one_mapping():
    # A table name typed into a statement instead of taken from synapses.net.tables.TABLES would
    # survive a renamed model; every `synapses_…` / `memories_…` name must be one of TABLES'.
    for module_name in _sql_modules():
        for name, statement in _statements(module_name).items():
            named = set(TABLE_NAME.findall(statement))
            assert named <= set(TABLES.values()), (module_name, name, named - set(TABLES.values()))


def test_the_statements_are_the_pinned_ones():
    printed = _printed()
    if UPDATE:
        GOLDEN.write_text(printed, encoding="utf-8")
        pytest.skip("golden file written")
    assert GOLDEN.is_file(), "no golden file: run with SYNAPSE_GOLDEN_UPDATE=1 once"
    assert printed == GOLDEN.read_text(encoding="utf-8")
