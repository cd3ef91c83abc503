"""An MCP server's elicitation schema as form questions, and the answers
``--elicit defaults`` gives (contracts §10).

The MCP spec restricts ``requestedSchema`` to a flat object of primitive
properties: strings (with ``format`` email/uri/date/date-time and length
bounds), numbers and integers (with ``minimum``/``maximum``), booleans,
single choices (``enum``, ``oneOf`` with ``const``/``title``, the legacy
``enumNames``) and multiple choices (an ``array`` whose ``items`` hold an
``enum`` or ``anyOf``). Anything else (nested objects, unknown types, a
choice without options) is refused as a whole with one line naming the
field: a form missing a field the server needs would only fail later.
Pure data, no MCP types: the bridge hands the schema over as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from desktop_agent.core.form_question import TEXT_FORMATS, AnswerValue, FormQuestion, QuestionType
from desktop_agent.core.form_values import AnswerProblem, check_value
from desktop_agent.core.json_types import JSONMapping, JSONReadable

_SCALARS: dict[str, QuestionType] = {"string": "text", "number": "number", "integer": "integer", "boolean": "boolean"}


class SchemaError(ValueError):
    """The schema is not one a form can show; the message says what, in a phrase."""


class NoDefault(ValueError):
    """A required question has no default (``--elicit defaults`` declines)."""

    def __init__(self, question: FormQuestion) -> None:
        self.question = question
        super().__init__(f"“{question.question}” ({question.id}) is required and has no default")


def questions_from_schema(schema: JSONReadable) -> tuple[FormQuestion, ...]:
    """The form's questions, in the schema's property order."""
    if not isinstance(schema, Mapping):
        raise SchemaError("the schema is not a JSON object")
    if schema.get("type", "object") != "object":
        raise SchemaError(f"the schema's type is {schema.get('type')!r}, not 'object'")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise SchemaError("the schema's 'properties' is not a JSON object")
    required = schema.get("required", ())
    if not isinstance(required, Sequence) or isinstance(required, str):
        raise SchemaError("the schema's 'required' is not a list")
    return tuple(_question(str(name), prop, name in required) for name, prop in properties.items())


def default_answers(questions: Sequence[FormQuestion]) -> dict[str, AnswerValue]:
    """Every question's default; raises :class:`NoDefault` for the first
    required question without one. Optional ones without a default are
    left out, as the user leaving them empty would."""
    out: dict[str, AnswerValue] = {}
    for q in questions:
        if q.default is not None:
            out[q.id] = q.default
        elif q.required:
            raise NoDefault(q)
    return out


def _question(name: str, prop: JSONReadable, required: bool) -> FormQuestion:
    if not isinstance(prop, Mapping):
        raise SchemaError(f"field {name!r} is not described by a JSON object")
    kind = prop.get("type")
    title = prop.get("title")
    description = prop.get("description")
    base = FormQuestion(
        id=name,
        question=title if isinstance(title, str) and title.strip() else name,
        required=required,
        description=description if isinstance(description, str) else "",
    )
    if kind == "array":
        question = _multi(name, prop, base)
    elif kind in ("object", None) and "properties" in prop:
        raise SchemaError(f"field {name!r} is a nested object, which a form cannot ask")
    elif not isinstance(kind, str) or kind not in _SCALARS:
        raise SchemaError(f"field {name!r} has type {kind!r}, which a form cannot ask")
    elif kind == "string" and ("enum" in prop or "oneOf" in prop):
        question = _single(name, prop, base)
    else:
        question = _scalar(_SCALARS[kind], prop, base)
    return _with_default(question, prop.get("default"))


def _scalar(qtype: QuestionType, prop: JSONMapping, base: FormQuestion) -> FormQuestion:
    if qtype == "text":
        fmt = prop.get("format")
        return replace(
            base, type="text",
            format=fmt if fmt in TEXT_FORMATS else None,
            minimum=_number(prop.get("minLength")), maximum=_number(prop.get("maxLength")),
        )
    if qtype in ("number", "integer"):
        return replace(base, type=qtype, minimum=_number(prop.get("minimum")), maximum=_number(prop.get("maximum")))
    return replace(base, type=qtype)


def _single(name: str, prop: JSONMapping, base: FormQuestion) -> FormQuestion:
    values, labels = _options(name, prop)
    names = prop.get("enumNames")
    if not labels and isinstance(names, Sequence) and not isinstance(names, str) and len(names) == len(values):
        labels = tuple(str(n) for n in names)
    return replace(base, type="choice", options=values, option_labels=labels)


def _multi(name: str, prop: JSONMapping, base: FormQuestion) -> FormQuestion:
    items = prop.get("items")
    if not isinstance(items, Mapping):
        raise SchemaError(f"field {name!r} is a list without 'items' options")
    values, labels = _options(name, items)
    return replace(
        base, type="multi_choice", options=values, option_labels=labels,
        minimum=_number(prop.get("minItems")), maximum=_number(prop.get("maxItems")),
    )


def _options(name: str, prop: JSONMapping) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The option values and, when titled, their labels."""
    enum = prop.get("enum")
    if isinstance(enum, Sequence) and not isinstance(enum, str) and enum:
        return tuple(str(v) for v in enum), ()
    titled = prop.get("oneOf", prop.get("anyOf"))
    if isinstance(titled, Sequence) and not isinstance(titled, str) and titled:
        values, labels = [], []
        for option in titled:
            if not isinstance(option, Mapping) or not isinstance(option.get("const"), str):
                raise SchemaError(f"field {name!r} has an option without a text 'const'")
            value = str(option["const"])
            label = option.get("title")
            values.append(value)
            labels.append(label if isinstance(label, str) and label else value)
        return tuple(values), tuple(labels) if labels != values else ()
    raise SchemaError(f"field {name!r} offers a choice without options")


def _with_default(q: FormQuestion, default: JSONReadable) -> FormQuestion:
    """The default, when it is a valid answer to the question (a server's
    wrong default is dropped rather than shown as if it were valid)."""
    if default is None:
        return q
    if isinstance(default, Sequence) and not isinstance(default, str):
        default = list(default)
    try:
        return replace(q, default=check_value(q, default))
    except AnswerProblem:
        return q


def _number(value: JSONReadable) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
