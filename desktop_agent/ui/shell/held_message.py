"""A message sent before the window is attached to its services. The input
takes text from the first moment: the message is shown at once and waits
(the button says Interrupt, which drops it), then runs as the first turn
once attached. What the chat showed meanwhile stays below a restored
conversation."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_agent.ui.chat.turn_state import ButtonPhase

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.send_button import SendButton


class HeldMessage:
    def __init__(self, chat: ChatView, button: SendButton, texts: Callable[[], Texts]) -> None:
        self._chat = chat
        self._button = button
        self._texts = texts
        self._text: str | None = None
        self._bubble: QWidget | None = None
        self._early: list[QWidget] = []
        """What the chat shows from before the window was attached."""

    def hold(self, text: str) -> bool:
        """Keep ``text``, shown, to run once attached; False when it is
        empty or one is held already (one message)."""
        text = text.strip()
        if not text or self._text is not None:
            return False
        self._text = text
        self._bubble = self._chat.add_user(text)
        self._early.append(self._bubble)
        self._button.set_phase(ButtonPhase.INTERRUPT)
        return True

    def drop(self) -> None:
        """Interrupt before the window is attached: the held message never runs."""
        if self._text is None:
            return
        self._text = self._bubble = None
        self._early.append(self._chat.add_system(self._texts().tr("sys_interrupted")))
        self._button.set_phase(ButtonPhase.SEND)

    def shown_early(self) -> list[QWidget]:
        """The window is attached: what the chat showed before (once)."""
        early, self._early = self._early, []
        return early

    def take(self) -> str | None:
        """The held message, to run as the first turn (once)."""
        text, self._text = self._text, None
        return text

    def take_bubble(self) -> QWidget | None:
        """The held message's bubble, as its turn opens: it is on screen already."""
        bubble, self._bubble = self._bubble, None
        return bubble
