"""The words the turn logic says about the user's side of a turn: the MCP
servers a turn goes without, and why a form's answers do not fit. Plain
functions over core values, so the wording is tested without a window."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from desktop_agent.texts import Texts

if TYPE_CHECKING:
    from desktop_agent.core.forms import FormAnswerError
    from desktop_agent.mcp_engine import Readiness

FormEnd = Literal["submitted", "cancelled", "closed", "declined"]


def readiness_line(texts: Texts, readiness: Readiness) -> str | None:
    """The one line a turn shows when it starts without some MCP servers'
    tools (still starting, or failed and being retried); None when every
    server is there."""
    names = [*readiness.starting, *(texts.tr("mcp_retrying", name=name) for name in readiness.retrying)]
    if not names:
        return None
    return texts.tr("mcp_not_ready", names=texts.tr("list_separator").join(names))


def form_error_text(texts: Texts, error: FormAnswerError) -> str:
    """A form's validation error in the user's language, naming the question
    as the form shows it."""
    if error.question is None:
        return str(error)
    if error.missing:
        return texts.tr("form_required", question=error.question.question)
    problem = texts.tr(f"form_problem_{error.key}", **error.params) if error.key is not None else error.problem
    return texts.tr("form_invalid", question=error.question.question, problem=problem)


@dataclass(frozen=True, slots=True)
class FormReply:
    """How answering a form went: it ended (``ended``), or the answers do
    not fit and the form stays open (``error``, naming the question)."""

    ended: FormEnd | None = None
    error: str | None = None


__all__ = ["FormEnd", "FormReply", "form_error_text", "readiness_line"]
