"""ask_user_question: the model asks the user a form of questions.

It skips approval (the form itself is the user's consent, seed 000
"skip_approval"). The form is announced by :meth:`on_post_executing`, which
the chat handler calls synchronously right after ``tool_call[executing]``,
so ``form_request`` is adjacent to it on the bus and the form is registered
before anyone can answer. ``run`` then waits for the answer.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from typing import Any

from desktop_agent.core.forms import QUESTION_TYPES, FormManager, FormQuestion
from desktop_agent.core.ports import JSONDict, ToolContext, ToolResult, ToolSpec
from desktop_agent.tools._args import (
    ArgumentError,
    optional_bool,
    optional_list,
    optional_str,
    require_str,
)

log = logging.getLogger(__name__)

NAME = "ask_user_question"

_QUESTION_SCHEMA: JSONDict = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "Key of this answer (default q1, q2, …)."},
        "question": {"type": "string"},
        "type": {"type": "string", "enum": list(QUESTION_TYPES)},
        "options": {"type": "array", "items": {"type": "string"}},
        "required": {"type": "boolean", "default": True},
    },
    "required": ["question"],
}

SPEC = ToolSpec(
    name=NAME,
    description=(
        "Ask the user one or more questions in a form and wait for the answers. "
        "Use it when you need a decision or information only the user has. "
        "Each question is free text (type 'text'), one option ('choice') or several "
        "options ('multi_choice'); give 'options' for the choice types. Shorthand for "
        'one question: {"question": ..., "options": [...]}. Returns '
        '{"answers": {question id: answer}}, or says the user declined.'
    ),
    parameters={
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "Form title (optional)."},
            "questions": {"type": "array", "items": _QUESTION_SCHEMA, "minItems": 1},
            "question": {"type": "string", "description": "Shorthand: a single question."},
            "options": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Shorthand: options of the single question.",
            },
        },
    },
    skip_approval=True,
)


def parse_form(arguments: Mapping[str, Any]) -> tuple[tuple[FormQuestion, ...], str | None]:
    """Validate and normalise the arguments into questions and a title."""
    title = optional_str(arguments, "title")
    if "questions" in arguments and "question" in arguments:
        raise ArgumentError("give either 'questions' (a list) or 'question' (one question), not both")
    if "question" in arguments:
        return (_parse_question(arguments, 0, ""),), title
    raw = optional_list(arguments, "questions")
    if not raw:
        raise ArgumentError("questions must be a non-empty list of {id, question, type, options}")
    questions: list[FormQuestion] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"questions[{i}]."
        if not isinstance(item, Mapping):
            raise ArgumentError(f"questions[{i}] must be an object, got {type(item).__name__}")
        q = _parse_question(item, i, where)
        if q.id in seen:
            raise ArgumentError(f"{where}id {q.id!r} is used twice")
        seen.add(q.id)
        questions.append(q)
    return tuple(questions), title


def _parse_question(raw: Mapping[str, Any], index: int, where: str) -> FormQuestion:
    text = require_str(raw, "question", where)
    qid = optional_str(raw, "id", where)
    if qid is not None and not qid.strip():
        raise ArgumentError(f"{where}id must not be empty")
    options = optional_list(raw, "options", where) or []
    for option in options:
        if not isinstance(option, str) or not option.strip():
            raise ArgumentError(f"{where}options must be non-empty strings, got {option!r}")
    if len(set(options)) != len(options):
        raise ArgumentError(f"{where}options contain a duplicate")
    qtype = optional_str(raw, "type", where) or ("choice" if options else "text")
    if qtype not in QUESTION_TYPES:
        raise ArgumentError(f"{where}type must be one of {', '.join(QUESTION_TYPES)}, got {qtype!r}")
    if qtype == "text" and options:
        raise ArgumentError(f"{where}options are only for 'choice' and 'multi_choice' questions")
    if qtype != "text" and not options:
        raise ArgumentError(f"{where}options must list the choices of a {qtype!r} question")
    return FormQuestion(
        id=qid or f"q{index + 1}",
        question=text,
        type=qtype,
        options=tuple(options),
        required=optional_bool(raw, "required", True, where),
    )


class AskUserQuestionTool:
    """Built-in ``ask_user_question``; implements Tool and PostExecutingHook."""

    def __init__(self, forms: FormManager) -> None:
        self._forms = forms
        self._announced: dict[str, JSONDict] = {}
        """form_request message per tool_call_id, until ``run`` takes it."""

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    def on_post_executing(self, tool_call_id: str, arguments: Mapping[str, Any]) -> JSONDict | None:
        """Register the form and return its ``form_request`` message; None
        for invalid arguments (``run`` then returns the error)."""
        previous = self._announced.get(tool_call_id)
        if previous is not None and previous["form_id"] in self._forms:
            return dict(previous)  # called twice: the same form, not a second one
        try:
            questions, title = parse_form(arguments)
        except ArgumentError:
            return None
        form_id = f"form-{uuid.uuid4().hex[:12]}"
        self._forms.register(form_id, questions, title=title)
        message: JSONDict = {
            "type": "form_request",
            "tool_call_id": tool_call_id,
            "form_id": form_id,
            "questions": [q.to_json() for q in questions],
            "title": title,
        }
        self._announced[tool_call_id] = message
        return dict(message)

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        announced = self._announced.pop(ctx.tool_call_id, None)
        try:
            parse_form(arguments)
        except ArgumentError as exc:
            return ToolResult(f"{NAME}: invalid arguments: {exc}", is_error=True)
        if announced is None:
            log.error("%s ran without on_post_executing: no form was shown", NAME)
            return ToolResult(f"{NAME}: the form could not be shown to the user", is_error=True)
        form_id = str(announced["form_id"])
        try:
            answer = await self._forms.wait(form_id)
        finally:
            self._forms.cancel(form_id)  # interrupted: the form is over
        if answer.cancelled or answer.answers is None:
            return ToolResult("The user declined to answer the form.")
        return ToolResult(json.dumps({"answers": answer.answers}, ensure_ascii=False))
