"""How deep JSON may nest, for every parser that reads a request body or a file.

Python's `json` recurses once per level and raises RecursionError (not ValueError) near 1,000
levels, which every caller catching ValueError turned into a 500; and code walking the parsed
value recursively (redaction, summaries, validation) would hit the same wall later. So JSON is
parsed here, the depth of what came out is measured without recursion, and anything deeper than
JSON_MAX_DEPTH is refused with JSONTooDeep — a ValueError, so callers that already refuse
malformed JSON refuse it too. Plain Python, no Django.
"""

from __future__ import annotations

import json
from typing import Any

# Deepest nesting accepted: the top-level object or array is level 1. A memory body is level 1,
# its `attributes` level 2; an export file puts memories at level 3. Far above any real use,
# far below the interpreter's recursion limit.
JSON_MAX_DEPTH = 64

TOO_DEEP_MESSAGE = f"JSON nested deeper than {JSON_MAX_DEPTH} levels; at most {JSON_MAX_DEPTH} are accepted."


class JSONTooDeep(ValueError):
    """Parsed (or parsing) JSON nests deeper than its bound."""

    def __init__(self, message: str = TOO_DEEP_MESSAGE) -> None:
        super().__init__(message)
        self.msg = message  # like json.JSONDecodeError, for callers that report `.msg`


def json_depth(value: Any, *, stop_above: int | None = None) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0, `{}` and `[]` are 1), iteratively.

    With `stop_above`, returns as soon as a level deeper than it is found (the walk of a huge
    refused value ends early)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        level += 1
        if level > deepest:
            deepest = level
            if stop_above is not None and deepest > stop_above:
                return deepest
        stack.extend((child, level) for child in children if isinstance(child, dict | list | tuple))
    return deepest


def depth_check(value: Any) -> Any:
    """`value`, or JSONTooDeep when it nests deeper than JSON_MAX_DEPTH."""
    if json_depth(value, stop_above=JSON_MAX_DEPTH) > JSON_MAX_DEPTH:
        raise JSONTooDeep
    return value


def loads_bounded(text: str | bytes | bytearray, **kwargs: Any) -> Any:
    """`json.loads`, refusing nesting deeper than JSON_MAX_DEPTH (JSONTooDeep, a ValueError)."""
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise JSONTooDeep from None
    return depth_check(value)
