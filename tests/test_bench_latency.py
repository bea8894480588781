"""`python -m bench latency --only`: one operation's rows without the others'."""

from __future__ import annotations

import pytest

from bench.latency import OPERATION_NAMES, arguments, operations


def test_the_operation_names_are_the_measured_operations_in_their_order():
    assert tuple(operation.name for operation in operations()) == OPERATION_NAMES


def test_only_takes_one_or_more_operation_names_and_defaults_to_all():
    assert arguments([]).only is None
    assert arguments(["--only", "resonance"]).only == ["resonance"]
    assert arguments(["--only", "recall ?q", "resonance"]).only == ["recall ?q", "resonance"]


def test_only_refuses_a_name_that_is_no_operation(capsys):
    with pytest.raises(SystemExit):
        arguments(["--only", "resonanse"])
    assert "invalid choice: 'resonanse'" in capsys.readouterr().err
