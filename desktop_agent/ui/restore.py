"""Restoring a saved conversation's view (issue 14): its display log
(``core/display_log.py``) is fed through the same :class:`TurnView` that
live bus messages go through, one view per turn, so a restored card, form,
notice or bubble is the widget the live one was: cards collapsed with their
state, arguments and result, forms with the answers given.

Restored views get no callbacks: nothing waits for the user (a turn cut
short by a crash ends as an interrupted one would, its pending cards
invalidated), and no timer keeps running (every card ends terminal).

A long conversation shows its last turns only (``RESTORE_EVENTS`` events,
at least one turn); :func:`restore` can start at an earlier turn (a search
result there).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtWidgets import QPushButton, QWidget

from desktop_agent.core.display_log import (
    APPROVAL_ANSWER,
    AUTO_APPROVED,
    FORM_ANSWER,
    INTERRUPT_CLICKED,
    NOTICE,
    USER,
    message_from_json,
    turns,
)
from desktop_agent.core.messages import (
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
from desktop_agent.ui.chat_view import ChatView
from desktop_agent.ui.i18n import tr
from desktop_agent.ui.turn_view import TurnView

log = logging.getLogger(__name__)

RESTORE_EVENTS = 60
"""About how many display events a restore draws: the last 15–30
exchanges, ~25 widgets. Drawing costs a few ms a widget (bubbles lay out
their Markdown), so this keeps opening a 2,000-message conversation about
as quick as a 20-message one (benchmarks/bench_conversations.py); the rest
is kept, and search reaches it."""


@dataclass
class Restored:
    """What a restore drew: the first widget of each drawn turn, by turn index."""

    first_turn: int = 0
    turn_widgets: dict[int, QWidget] = field(default_factory=dict)
    views: list[TurnView] = field(default_factory=list)


def first_shown_turn(events: Sequence[Mapping[str, Any]], budget: int | None = None) -> int:
    """The earliest turn to draw so that about ``budget`` events
    (:data:`RESTORE_EVENTS`) are drawn."""
    budget = RESTORE_EVENTS if budget is None else budget
    starts = turns(events)
    first = len(starts) - 1
    while first > 0 and len(events) - starts[first - 1] <= budget:
        first -= 1
    return max(first, 0)


def messages_in(events: Sequence[Mapping[str, Any]]) -> int:
    """How many messages these events show: the user's, and the replies
    (a run of text, paragraphs across rounds included, is one bubble)."""
    count, previous = 0, None
    for event in events:
        kind = event.get("type")
        if kind == USER or (kind == "text" and previous not in ("text", "round_end")):
            count += 1
        previous = kind
    return count


def restore(
    chat: ChatView,
    events: Sequence[Mapping[str, Any]],
    *,
    from_turn: int | None = None,
    show_earlier: Callable[[int], None] | None = None,
) -> Restored:
    """Draw ``events`` into ``chat`` (from turn ``from_turn``, or the last
    ones that fit the budget). ``show_earlier`` is given the turn to draw
    from when the user asks for the hidden part (a button under the line
    that says how much is hidden)."""
    starts = turns(events)
    first = first_shown_turn(events) if from_turn is None else max(0, min(from_turn, len(starts) - 1))
    out = Restored(first)
    begin = starts[first] if starts else 0
    if begin:
        chat.add_system(tr("earlier_hidden", count=messages_in(events[:begin])))
        if show_earlier is not None:
            button = QPushButton(tr("conv_show_earlier"))
            button.setObjectName("showEarlier")
            earlier = max(0, first - max(len(starts) - first, 1))  # as many turns again as are shown
            button.clicked.connect(lambda: show_earlier(earlier))
            chat.add_widget(button, "center")
    view: TurnView | None = None
    turn = first - 1
    for event in events[begin:]:
        kind = event.get("type")
        if kind == USER:
            if view is not None:
                view.finish()
            turn += 1
            out.turn_widgets[turn] = chat.add_user(str(event.get("text", "")))
            view = TurnView(chat)
            out.views.append(view)
            continue
        if view is None:  # events before any user message (a notice at start)
            view = TurnView(chat)
            out.views.append(view)
        _replay(view, chat, event)
    if view is not None:
        view.finish()
    return out


def _replay(view: TurnView, chat: ChatView, event: Mapping[str, Any]) -> None:
    kind = event.get("type")
    if kind == AUTO_APPROVED:
        inner = event.get("message")
        message = message_from_json(inner) if isinstance(inner, Mapping) else None
        if isinstance(message, ToolCallMessage):
            view.auto_approved(message)
        return
    if kind == APPROVAL_ANSWER:
        view.mark_answered(str(event.get("tool_call_id")), bool(event.get("approved")))
        return
    if kind == FORM_ANSWER:
        answers = event.get("answers")
        view.form_answered(str(event.get("form_id")), dict(answers) if isinstance(answers, Mapping) else None)
        return
    if kind == INTERRUPT_CLICKED:
        view.tracker.interrupt_clicked()
        return
    if kind == NOTICE:
        level, text = str(event.get("level")), str(event.get("text", ""))
        if level == "system":
            chat.add_system(text)
        else:
            chat.add_notice("error" if level == "error" else "warning", text)
        return
    message = message_from_json(event)
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
            log.debug("a stored display event was not drawn: %s", kind)
