"""SessionMessageBus: the ordered FIFO between the chat handler and whatever
shows the turn (the window's playback queue, the headless printer, the
events file).

Messages are the typed :data:`~desktop_agent.core.messages.BusMessage`
union; the bus stamps each with the session and a per-session ``seq`` and
hands the :class:`BusItem` synchronously to every listener, in push order.
That is the one delivery path: a reader attaches before the turn starts
(``Conversation.run_turn`` attaches the playback queue before the handler
task runs), so it sees every message.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_agent.core.messages import BusItem, BusMessage

Listener = Callable[[BusItem], None]


class SessionMessageBus:
    """Per-session ordered message FIFO."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._seq = 0
        self._listeners: list[Listener] = []

    def add_listener(self, listener: Listener) -> None:
        """Called synchronously for every message pushed from now on."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def push(self, message: BusMessage) -> BusItem:
        self._seq += 1
        item = BusItem(self.session_id, self._seq, message)
        for listener in self._listeners:
            listener(item)
        return item

    @property
    def pushed(self) -> int:
        """How many messages were pushed so far (the last ``seq``)."""
        return self._seq
