"""Measuring how deeply a JSON-like value nests, without recursion."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_agent.core.json_depth import MAX_ARGUMENT_DEPTH, nests_deeper_than


@pytest.mark.parametrize(
    ("value", "depth"),
    [(1, 0), ("x", 0), ({}, 1), ([], 1), ({"a": [1]}, 2), ([{"a": {}}, []], 3), ((1, (2,)), 2), ({"a": "b" * 9}, 1)],
)
def test_the_depth_counts_containers_inside_one_another(value: Any, depth: int) -> None:
    assert not nests_deeper_than(value, depth)
    assert nests_deeper_than(value, depth - 1) == (depth > 0)


def test_any_depth_json_accepts_is_measured_without_recursion() -> None:
    deep = json.loads('{"a": ' * 600 + "1" + "}" * 600)
    assert nests_deeper_than(deep, MAX_ARGUMENT_DEPTH)
    built: Any = []
    for _ in range(100_000):
        built = [built]
    assert nests_deeper_than(built, 99_999) and not nests_deeper_than(built, 100_001)
