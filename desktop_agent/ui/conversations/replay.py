"""Replaying one display item into a turn's view (:func:`replay`), as
the live bus message it records was shown: what a restore
(:mod:`desktop_agent.ui.conversations.restore`) draws a turn with."""

from __future__ import annotations

import logging
from typing import assert_never

from desktop_agent.core.messages import (
    BusMessage,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    AutoApproved,
    DisplayItem,
    FormAnswered,
    InterruptClicked,
    Shown,
    ToolFacts,
    UnreadEvent,
    UserText,
    WindowNotice,
)
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.turn_view import TurnView

log = logging.getLogger(__name__)


def new_view(chat: ChatView, approval_timeout_s: float | None = None) -> tuple[TurnView, dict[str, ToolFacts]]:
    """A turn's view that knows its tools as the events recorded them."""
    facts: dict[str, ToolFacts] = {}
    unsaid = ToolFacts()
    view = TurnView(
        chat,
        server_of=lambda name: facts.get(name, unsaid).server,
        annotations_of=lambda name: facts.get(name, unsaid).annotations,
        approval_timeout_s=approval_timeout_s,
    )
    return view, facts


def _learn(facts: dict[str, ToolFacts], message: BusMessage, kept: ToolFacts | None) -> None:
    """Note what a tool event kept of its tool, before it draws the card."""
    if isinstance(message, ToolCallMessage | ToolRejectedMessage) and message.tool_name and kept is not None:
        facts[message.tool_name] = kept


def replay(view: TurnView, chat: ChatView, item: DisplayItem, facts: dict[str, ToolFacts]) -> None:
    match item:
        case AutoApproved(message, _seq, by, kept, _session):
            _learn(facts, message, kept)
            view.auto_approved(message, by)
        case ApprovalAnswer(tool_call_id, approved):
            view.mark_answered(tool_call_id, approved)
        case FormAnswered(form_id, answers, declined):
            view.form_answered(form_id, answers, declined=declined)
        case InterruptClicked():
            view.tracker.interrupt_clicked()
        case WindowNotice(level, text):
            if level == "system":
                chat.add_system(text)
            else:
                chat.add_notice("error" if level == "error" else "warning", text)
        case Shown(message, _seq, kept, _session):
            _learn(facts, message, kept)
            _show(view, message)
        case UserText():
            pass  # a user text opens a turn (see _draw)
        case UnreadEvent(event):
            log.debug("a stored display event was not drawn: %s", event.get("type"))
        case _:
            assert_never(item)


def _show(view: TurnView, message: BusMessage) -> None:
    match message:
        case TextMessage():
            view.show_text(message)
        case RoundEndMessage():
            view.round_ended(message)
        case ToolCallMessage(state="approval_required"):
            view.approval_needed(message)
        case (
            ToolCallMessage() | ToolProgressMessage() | ToolOutputMessage() | FormRequestMessage()
            | CardMessage() | ToolRejectedMessage()
        ):
            view.tool_event(message)
        case WarningMessage() | ErrorMessage():
            view.notice(message)
        case InterruptedMessage():
            view.interrupted(message)
        case TurnEndMessage():
            view.turn_ended(message)
        case _:
            log.debug("a stored display event was not drawn: %s", message.type)
