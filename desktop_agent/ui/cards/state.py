"""What one tool card shows, as a frozen dataclass, and the pure reducer that
moves it through the contracts §7 states as bus messages arrive.

The card widget only renders a :class:`ToolCardState`; every decision about
which state follows which message is here, tested without Qt. Phases:

``preparing`` (spinner) → ``approval`` (buttons) → ``executing`` (arguments,
spinner, live output, then a determinate bar once progress has a total) →
``done`` (collapsed, expandable), or ``rejected`` / ``invalidated``.

How a call that did not finish ended is its :data:`CardOutcome`, said in
plain words on the card ("Rejected by you", "Stopped by you"…): the
``tool_rejected`` reason is written for the model, not for the user.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, assert_never

from desktop_agent.core.chat_handler import (
    REASON_INTERRUPTED,
    REASON_NO_ANSWER,
    REASON_NOT_RUN,
    REASON_TIMEOUT,
)
from desktop_agent.core.command_risk import RUN_COMMAND
from desktop_agent.core.messages import (
    ImageContent,
    ResourceRef,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
)
from desktop_agent.core.risk import AutoDecider, ToolAnnotations, call_annotations
from desktop_agent.core.sub_agent import SUB_AGENT
from desktop_agent.ui.cards.phase import CardPhase

PENDING_PHASES = frozenset({CardPhase.PREPARING, CardPhase.APPROVAL, CardPhase.EXECUTING})
CardOutcome = Literal[
    "rejected", "timed_out", "no_answer", "step_timed_out", "stopped", "not_run", "ended", "not_answered"
]
"""Why a call did not give its result as planned: the user rejected it, the
approval timed out, its form timed out, one of its (sub-agent's) steps got
no answer in time, the user stopped it while it ran,
the turn was interrupted before it ran, the turn ended (an error) while it
ran, or the user cancelled its form."""
OUTPUT_MAX_CHARS = 1_000_000
"""Live output a card keeps (its Details show all of it); a longer output
keeps its end and counts what it dropped."""


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
    phase: CardPhase = CardPhase.PREPARING
    arguments: Mapping[str, Any] | None = None
    """None until the arguments were parsed (``start``)."""
    task_id: str | None = None
    """The approval handle while ``phase == CardPhase.APPROVAL``."""
    auto_approved: bool = False
    """Approved by the always-allow list, without a click."""
    result: str | None = None
    is_error: bool = False
    images: tuple[ImageContent, ...] = ()
    structured: Any = None
    """Structured content of the result (shown as fields or a table)."""
    resources: tuple[ResourceRef, ...] = ()
    """Resource links and embedded resources of the result."""
    progress: Progress | None = None
    reason: str | None = None
    """The ``tool_rejected`` reason (the model's wording)."""
    outcome: CardOutcome | None = None
    """How a call that did not finish ended, for the user's wording."""
    server: str | None = None
    """The MCP server that offers the tool; None for a built-in one."""
    approval_timeout_s: float | None = None
    """For "No answer in 300 s"."""
    output: str = ""
    """Live output (``tool_output``), both streams in the order produced."""
    output_cut: int = 0
    """Characters of output dropped from the head (over OUTPUT_MAX_CHARS)."""
    partial_result: Any = None
    """Output of an interrupted tool (``tool_rejected.partial_result``)."""
    form_attached: bool = False
    """A form shows this call's questions, so the card need not repeat them."""
    parent_tool_call_id: str | None = None
    """Set on a sub-agent's call: its card sits inside the sub_agent card."""
    by_voice: bool = False
    """The approval was answered by a spoken yes or no."""
    annotations: ToolAnnotations | None = None
    """What the tool says of its risk: a destructive tool's card
    is red and confirms "Always allow"; open-world ones say they reach out."""
    auto_by: AutoDecider | None = None
    """Who approved it without asking (with ``auto_approved``)."""

    @property
    def call_annotations(self) -> ToolAnnotations | None:
        """What this call may do: a ``run_command`` call's read from its
        command (``core.risk.call_annotations``), any other tool's its own.
        A command not known yet (its arguments still streaming) says
        nothing, rather than flash the worst any command could do."""
        if self.tool_name == RUN_COMMAND and self.server is None and not (self.arguments or {}).get("command"):
            return None
        return call_annotations(self.tool_name, self.server, self.annotations, self.arguments)

    @property
    def destructive(self) -> bool:
        annotations = self.call_annotations
        return annotations is not None and annotations.is_destructive

    @property
    def cautious(self) -> bool:
        """A command that may change things (neither read-only nor
        destructive): the card is amber. Only ``run_command`` calls are
        read this finely; other tools are red or plain."""
        annotations = self.call_annotations
        return (
            self.tool_name == RUN_COMMAND and self.server is None
            and annotations is not None and annotations.may_change
        )

    @property
    def open_world(self) -> bool:
        annotations = self.call_annotations
        return annotations is not None and annotations.reaches_outside

    @property
    def pending(self) -> bool:
        return self.phase in PENDING_PHASES


CardUpdate = ToolCallMessage | ToolProgressMessage | ToolOutputMessage | ToolRejectedMessage
"""The messages of one call that move its card."""


def card_key(message: CardUpdate) -> str:
    """Which card a message moves: a sub-agent's call is keyed under its
    parent, so its id (the sub-agent model's) cannot meet a main call's."""
    parent = message.parent_tool_call_id
    return f"{parent}/{message.tool_call_id}" if parent else message.tool_call_id


def new_card(
    message: CardUpdate,
    *,
    server: str | None = None,
    approval_timeout_s: float | None = None,
    annotations: ToolAnnotations | None = None,
) -> ToolCardState:
    """``tool_call_id`` of the state is the card's key (:func:`card_key`)."""
    name = message.tool_name if not isinstance(message, ToolProgressMessage | ToolOutputMessage) else "?"
    return ToolCardState(
        card_key(message),
        name or "?",
        server=server,
        approval_timeout_s=approval_timeout_s,
        parent_tool_call_id=message.parent_tool_call_id,
        annotations=annotations,
    )


def is_sub_agent(state: ToolCardState) -> bool:
    """The card of a main ``sub_agent`` call (its progress is the sub-agent's text)."""
    return state.tool_name == SUB_AGENT and state.parent_tool_call_id is None


_REJECTION_OUTCOMES: dict[str, CardOutcome] = {
    REASON_TIMEOUT: "timed_out",
    REASON_NO_ANSWER: "no_answer",
    REASON_INTERRUPTED: "stopped",
    REASON_NOT_RUN: "not_run",
}
"""``tool_rejected`` reasons (core's constants) to outcomes; any other
reason is a rejection."""


def _stopped_call_reason(partial: Any) -> object:
    """Why a sub-agent's nested call stopped (its ``partial_result``)."""
    if isinstance(partial, Mapping):
        stopped = partial.get("stopped_call")
        if isinstance(stopped, Mapping):
            return stopped.get("reason")
    return None


def _with_output(state: ToolCardState, text: str) -> ToolCardState:
    output = state.output + text
    excess = len(output) - OUTPUT_MAX_CHARS
    if excess <= 0:
        return replace(state, output=output)
    return replace(state, output=output[excess:], output_cut=state.output_cut + excess)


def auto_approved(state: ToolCardState, by: AutoDecider = "always_allow") -> ToolCardState:
    """The always-allow list (or ``by``) approved the call: it runs without a click."""
    if not state.pending:
        return state
    return replace(state, phase=CardPhase.EXECUTING, auto_approved=True, auto_by=by, task_id=None)


def apply_message(state: ToolCardState, message: CardUpdate) -> ToolCardState:
    """The card after one message of its call. A terminal card ignores
    later messages."""
    if not state.pending:
        return state
    match message:
        case ToolCallMessage():
            if message.arguments is not None:
                state = replace(state, arguments=message.arguments)
            if message.tool_name and message.tool_name != state.tool_name:
                # Streamed names grow; the last one (complete by approval) counts.
                state = replace(state, tool_name=message.tool_name)
            match message.state:
                case "start":
                    return state
                case "approval_required":
                    return replace(state, phase=CardPhase.APPROVAL, task_id=message.task_id)
                case "executing":
                    return replace(state, phase=CardPhase.EXECUTING, task_id=None)
                case "result":
                    return replace(
                        state,
                        phase=CardPhase.DONE,
                        task_id=None,
                        result=message.result or "",
                        is_error=bool(message.is_error),
                        images=message.images,
                        structured=message.structured_content,
                        resources=message.resources,
                    )
                case _:
                    assert_never(message.state)
        case ToolProgressMessage() if is_sub_agent(state):
            # The sub-agent's latest sentence is the whole caption (no count).
            return replace(state, progress=Progress(0, None, message.message or None))
        case ToolProgressMessage():
            return replace(
                state,
                progress=Progress(
                    message.progress, message.total, message.message or None, message.eta_s
                ),
            )
        case ToolOutputMessage():
            return _with_output(state, message.text)
        case ToolRejectedMessage():
            if message.arguments is not None:
                state = replace(state, arguments=message.arguments)
            outcome = _REJECTION_OUTCOMES.get(message.reason, "rejected")
            if outcome == "rejected" and _stopped_call_reason(message.partial_result) == "approval_timeout":
                outcome = "step_timed_out"  # a sub-agent's step waited in vain; nobody rejected
            return replace(
                state,
                phase=(
                    CardPhase.REJECTED if outcome in ("rejected", "timed_out", "no_answer", "step_timed_out")
                    else CardPhase.INVALIDATED
                ),
                task_id=None,
                reason=message.reason,
                outcome=outcome,
                partial_result=message.partial_result,
            )
        case _:
            assert_never(message)


def answered(state: ToolCardState, approved: bool) -> ToolCardState:
    """The user clicked Approve or Reject on this card."""
    if state.phase != CardPhase.APPROVAL:
        return state
    if approved:
        return replace(state, phase=CardPhase.EXECUTING, task_id=None)
    return replace(state, phase=CardPhase.REJECTED, task_id=None, outcome="rejected")


def invalidate(state: ToolCardState, *, user_stopped: bool = False) -> ToolCardState:
    """The turn ended (interrupt, error, a lost approval) with this card
    still pending. A running call was stopped — by the user when
    ``user_stopped`` — and any other was not run."""
    if not state.pending:
        return state
    if state.phase == CardPhase.EXECUTING:
        outcome: CardOutcome = "stopped" if user_stopped else "ended"
    else:
        outcome = "not_run"
    return replace(state, phase=CardPhase.INVALIDATED, task_id=None, outcome=outcome)


def not_answered(state: ToolCardState) -> ToolCardState:
    """The user cancelled the form of this (``ask_user_question``) call."""
    return replace(state, outcome="not_answered")
