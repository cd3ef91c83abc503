"""Restoring a saved conversation's view: its display log's items
(``Conversation.events``; a stored one read back by ``storage/conversation_events.py``)
are fed through the same :class:`TurnView` that
live bus messages go through, one view per turn, so a restored card, form,
notice or bubble is the widget the live one was: cards collapsed with their
state, arguments and result, forms with the answers given.

Restored views get no callbacks: nothing waits for the user (a turn cut
short by a crash ends as an interrupted one would, its pending cards
invalidated), and no timer keeps running (every card ends terminal).

A long conversation shows its last turns only (``RESTORE_EVENTS`` events,
at least one turn); :func:`restore` can start at an earlier turn (a search
result there), and stop after about as many events again: a "Show N later
messages" button under that window draws the rest, a window per event-loop
pass, so neither the jump nor the button freezes the window however long
the conversation.

A card shows the risk marks and the auto-approval wording it had live from
the tool facts and ``by`` the items kept (``ToolFacts``, ``AutoApproved.by``),
not from the servers set up now, and its "No answer in 300 s" from the
turn's ``approval_timeout_s``; events without them restore unmarked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, assert_never, runtime_checkable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

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
    ScanKind,
    Shown,
    ToolFacts,
    UnreadEvent,
    UserText,
    WindowNotice,
    scan_kind,
)
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.retranslate import KeyedButton

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
    end_turn: int | None = None
    """The first turn not drawn (a search hit's window); None: drawn to the end."""
    later: KeyedButton | None = None
    """"Show N later messages", while the end is not drawn."""

    def tail_hidden(self, chat: ChatView) -> bool:
        """The conversation's end is not on screen (the window is still ``chat``'s)."""
        return self.later is not None and self.later in chat.items()


@runtime_checkable
class KnowsKinds(Protocol):
    """A display log that tells each item's :data:`ScanKind` without making
    or unpacking it (``Conversation.events``, a stored log read lazily:
    ``storage/conversation_events.StoredItems``): a restore then makes only
    the items it draws."""

    def kinds(self) -> Sequence[ScanKind]: ...


def _kinds(events: Sequence[DisplayItem]) -> Sequence[ScanKind]:
    return events.kinds() if isinstance(events, KnowsKinds) else [scan_kind(e) for e in events]


def turn_starts(events: Sequence[DisplayItem]) -> list[int]:
    """The index of each turn's user text."""
    return [i for i, kind in enumerate(_kinds(events)) if kind == "user"]


def first_shown_turn(events: Sequence[DisplayItem], budget: int | None = None) -> int:
    """The earliest turn to draw so that about ``budget`` events
    (:data:`RESTORE_EVENTS`) are drawn."""
    budget = RESTORE_EVENTS if budget is None else budget
    starts = turn_starts(events)
    first = len(starts) - 1
    while first > 0 and len(events) - starts[first - 1] <= budget:
        first -= 1
    return max(first, 0)


def window_end(
    events: Sequence[DisplayItem], from_turn: int, budget: int | None = None,
    starts: Sequence[int] | None = None,
) -> int:
    """The first turn after a window drawn from ``from_turn``: about
    ``budget`` events (:data:`RESTORE_EVENTS`), at least that turn's own;
    the number of turns when the rest fits. ``starts`` is ``turn_starts(events)``
    when the caller has it (drawing later windows one by one)."""
    budget = RESTORE_EVENTS if budget is None else budget
    starts = turn_starts(events) if starts is None else starts
    if not starts:
        return 0
    from_turn = max(0, min(from_turn, len(starts) - 1))
    end = from_turn + 1
    while end < len(starts) and _start(events, starts, end + 1) - starts[from_turn] <= budget:
        end += 1
    return end


def hit_window(events: Sequence[DisplayItem], turn: int | None) -> tuple[int | None, int | None]:
    """The turns to draw for a search hit in ``turn`` (``from_turn`` and
    ``to_turn`` for :func:`restore`): a window from it when it is further
    back than an open shows, else (None, None), the plain open. One place
    for the window (``ConversationsGlue.open``) and its benchmark."""
    if turn is None or turn >= first_shown_turn(events):
        return None, None
    return turn, window_end(events, turn)  # a window, not all after it


def _start(events: Sequence[DisplayItem], starts: Sequence[int], turn: int) -> int:
    """The index of turn ``turn``'s first event; past the last turn, the end."""
    return starts[turn] if turn < len(starts) else len(events)


def messages_in(events: Sequence[DisplayItem]) -> int:
    """How many messages these events show: the user's, and the replies
    (a run of text, paragraphs across rounds included, is one bubble)."""
    return _messages(_kinds(events))


def _messages_between(events: Sequence[DisplayItem], begin: int, stop: int | None = None) -> int:
    """:func:`messages_in` of ``events[begin:stop]``, without making its items."""
    return _messages(_kinds(events)[begin:stop])


def _messages(kinds: Sequence[ScanKind]) -> int:
    count, previous = 0, None
    for kind in kinds:
        if kind == "user" or (kind == "text" and previous not in ("text", "round_end")):
            count += 1
        previous = kind
    return count


def restore(
    chat: ChatView,
    events: Sequence[DisplayItem],
    *,
    from_turn: int | None = None,
    to_turn: int | None = None,
    show_earlier: Callable[[int], None] | None = None,
    at_end: Callable[[], None] | None = None,
) -> Restored:
    """Draw ``events`` into ``chat`` (from turn ``from_turn``, or the last
    ones that fit the budget; up to turn ``to_turn``, exclusive, or the
    end). ``show_earlier`` is given the turn to draw from when the user asks
    for the hidden part (a button under the line that says how much is
    hidden). A hidden end gets a "Show N later messages" button;
    ``at_end`` is called once the last event is drawn (now, or then)."""
    starts = turn_starts(events)
    first = first_shown_turn(events) if from_turn is None else max(0, min(from_turn, len(starts) - 1))
    end_turn = len(starts) if to_turn is None else max(first + 1, min(to_turn, len(starts)))
    out = Restored(first)
    begin = starts[first] if starts else 0
    if begin:
        hidden = _messages_between(events, 0, begin)
        chat.add_system(chat.texts.tr("earlier_hidden", count=hidden), key="earlier_hidden", count=hidden)
        if show_earlier is not None:
            button = KeyedButton(chat.texts, "conv_show_earlier")
            button.setObjectName("showEarlier")
            earlier = max(0, first - max(end_turn - first, 1))  # as many turns again as are shown
            button.clicked.connect(lambda: show_earlier(earlier))
            chat.add_widget(button, "center")
    _draw(chat, events, begin, _start(events, starts, end_turn), first, out)
    if end_turn < len(starts):
        _Later(chat, events, end_turn, out, at_end or (lambda: None))
    elif at_end is not None:
        at_end()
    return out


class _Later:
    """The "Show N later messages" button under a window, and drawing what
    it hides when clicked: a window per event-loop pass, the button (now
    saying how much is still coming) kept below, the view left where the
    user reads. It stops when the chat was cleared meanwhile (another
    conversation, or its end redrawn before a turn)."""

    def __init__(
        self, chat: ChatView, events: Sequence[DisplayItem], turn: int, out: Restored,
        at_end: Callable[[], None],
    ) -> None:
        self._chat, self._events, self._turn, self._out, self._at_end = chat, events, turn, out, at_end
        # Once: the events do not change, and each window counted them all again.
        self._starts = turn_starts(events)
        self._left = _messages_between(events, _start(events, self._starts, turn))
        """Messages not drawn yet: what the button says."""
        out.end_turn = turn
        button = out.later = KeyedButton(chat.texts, "conv_show_later", count=self._hidden())
        button.setObjectName("showLater")
        button.clicked.connect(lambda: self._step(first=True))
        chat.add_widget(button, "center")

    def _hidden(self) -> int:
        return self._left

    def _step(self, *, first: bool = False) -> None:
        chat, events, button, starts = self._chat, self._events, self._out.later, self._starts
        if button is None or button not in chat.items():
            return
        end = window_end(events, self._turn, starts=starts)
        begin, stop = starts[self._turn], _start(events, starts, end)
        before = len(chat.items())
        _draw(chat, events, begin, stop, self._turn, self._out)
        self._left -= _messages_between(events, begin, stop)  # a window starts at a user message: counts add up
        self._turn = self._out.end_turn = end
        if first:  # the reader stays at the first message drawn, not dragged down as the rest loads
            chat.scroll_to_widget(chat.items()[before])
        chat.move_to_end([button])
        if end < len(starts):
            button.setEnabled(False)
            button.set_key("conv_drawing_later", count=self._hidden())
            QTimer.singleShot(0, button, lambda: self._step())
            return
        self._out.later, self._out.end_turn = None, None
        chat.remove_from(button)
        self._at_end()


def _draw(
    chat: ChatView, events: Sequence[DisplayItem], begin: int, stop: int, first: int, out: Restored
) -> None:
    """Replay ``events[begin:stop]``, whose first turn is ``first``."""
    view: TurnView | None = None
    facts: dict[str, ToolFacts] = {}
    turn = first - 1
    for item in events[begin:stop]:
        if isinstance(item, UserText):
            if view is not None:
                view.finish()
            turn += 1
            out.turn_widgets[turn] = bubble = chat.add_user(item.text)
            bubble.set_attachments(item.attachments)  # its MCP prompt and resources, as chips
            view, facts = _new_view(chat, item.approval_timeout_s)
            out.views.append(view)
            continue
        if view is None:  # events before any user message (a notice at start)
            view, facts = _new_view(chat)
            out.views.append(view)
        _replay(view, chat, item, facts)
    if view is not None:
        view.finish()


def _new_view(chat: ChatView, approval_timeout_s: float | None = None) -> tuple[TurnView, dict[str, ToolFacts]]:
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


def _replay(view: TurnView, chat: ChatView, item: DisplayItem, facts: dict[str, ToolFacts]) -> None:
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
