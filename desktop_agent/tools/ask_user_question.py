"""ask_user_question: the model asks the user a form of questions.

It skips approval (the form itself is the user's consent: approving first
would make the user answer twice; contracts §2). The form is announced by :meth:`on_post_executing`, which
the chat handler calls synchronously right after ``tool_call[executing]``,
so ``form_request`` is adjacent to it on the bus and the form is registered
before anyone can answer. ``run`` then waits for the answer.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from desktop_agent.core.forms import FormManager, FormQuestion
from desktop_agent.core.messages import FormRequestMessage
from desktop_agent.core.ports import AnswerTimedOut, ToolContext, ToolResult, ToolSpec
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.tools.arguments import ArgumentError, NonEmptyStr, parse_arguments, tool_parameters

log = logging.getLogger(__name__)

NAME = "ask_user_question"
ToolQuestionType = Literal["text", "choice", "multi_choice"]
"""The question types the model may ask (a server's form may ask more)."""

class QuestionArgs(BaseModel):
    """One question of the form."""

    id: NonEmptyStr | None = Field(None, description="Key of this answer (default q1, q2, …).")
    question: NonEmptyStr
    type: ToolQuestionType | None = Field(None, description="Default: 'choice' with options, else 'text'.")
    options: list[NonEmptyStr] = Field(default_factory=list, validate_default=True)
    required: bool = True

    @field_validator("options")
    @classmethod
    def _options_fit_the_type(cls, options: list[str], info: ValidationInfo) -> list[str]:
        # ``type`` is declared first, so it is in ``info.data`` when it was valid.
        if len(set(options)) != len(options):
            raise ValueError("contain a duplicate")
        qtype = info.data.get("type")
        if qtype == "text" and options:
            raise ValueError("are only for 'choice' and 'multi_choice' questions")
        if qtype in ("choice", "multi_choice") and not options:
            raise ValueError(f"must list the choices of a {qtype!r} question")
        return options

    def to_question(self, index: int) -> FormQuestion:
        return FormQuestion(
            id=self.id or f"q{index + 1}",
            question=self.question,
            type=self.type or ("choice" if self.options else "text"),
            options=tuple(self.options),
            required=self.required,
        )


class FormArgs(BaseModel):
    """The tool's arguments: a list of questions, or one question in shorthand."""

    title: str | None = Field(None, description="Form title (optional).")
    questions: list[QuestionArgs] | None = Field(None, min_length=1)
    question: str | None = Field(None, description="Shorthand: a single question.")
    options: list[str] | None = Field(None, description="Shorthand: options of the single question.")


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
    parameters=tool_parameters(FormArgs),
    skip_approval=True,
    annotations=ToolAnnotations(read_only=True, destructive=False, idempotent=False, open_world=False),
)


def parse_form(arguments: Mapping[str, Any]) -> tuple[tuple[FormQuestion, ...], str | None]:
    """Validate and normalise the arguments into questions and a title."""
    if "questions" in arguments and "question" in arguments:
        raise ArgumentError("give either 'questions' (a list) or 'question' (one question), not both")
    form = parse_arguments(FormArgs, arguments)
    if "question" in arguments:
        # The shorthand question may carry id/type/required at the top level too.
        return (parse_arguments(QuestionArgs, arguments).to_question(0),), form.title
    if form.questions is None:
        raise ArgumentError("questions must be a non-empty list of {id, question, type, options}")
    questions = tuple(q.to_question(i) for i, q in enumerate(form.questions))
    seen: set[str] = set()
    for i, q in enumerate(questions):
        if q.id in seen:
            raise ArgumentError(f"questions[{i}].id {q.id!r} is used twice")
        seen.add(q.id)
    return questions, form.title


class AskUserQuestionTool:
    """Built-in ``ask_user_question``; implements Tool and PostExecutingHook."""

    def __init__(self, forms: FormManager) -> None:
        self._forms = forms
        self._announced: dict[str, FormRequestMessage] = {}
        """form_request message per tool_call_id, until ``run`` takes it."""

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    def on_post_executing(
        self, tool_call_id: str, arguments: Mapping[str, Any]
    ) -> FormRequestMessage | None:
        """Register the form and return its ``form_request`` message; None
        for invalid arguments (``run`` then returns the error)."""
        previous = self._announced.get(tool_call_id)
        if previous is not None and previous.form_id in self._forms:
            return previous  # called twice: the same form, not a second one
        try:
            questions, title = parse_form(arguments)
        except ArgumentError:
            return None
        form_id = f"form-{uuid.uuid4().hex[:12]}"
        self._forms.register(form_id, questions, title=title)
        message = FormRequestMessage(tool_call_id, form_id, tuple(questions), title)
        self._announced[tool_call_id] = message
        return message

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        announced = self._announced.pop(ctx.tool_call_id, None)
        try:
            parse_form(arguments)
        except ArgumentError as exc:
            return ToolResult(f"{NAME}: invalid arguments: {exc}", is_error=True)
        if announced is None:
            log.error("%s ran without on_post_executing: no form was shown", NAME)
            return ToolResult(f"{NAME}: the form could not be shown to the user", is_error=True)
        form_id = announced.form_id
        timeout_s = ctx.answer_timeout_s
        try:
            answer = await self._forms.wait(form_id, timeout_s)
        finally:
            self._forms.cancel(form_id)  # interrupted: the form is over
        if answer.timed_out:
            # A forgotten form ends the turn like an unanswered approval.
            raise AnswerTimedOut(f"no answer to the form in {timeout_s:g} s")
        if answer.cancelled or answer.answers is None:
            return ToolResult("The user declined to answer the form.")
        return ToolResult(json.dumps({"answers": answer.answers}, ensure_ascii=False))
