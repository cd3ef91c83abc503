from __future__ import annotations

import json
from types import MappingProxyType

from desktop_agent.core.json_types import JSONMapping, as_list, as_object, to_object, to_value


def test_an_owned_copy_turns_mappings_into_dicts_and_sequences_into_lists_all_the_way_down() -> None:
    inner = {"n": 1}
    read_only: JSONMapping = MappingProxyType({"a": (1, "x", inner), "b": MappingProxyType({"c": None})})

    copy = to_object(read_only)

    assert copy == {"a": [1, "x", {"n": 1}], "b": {"c": None}}
    assert type(copy["b"]) is dict and type(copy["a"]) is list
    assert as_list(copy["a"])[2] is not inner  # owned: editing the copy leaves the original alone
    assert json.dumps(copy) == json.dumps({"a": [1, "x", {"n": 1}], "b": {"c": None}})


def test_an_owned_copy_keeps_strings_and_scalars_as_they_are() -> None:
    assert [to_value(v) for v in ("text", 3, 2.5, True, None)] == ["text", 3, 2.5, True, None]


def test_lenient_readers_give_an_empty_object_or_list_for_anything_else() -> None:
    assert (as_object([1]), as_object("x"), as_list({"a": 1}), as_list("abc")) == ({}, {}, (), ())
