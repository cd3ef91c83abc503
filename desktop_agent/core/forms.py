"""FormManager: pending forms of ``ask_user_question`` and of MCP servers'
elicitation requests, like approvals but carrying answers (contracts §4; the
tool skips approval, contracts §2, because the form itself is the user's
consent). A form ends answered, cancelled, timed out, or declined (a
server's form only: the spec tells "no" from "not now").

The tool registers a form synchronously from its ``on_post_executing`` hook,
so the form exists before the ``form_request`` bus message can reach anyone
who might answer it; the tool's ``run`` then waits. Whoever shows the form
(the window, the headless front end via :meth:`FormManager.pending`) calls
:meth:`FormManager.respond`. Answers are checked against the questions here,
once, so every front end gets the same one-line error for the same mistake.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from desktop_agent.core.form_question import QUESTION_TYPES, AnswerValue, FormQuestion, QuestionType
from desktop_agent.core.form_values import AnswerProblem, check_value, is_empty
from desktop_agent.core.json_types import JSONMapping
from desktop_agent.core.timers import Timers, wait_set

log = logging.getLogger(__name__)

Answers = dict[str, AnswerValue]


class FormAnswerError(ValueError):
    """The answers do not fit the form. The message names the question by
    its text (what the user saw), never only by its internal id."""

    def __init__(
        self, problem: str, question: FormQuestion | None = None, *, key: str | None = None,
        params: Mapping[str, str] | None = None,
    ) -> None:
        self.question = question
        self.problem = problem
        """What is wrong, without the question ("needs an answer")."""
        self.key = key
        """The problem's key in ``form_values.PROBLEMS`` (None: no translation; ``missing``)."""
        self.params: Mapping[str, str] = params or {}
        super().__init__(f"“{question.question}” {problem}" if question is not None else problem)

    @property
    def missing(self) -> bool:
        """A required question was left empty."""
        return self.problem == _MISSING


_MISSING = "needs an answer"


@dataclass(frozen=True, slots=True)
class FormAnswer:
    """How a form ended: the answers, or cancelled (no answers)."""

    answers: Answers | None
    cancelled: bool = False
    timed_out: bool = False
    """Nobody answered within the wait's timeout (also ``cancelled``)."""
    declined: bool = False
    """The user said no (an elicitation's Decline button); not ``cancelled``:
    a server hears the two apart."""


@dataclass(frozen=True, slots=True)
class PendingForm:
    """A form still waiting for the user."""

    form_id: str
    questions: tuple[FormQuestion, ...]
    title: str | None = None


class _Entry:
    """The answer slot of one form; the waiter keeps a reference, so popping
    the entry (cancel) still wakes it."""

    __slots__ = ("answer", "done", "form")

    def __init__(self, form: PendingForm) -> None:
        self.form = form
        self.done = asyncio.Event()
        self.answer: FormAnswer | None = None

    def finish(self, answer: FormAnswer) -> None:
        if self.answer is None:
            self.answer = answer
            self.done.set()


_CANCELLED = FormAnswer(answers=None, cancelled=True)
_DECLINED = FormAnswer(answers=None, declined=True)
_TIMED_OUT = FormAnswer(answers=None, cancelled=True, timed_out=True)


class FormManager:
    def __init__(self, *, timers: Timers | None = None) -> None:
        """``timers``: what runs the waits' timeouts (None: the running loop's)."""
        self._entries: dict[str, _Entry] = {}
        self._timers = timers

    def register(
        self, form_id: str, questions: Sequence[FormQuestion], *, title: str | None = None, consent: bool = False
    ) -> None:
        """Create the form (synchronous: no await between this and the push).
        ``consent``: a form that may have no questions (a server asking only
        yes or no, or to open a web address)."""
        if form_id in self._entries:
            raise ValueError(f"form {form_id!r} is already registered")
        if not questions and not consent:
            raise ValueError(f"form {form_id!r} has no questions")
        self._entries[form_id] = _Entry(PendingForm(form_id, tuple(questions), title))

    def __contains__(self, form_id: object) -> bool:
        """True while the form is registered and its answer not yet collected."""
        return form_id in self._entries

    def pending(self) -> list[PendingForm]:
        """Forms still waiting for an answer, in registration order."""
        return [e.form for e in self._entries.values() if e.answer is None]

    async def wait(self, form_id: str, timeout: float | None = None) -> FormAnswer:
        """The user's answer; cancelled when the form was cancelled, timed out,
        or is unknown (already cancelled before the wait began)."""
        entry = self._entries.get(form_id)
        if entry is None:
            log.debug("form %s is gone before the wait began: cancelled", form_id)
            return _CANCELLED
        try:
            if not await wait_set(entry.done, timeout, self._timers):
                log.info("form %s timed out after %s s", form_id, timeout)
                entry.finish(_TIMED_OUT)
        finally:
            # Collected, timed out or the waiter was cancelled: the form is over.
            entry.finish(_CANCELLED)
            if self._entries.get(form_id) is entry:
                del self._entries[form_id]
        assert entry.answer is not None
        return entry.answer

    def respond(self, form_id: str, answers: JSONMapping | None) -> bool:
        """Answer a form; ``None`` means the user cancelled it.

        False when no such form is pending. Raises :class:`FormAnswerError`
        when the answers do not fit (the form stays pending).
        """
        entry = self._entries.get(form_id)
        if entry is None or entry.answer is not None:
            return False
        if answers is None:
            entry.finish(_CANCELLED)
        else:
            entry.finish(FormAnswer(validate_answers(entry.form.questions, answers)))
        return True

    def decline(self, form_id: str) -> bool:
        """The user declined the form (as :meth:`respond`, without answers)."""
        entry = self._entries.get(form_id)
        if entry is None or entry.answer is not None:
            return False
        entry.finish(_DECLINED)
        return True

    def cancel(self, form_id: str) -> None:
        """Cancel one form (idempotent); its waiter gets a cancelled answer."""
        entry = self._entries.pop(form_id, None)
        if entry is not None:
            entry.finish(_CANCELLED)

    def cancel_all(self) -> None:
        """Cancel every form; pops them, so none leaks if no wait ever starts."""
        entries = list(self._entries.values())
        self._entries.clear()
        for entry in entries:
            entry.finish(_CANCELLED)


def validate_answers(questions: Sequence[FormQuestion], answers: JSONMapping) -> Answers:
    """Check answers against the questions; returns them in question order,
    leaving out optional questions left empty."""
    known = {q.id for q in questions}
    for key in answers:
        if key not in known:
            raise FormAnswerError(f"answer for unknown question {key!r}")
    result: Answers = {}
    for q in questions:
        value = answers.get(q.id)
        if is_empty(value):
            if q.required:
                raise FormAnswerError(_MISSING, q)
            continue
        try:
            result[q.id] = check_value(q, value)
        except AnswerProblem as exc:
            raise FormAnswerError(str(exc), q, key=exc.key, params=exc.params) from None
    return result


__all__ = [
    "QUESTION_TYPES",
    "Answers",
    "FormAnswer",
    "FormAnswerError",
    "FormManager",
    "FormQuestion",
    "PendingForm",
    "QuestionType",
    "validate_answers",
]
