"""JSON types, for the places where a value really is arbitrary JSON: tool
arguments and results, OpenAI messages on their way to the LLM, the events
file, the saved display log.

:data:`JSONValue` is recursive, so mypy checks what is put in and makes the
reader narrow what it takes out (``isinstance``), instead of trusting an
unchecked value. Read-only parameters take :data:`JSONMapping` (a ``Mapping`` is
covariant: a ``dict[str, str]`` is one), values that are built take
:data:`JSONObject`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias, Union

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = Union[JSONScalar, list["JSONValue"], dict[str, "JSONValue"]]  # noqa: UP007 - recursive alias
"""A JSON value of whatever kind, as ``json.loads`` returns it."""
JSONObject: TypeAlias = dict[str, JSONValue]
"""A JSON object being built (or one ``json.loads`` returned)."""
JSONMapping: TypeAlias = Mapping[str, "JSONReadable"]
"""A JSON object only read: any mapping of JSON values, tuples for lists."""
JSONReadable: TypeAlias = Union[JSONScalar, Sequence["JSONReadable"], Mapping[str, "JSONReadable"]]  # noqa: UP007
"""A JSON value only read (``Sequence``/``Mapping``: covariant, so any
concrete JSON-shaped value is one)."""

def as_object(value: JSONReadable) -> JSONMapping:
    """``value`` when it is a JSON object, else an empty one (lenient reading
    of saved or received data)."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: JSONReadable) -> Sequence[JSONReadable]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, Sequence) and not isinstance(value, str) else ()


def to_value(value: JSONReadable) -> JSONValue:
    """An owned copy of ``value``, mappings as dicts and sequences as lists
    all the way down: what a built :data:`JSONObject` may hold (the same
    JSON text as ``value``)."""
    if isinstance(value, Mapping):
        return to_object(value)
    if isinstance(value, str) or not isinstance(value, Sequence):
        return value
    return [to_value(item) for item in value]


def to_object(value: JSONMapping) -> JSONObject:
    """An owned copy of a read-only JSON object (:func:`to_value`)."""
    return {key: to_value(item) for key, item in value.items()}
