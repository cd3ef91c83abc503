"""One question of a form, as every front end shows it.

Two kinds of forms share it: ``ask_user_question``'s (free text, one
option, several options) and an MCP server's elicitation request, whose
schema also asks for numbers, integers and yes/no answers, with defaults,
descriptions, bounds and text formats (:mod:`desktop_agent.core.elicit_schema`
builds those). Everything a server may add is optional and left out of the
JSON form when unset, so an ``ask_user_question`` ``form_request`` reads
exactly as before (contracts §5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from desktop_agent.core.json_types import JSONObject, JSONReadable, as_list

QuestionType = Literal["text", "choice", "multi_choice", "number", "integer", "boolean"]
QUESTION_TYPES: tuple[QuestionType, ...] = get_args(QuestionType)
TextFormat = Literal["email", "uri", "date", "date-time"]
TEXT_FORMATS: tuple[TextFormat, ...] = get_args(TextFormat)
AnswerValue = str | list[str] | int | float | bool
"""An answer as the form's question types give it (numbers as numbers)."""


@dataclass(frozen=True, slots=True)
class FormQuestion:
    """One question of a form, already validated by whoever built it."""

    id: str
    question: str
    """What the user reads (an elicitation field's title, else its name)."""
    type: QuestionType = "text"
    options: tuple[str, ...] = ()
    """The choices' values, for ``choice`` and ``multi_choice``; empty otherwise."""
    required: bool = True
    option_labels: tuple[str, ...] = ()
    """What each option shows when it differs from its value (a schema's
    ``oneOf`` titles); empty: the options show themselves."""
    description: str = ""
    default: AnswerValue | None = None
    """Filled in before the user answers (and the answer ``--elicit defaults`` gives)."""
    format: TextFormat | None = None
    """A text answer's required shape."""
    minimum: float | None = None
    maximum: float | None = None
    """A number's bounds, a text's length bounds, a multi-choice's count bounds."""

    def label_of(self, option: str) -> str:
        """What ``option`` shows."""
        if self.option_labels and option in self.options:
            return self.option_labels[self.options.index(option)]
        return option

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "id": self.id,
            "question": self.question,
            "type": self.type,
            "options": list(self.options),
            "required": self.required,
        }
        if self.option_labels:
            out["option_labels"] = list(self.option_labels)
        if self.description:
            out["description"] = self.description
        if self.default is not None:
            out["default"] = list(self.default) if isinstance(self.default, list) else self.default
        if self.format is not None:
            out["format"] = self.format
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, JSONReadable]) -> FormQuestion:
        """Read :meth:`to_json`'s form back (a saved conversation); a field
        that does not fit is left unset rather than refused."""
        qtype = data.get("type", "text")
        fmt = data.get("format")
        return cls(
            str(data.get("id", "")),
            str(data.get("question", "")),
            qtype if qtype in QUESTION_TYPES else "text",
            tuple(str(o) for o in as_list(data.get("options"))),
            bool(data.get("required", True)),
            tuple(str(o) for o in as_list(data.get("option_labels"))),
            str(data.get("description") or ""),
            _answer_value(data.get("default")),
            fmt if fmt in TEXT_FORMATS else None,
            _bound(data.get("minimum")),
            _bound(data.get("maximum")),
        )


def _answer_value(value: JSONReadable) -> AnswerValue | None:
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Sequence):
        return [str(v) for v in value]
    return None


def _bound(value: JSONReadable) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
