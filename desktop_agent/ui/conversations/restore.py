"""Restoring a saved conversation's view: its display log's items
(``Conversation.events``; a stored one read back by ``storage/conversation_events.py``)
are fed through the same :class:`TurnView` that
live bus messages go through, one view per turn (``replay.py``), so a
restored card, form, notice or bubble is the widget the live one was: cards
collapsed with their state, arguments and result, forms with the answers given.

Restored views get no callbacks: nothing waits for the user (a turn cut
short by a crash ends as an interrupted one would, its pending cards
invalidated), and no timer keeps running (every card ends terminal).

Only what is in view is drawn: opening a conversation draws its last turn,
then earlier turns above it until what is drawn fills the view and a
margin (measured at the view's width, :meth:`ChatView.measure`), and half a
view more right after the first paint (:data:`FIRST_FILL`), so opening
2,000 messages draws as many widgets as opening 20
(``benchmarks/bench_conversations.py``). Earlier turns are drawn above as
the reader scrolls up (:meth:`ChatView.set_earlier`), a view's height at a
time, the reader's place kept. :func:`restore` can start at an earlier turn
(a search result there), and stop after about :data:`RESTORE_EVENTS` events:
a "Show N later messages" button under that window draws the rest, a
window per event-loop pass, so neither the jump nor the button freezes the
window however long the conversation.

A card shows the risk marks and the auto-approval wording it had live from
the tool facts and ``by`` the items kept (``ToolFacts``, ``AutoApproved.by``),
not from the servers set up now, and its "No answer in 300 s" from the
turn's ``approval_timeout_s``; events without them restore unmarked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from desktop_agent.core.transcript import DisplayItem, ScanKind, ToolFacts, UserText, scan_kind
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.retranslate import KeyedButton
from desktop_agent.ui.conversations.replay import new_view, replay

log = logging.getLogger(__name__)

RESTORE_EVENTS = 60
"""About how many display events a search hit's window draws (:func:`window_end`):
15–30 exchanges. Drawing costs a few ms a widget (bubbles lay out their
Markdown), so a jump far back in a 2,000-message conversation draws about
as much as opening it."""
FILL = 1.5
"""An open draws until what it drew is this many view heights: the view,
and half a view above it to scroll into before more is drawn."""
FIRST_FILL = 1.1
"""What an open draws before the window paints, in view heights: the view
and a margin (less than :data:`~desktop_agent.ui.chat.scroll_column.NEAR_TOP`
above it). That leaves the reader near the top, so right after the paint
the view asks for earlier turns (``ChatView.set_earlier``, a zero timer),
and the rest up to :data:`FILL` is drawn above what is shown, the view
staying at the bottom: drawing that half view first cost a quarter of the
first paint, for what nobody sees before they scroll."""


@dataclass
class Restored:
    """What a restore drew: the first widget of each drawn turn, by turn index."""

    first_turn: int = 0
    """The earliest turn drawn (-1: the events before the first user message too)."""
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
    ``to_turn`` for :func:`restore`): a window from it (None: to the end,
    when the window reaches it); (None, None), the plain open, for no hit.
    One place for the window (``ConversationsGlue.open``) and its benchmark."""
    if turn is None:
        return None, None
    end = window_end(events, turn)  # a window, not all after it
    return turn, end if end < len(turn_starts(events)) else None


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
    at_end: Callable[[], None] | None = None,
) -> Restored:
    """Draw ``events`` into ``chat``: from turn ``from_turn`` up to turn
    ``to_turn`` (exclusive; None: the end), or, without ``from_turn``, the
    last turns that fill the view (:data:`FILL`). Earlier turns are drawn
    as the reader scrolls up. A hidden end gets a "Show N later messages"
    button; ``at_end`` is called once the last event is drawn (now, or then)."""
    starts = turn_starts(events)
    turns = len(starts)
    drawn = 0
    if from_turn is None:
        out, end_turn = Restored(turns), turns
        lowest = _lowest(events, starts)
        while out.first_turn > lowest and drawn < chat.fill_height() * FIRST_FILL:  # the last turn, then above
            drawn += _draw_above(chat, events, starts, out)
    else:
        first = max(0, min(from_turn, turns - 1))
        end_turn = turns if to_turn is None else max(first + 1, min(to_turn, turns))
        out = Restored(first)
        _draw(chat, events, _begin(starts, first), _start(events, starts, end_turn), first, out)
    _Earlier(chat, events, starts, out, chat.fill_height() * FILL - drawn if from_turn is None else None)
    if end_turn < turns:
        _Later(chat, events, end_turn, out, at_end or (lambda: None))
    elif at_end is not None:
        at_end()
    return out


class _Earlier:
    """Draws earlier turns above the first drawn, a view's height at a
    time, while the reader is near the top (:meth:`ChatView.set_earlier`);
    down to the events before the first user message. After an open, the
    first time (right after its first paint: what it drew leaves the reader
    near the top) draws only ``first`` high, up to :data:`FILL`."""

    def __init__(
        self, chat: ChatView, events: Sequence[DisplayItem], starts: list[int], out: Restored,
        first: float | None = None,
    ) -> None:
        self._chat, self._events, self._starts, self._out = chat, events, starts, out
        self._first = first
        self._lowest = _lowest(events, starts)
        chat.set_earlier(self._step if out.first_turn > self._lowest else None)

    def _step(self) -> None:
        chat, out, drawn = self._chat, self._out, 0
        height, self._first = chat.fill_height() if self._first is None else max(self._first, 1), None
        while out.first_turn > self._lowest and drawn < height:
            drawn += _draw_above(chat, self._events, self._starts, out)
        if out.first_turn <= self._lowest:
            chat.set_earlier(None)


def _lowest(events: Sequence[DisplayItem], starts: Sequence[int]) -> int:
    """The earliest turn: -1 when events come before the first user message (a notice at start)."""
    return -1 if (starts[0] if starts else len(events)) > 0 else 0


def _begin(starts: Sequence[int], turn: int) -> int:
    """The index of turn ``turn``'s first event (-1: the events before the first turn)."""
    return starts[turn] if turn >= 0 else 0


def _draw_above(chat: ChatView, events: Sequence[DisplayItem], starts: Sequence[int], out: Restored) -> int:
    """Draw the turn before the earliest drawn above it (at the end when
    nothing is drawn yet); the height it takes at the view's width."""
    turn = out.first_turn - 1
    begin, stop = _begin(starts, turn), _start(events, starts, turn + 1)
    top = out.turn_widgets.get(out.first_turn)
    items = chat.items()
    if top is not None and isValid(top) and top in items:
        at = items.index(top)
        with chat.above(top):
            _draw(chat, events, begin, stop, turn, out)
        items = chat.items()
        added = items[at:items.index(top)]
    else:  # the first turn drawn (or its widgets were taken back): at the end
        at = len(items)
        _draw(chat, events, begin, stop, turn, out)
        added = chat.items()[at:]
    out.first_turn = turn
    return sum(chat.measure(w) for w in added)


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
            view, facts = new_view(chat, item.approval_timeout_s)
            out.views.append(view)
            continue
        if view is None:  # events before any user message (a notice at start)
            view, facts = new_view(chat)
            out.views.append(view)
        replay(view, chat, item, facts)
    if view is not None:
        view.finish()


