"""Each turn's view, opened on the window's chat and wired both ways: the
user's answers (approvals, forms) go to the turn logic, and what the view
sees goes out to the window (a card's phase, an approval or a form waiting
for the user, the tray's attention). The window hands it to the turn logic
as the way a turn opens."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from desktop_agent.ui.chat.turn_events import WaitKind

if TYPE_CHECKING:
    from desktop_agent.ui.cards.phase import CardPhase
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.turn_logic import TurnLogic
    from desktop_agent.ui.chat.turn_view import TurnView
    from desktop_agent.ui.shell.held_message import HeldMessage


class TurnOpener:
    def __init__(
        self, chat: ChatView, controller: TurnLogic[TurnView], held: HeldMessage, *,
        on_card: Callable[[str, CardPhase], None],
        on_waiting: Callable[[WaitKind, str], None],
        approval_shown: Callable[[str], None],
        attention: Callable[[str], None],
        send: Callable[[str], bool] = lambda _text: False,
    ) -> None:
        self._chat = chat
        self._controller = controller
        self._held = held
        self._on_card = on_card
        self._on_waiting = on_waiting
        self._approval_shown = approval_shown
        """The keyboard's part: the approval keys reach the new card."""
        self._attention = attention
        """The tray's part: a notification while the window is inactive."""
        self._send = send
        """The window's Enter: a rejected card's "what to do instead" is the next message."""
        self._last: TurnView | None = None

    def __call__(self, text: str) -> TurnView:
        """The view of a turn that starts with the user's ``text``."""
        from desktop_agent.ui.chat.turn_view import TurnView

        controller = self._controller
        if self._held.take_bubble() is None:  # a held message is on screen already
            self._chat.add_user(text)
        if self._last is not None:
            self._last.withdraw_redirects()
        self._last = view = TurnView(
            self._chat,
            on_answer=controller.answer_approval,
            on_trust_server=controller.trust_read_only_server,
            on_redirect=self._send,
            on_form_submit=self._answer_form,
            on_form_cancel=lambda form_id: self._answer_form(form_id, None),
            on_form_decline=self._decline_form,
            on_attention=self._on_attention,
            on_interrupted=controller.on_interrupted,
            on_card=lambda state: self._on_card(state.tool_call_id, state.phase),
            server_of=controller.deps.tool_facts.server,
            annotations_of=controller.deps.tool_facts.annotations,
            approval_timeout_s=controller.conversation.approval_timeout_s,
        )
        return view

    def _answer_form(self, form_id: str, answers: Mapping[str, Any] | None) -> None:
        view = self._controller.view
        form = view.forms.get(form_id) if view is not None else None
        if form is None:
            return
        reply = self._controller.answer_form(form_id, answers)
        if reply.error is not None:
            form.show_error(reply.error)
        elif reply.ended is not None:
            form.finish(reply.ended)

    def _decline_form(self, form_id: str) -> None:
        """A server's form declined (its Decline button)."""
        view = self._controller.view
        form = view.forms.get(form_id) if view is not None else None
        if form is not None:
            form.finish(self._controller.decline_form(form_id).ended or "closed")

    def _on_attention(self, kind: str, ident: str, text: str) -> None:
        wait = WaitKind(kind)
        if wait == WaitKind.APPROVAL:
            self._approval_shown(ident)
        self._attention(text)
        self._on_waiting(wait, ident)
