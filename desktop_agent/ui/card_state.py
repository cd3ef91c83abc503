"""What one tool card shows, as a frozen dataclass, and the pure reducer that
moves it through the DESIGN §7 states as bus messages arrive.

The card widget only renders a :class:`ToolCardState`; every decision about
which state follows which message is here, tested without Qt. Phases:

``preparing`` (spinner) → ``approval`` (buttons) → ``executing`` (arguments,
spinner, then a determinate bar once progress has a total) → ``done``
(collapsed, expandable), or ``rejected`` / ``invalidated``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, assert_never

from desktop_agent.core.messages import (
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
)
from desktop_agent.core.ports import ImageContent
from desktop_agent.ui.i18n import tr

CardPhase = Literal["preparing", "approval", "executing", "done", "rejected", "invalidated"]
PENDING_PHASES: frozenset[CardPhase] = frozenset({"preparing", "approval", "executing"})


@dataclass(frozen=True, slots=True)
class Progress:
    """The latest ``tool_progress`` of a call."""

    progress: float
    total: float | None = None
    """None while the tool does not know how much work there is."""
    message: str | None = None
    eta_s: float | None = None

    @property
    def percent(self) -> int | None:
        """0–100 when the total is known, else None (indeterminate)."""
        if not self.total or self.total <= 0:
            return None
        return max(0, min(100, round(100 * self.progress / self.total)))


@dataclass(frozen=True, slots=True)
class ToolCardState:
    """Everything a tool card renders."""

    tool_call_id: str
    tool_name: str
    phase: CardPhase = "preparing"
    arguments: Mapping[str, Any] | None = None
    """None until the arguments were parsed (``start``)."""
    task_id: str | None = None
    """The approval handle while ``phase == "approval"``."""
    auto_approved: bool = False
    """Approved by the always-allow list, without a click."""
    result: str | None = None
    is_error: bool = False
    images: tuple[ImageContent, ...] = ()
    progress: Progress | None = None
    reason: str | None = None
    """Why it was rejected or invalidated."""
    partial_result: Any = None
    """Output of an interrupted tool (``tool_rejected.partial_result``)."""
    form_attached: bool = False
    """A form shows this call's questions, so the card need not repeat them."""

    @property
    def pending(self) -> bool:
        return self.phase in PENDING_PHASES


CardUpdate = ToolCallMessage | ToolProgressMessage | ToolOutputMessage | ToolRejectedMessage
"""The messages of one call that move its card."""


def new_card(message: CardUpdate) -> ToolCardState:
    name = message.tool_name if not isinstance(message, ToolProgressMessage | ToolOutputMessage) else "?"
    return ToolCardState(message.tool_call_id, name or "?")


def auto_approved(state: ToolCardState) -> ToolCardState:
    """The always-allow list approved the call: it runs without a click."""
    if not state.pending:
        return state
    return replace(state, phase="executing", auto_approved=True, task_id=None)


def apply_message(state: ToolCardState, message: CardUpdate) -> ToolCardState:
    """The card after one message of its call. A terminal card ignores
    later messages."""
    if not state.pending:
        return state
    match message:
        case ToolCallMessage():
            if message.arguments is not None:
                state = replace(state, arguments=message.arguments)
            match message.state:
                case "start":
                    return state
                case "approval_required":
                    return replace(state, phase="approval", task_id=message.task_id)
                case "executing":
                    return replace(state, phase="executing", task_id=None)
                case "result":
                    return replace(
                        state,
                        phase="done",
                        task_id=None,
                        result=message.result or "",
                        is_error=bool(message.is_error),
                        images=message.images,
                    )
                case _:
                    assert_never(message.state)
        case ToolProgressMessage():
            return replace(
                state,
                progress=Progress(
                    message.progress, message.total, message.message or None, message.eta_s
                ),
            )
        case ToolOutputMessage():
            return state
        case ToolRejectedMessage():
            if message.arguments is not None:
                state = replace(state, arguments=message.arguments)
            return replace(
                state,
                phase="rejected",
                task_id=None,
                reason=message.reason,
                partial_result=message.partial_result,
            )
        case _:
            assert_never(message)


def answered(state: ToolCardState, approved: bool) -> ToolCardState:
    """The user clicked Approve or Reject on this card."""
    if state.phase != "approval":
        return state
    return replace(state, phase="executing" if approved else "rejected", task_id=None)


def invalidate(state: ToolCardState, reason: str | None = None) -> ToolCardState:
    """Interrupt, or an approval that was lost: pending cards become invalid."""
    if not state.pending:
        return state
    return replace(state, phase="invalidated", task_id=None, reason=reason)


# ----------------------------------------------------------------- wording


def format_eta(seconds: float) -> str:
    """``12 s``, ``3 min``, ``1 h 5 min`` (rounded up, never "0 s")."""
    whole = max(1, int(seconds + 0.999))
    if whole < 60:
        return tr("seconds", n=whole)
    minutes = (whole + 59) // 60
    if minutes < 60:
        return tr("minutes", n=minutes)
    if minutes % 60 == 0:
        return tr("hours_only", n=minutes // 60)
    return tr("hours", n=minutes // 60, m=minutes % 60)


def progress_caption(progress: Progress) -> str:
    """``42% · about 12 s left · copying`` (only what is known)."""
    parts: list[str] = []
    percent = progress.percent
    if percent is not None:
        parts.append(f"{percent}%")
    elif progress.progress:
        parts.append(f"{progress.progress:g}")
    if percent is not None and progress.eta_s is not None and progress.eta_s > 0:
        parts.append(tr("progress_eta", eta=format_eta(progress.eta_s)))
    if progress.message:
        parts.append(progress.message)
    return " · ".join(parts)


def title_for(state: ToolCardState) -> str:
    key = {
        "preparing": "card_preparing",
        "approval": "card_approval",
        "executing": "card_executing",
        "done": "card_failed" if state.is_error else "card_done",
        "rejected": "card_rejected",
        "invalidated": "card_invalidated",
    }[state.phase]
    return tr(key, name=state.tool_name)


def arguments_text(arguments: Mapping[str, Any] | None) -> str:
    """Arguments as ``key: value`` lines (strings unquoted, the rest JSON)."""
    if not arguments:
        return ""
    lines = []
    for key, value in arguments.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}")
    return "\n".join(lines)


def arguments_summary(arguments: Mapping[str, Any] | None, limit: int = 60) -> str:
    """One short line telling calls of the same tool apart: the first
    argument's value (``ls -la``), cut to ``limit`` characters."""
    if not arguments:
        return ""
    value = next(iter(arguments.values()))
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def partial_text(partial: Any) -> str:
    """A partial result as text: a string as is, a mapping as its non-empty
    fields (``stdout``, ``stderr``… of an interrupted command)."""
    if partial is None:
        return ""
    if isinstance(partial, str):
        return partial
    if isinstance(partial, Mapping):
        lines = []
        for key, value in partial.items():
            if value in ("", None, [], {}):
                continue
            if isinstance(value, list):
                value = "\n".join(map(str, value))
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            lines.append(f"[{key}]\n{shown.rstrip()}")
        return "\n".join(lines)
    return json.dumps(partial, ensure_ascii=False)
