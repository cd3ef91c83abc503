"""Tool arguments as pydantic models: one declaration gives both the JSON
schema the model is shown and the check of what it sends back.

The model reads the error text and corrects its call, so an error is one line
that names the argument (``questions[0].options``), says what was expected and
shows what came instead. Models are strict: ``"5"`` is not a number and
``"yes"`` is not a boolean, because a guess would hide the model's mistake.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Annotated, TypeVar

from pydantic import AfterValidator, BaseModel, ValidationError
from pydantic_core import ErrorDetails

from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONValue

M = TypeVar("M", bound=BaseModel)


class ArgumentError(ValueError):
    """Tool arguments that do not fit the tool's schema (one line)."""


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must be a non-empty string")
    return value


NonEmptyStr = Annotated[str, AfterValidator(_not_blank)]
"""A string with something in it besides spaces."""


def parse_arguments(model: type[M], arguments: JSONMapping) -> M:
    """Validate ``arguments`` against ``model``; :class:`ArgumentError` if they do not fit."""
    try:
        return model.model_validate(dict(arguments), strict=True)
    except ValidationError as exc:
        raise ArgumentError(describe(exc.errors(include_url=False)[0])) from None


def tool_parameters(model: type[BaseModel]) -> JSONObject:
    """``model``'s JSON schema as a plain one every chat API accepts: no
    ``$defs``/``$ref`` (inlined), no ``title``s, optional fields as their bare
    type instead of ``anyOf [T, null]``."""
    schema: JSONObject = model.model_json_schema()
    defs = schema.pop("$defs", {})
    schema.pop("description", None)  # the class docstring; the tool has its own description
    cleaned = _clean(schema, defs if isinstance(defs, dict) else {})
    assert isinstance(cleaned, dict)
    return cleaned


def _clean(node: JSONValue, defs: Mapping[str, JSONValue]) -> JSONValue:
    if isinstance(node, list):
        return [_clean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = defs[ref.rsplit("/", 1)[-1]]
        assert isinstance(target, dict)  # pydantic's $defs are schemas
        return _clean({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
    branches = node.get("anyOf")
    if isinstance(branches, list):
        others = [b for b in branches if b != {"type": "null"}]
        if len(others) == 1 and len(others) < len(branches) and isinstance(others[0], dict):
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return _clean({**others[0], **rest}, defs)
    out: JSONObject = {}
    for key, value in node.items():
        if key == "title" or (key == "default" and value is None):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(prop, defs) for name, prop in value.items()}
        else:
            out[key] = _clean(value, defs)
    return out


_PHRASES = {
    "missing": "is required",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "int_type": "must be an integer",
    "float_type": "must be a number",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "finite_number": "must be a finite number",
}
_CONSTRAINTS = {
    "greater_than": ("must be greater than", "gt"),
    "greater_than_equal": ("must be at least", "ge"),
    "less_than": ("must be less than", "lt"),
    "less_than_equal": ("must be at most", "le"),
    "literal_error": ("must be one of", "expected"),
}
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60


def describe(error: ErrorDetails) -> str:
    """One validation error as ``"<where> <what was expected>, got <what came>"``."""
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in _CONSTRAINTS:
        words, key = _CONSTRAINTS[kind]
        bound = ctx.get(key)
        phrase = f"{words} {bound:g}" if isinstance(bound, float) else f"{words} {bound}"
    elif kind in ("too_short", "string_too_short") and ctx.get("min_length") == 1:
        phrase = "must not be empty"
    elif kind in ("value_error", "assertion_error") and "error" in ctx:
        phrase = str(ctx["error"])
    else:
        phrase = _PHRASES.get(kind) or error["msg"][:1].lower() + error["msg"][1:]
    where = location(error["loc"])
    given = _given(error["input"], wrong_type=kind.endswith("_type"))
    if kind != "missing" and where and given:
        phrase += f", got {given}"
    return f"{where} {phrase}" if where else phrase


def location(loc: tuple[int | str, ...]) -> str:
    """``("questions", 0, "id")`` → ``questions[0].id``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _given(value: object, *, wrong_type: bool) -> str:
    """A short scalar as written; a list or an object only by its kind, and
    only when the kind was the mistake."""
    if value is None or isinstance(value, bool | int | float | str):
        return _short.repr(value)
    if not wrong_type:
        return ""
    return "a list" if isinstance(value, list | tuple) else "an object" if isinstance(value, dict) else type(value).__name__
