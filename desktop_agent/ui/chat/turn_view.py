"""TurnView: the Qt side of one turn, implementing core's ``PlaybackView``.

The ``PlaybackQueue`` (core) decides the order and the waiting; this class
only turns each consumed message into widgets in the :class:`ChatView`:
assistant text into bubbles, each ``tool_call_id`` into its own
:class:`ToolCardWidget` (so two calls of one tool get two cards; a
sub-agent's calls, keyed under their parent, go inside the sub_agent card), forms,
visual cards, notices and the interrupt system messages. User actions go
out through the callbacks the window passes in; nothing here talks to the
conversation directly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, assert_never

from shiboken6 import isValid

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
from desktop_agent.core.playback import ToolEvent
from desktop_agent.core.risk import AutoDecider, ToolAnnotations
from desktop_agent.mcp_engine.sampling import sampling_view
from desktop_agent.texts import Texts
from desktop_agent.ui.cards.form_widget import FormWidget
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.sampling import sampling_of
from desktop_agent.ui.cards.state import (
    CardUpdate,
    ToolCardState,
    answered,
    apply_message,
    auto_approved,
    card_key,
    invalidate,
    new_card,
    not_answered,
)
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.cards.visual_card import VisualCardWidget
from desktop_agent.ui.chat.bubble import BubbleRole
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.turn_state import TurnTracker
from desktop_agent.ui.common.error_wording import error_markdown

if TYPE_CHECKING:
    from desktop_agent.core.mentions import Attachment

log = logging.getLogger(__name__)

NOTICE_KEYS = {"max_tokens": "notice_reply_cut"}
"""The UI text of a warning or error the window words itself, by its code;
others show the engine's line."""


def notice_markdown(texts: Texts, label: str, message: WarningMessage | ErrorMessage) -> str:
    """A bus warning or error in ``texts``' language: by its code where the
    code has words, else as a known kind of failure (``error_markdown``)."""
    key = NOTICE_KEYS.get(message.code)
    if key is not None:
        return f"**{label}:** {texts.tr(key)}"
    return error_markdown(texts, label, message.message)


class TurnView:
    """One turn's view. ``on_card`` is called when a card appears and
    whenever its phase changes; ``on_attention`` when an approval or a form
    waits for the user."""

    def __init__(
        self,
        chat: ChatView,
        *,
        on_answer: Callable[[str, bool, bool], None] = lambda _id, _ok, _always: None,
        on_trust_server: Callable[[str], None] = lambda _server: None,
        on_redirect: Callable[[str], bool] = lambda _text: False,
        on_form_submit: Callable[[str, dict[str, Any]], None] = lambda _id, _answers: None,
        on_form_cancel: Callable[[str], None] = lambda _id: None,
        on_form_decline: Callable[[str], None] = lambda _id: None,
        on_attention: Callable[[str, str, str], None] = lambda _kind, _id, _text: None,
        on_interrupted: Callable[[str], None] = lambda _reason: None,
        on_card: Callable[[ToolCardState], None] = lambda _state: None,
        server_of: Callable[[str], str | None] = lambda _name: None,
        annotations_of: Callable[[str], ToolAnnotations | None] = lambda _name: None,
        approval_timeout_s: float | None = None,
    ) -> None:
        self.chat = chat
        self.user_bubble = chat.last_user_bubble()
        """The user's message that opened the turn (on screen just before it)."""
        self.tracker = TurnTracker()
        self.cards: dict[str, ToolCardWidget] = {}
        self.forms: dict[str, FormWidget] = {}
        """By form_id."""
        self._form_of_call: dict[str, str] = {}
        self._on_answer = on_answer
        self._on_trust_server = on_trust_server
        """Approved with "Always allow read-only tools from this server"."""
        self._on_redirect = on_redirect
        """A rejected card's "what to do instead": sent as the next message (False: not now)."""
        self._on_form_submit = on_form_submit
        self._on_form_cancel = on_form_cancel
        self._on_form_decline = on_form_decline
        self._on_attention = on_attention
        self._on_interrupted = on_interrupted
        self._on_card = on_card
        self._server_of = server_of
        """The MCP server offering a tool name (None: built-in)."""
        self._annotations_of = annotations_of
        """What a tool says of its risk (its annotations, for the card's risk line), by name."""
        self._approval_timeout_s = approval_timeout_s
        self._new_round = False
        """The next text starts a new agent round (a new paragraph)."""

    # ------------------------------------------------------ PlaybackView

    def show_text(self, message: TextMessage) -> None:
        self.chat.add_assistant_text(message.text, new_paragraph=self._new_round)
        self._new_round = False

    def round_ended(self, message: RoundEndMessage) -> None:
        self._new_round = True

    def tool_event(self, message: ToolEvent) -> None:
        match message:
            case FormRequestMessage():
                self._add_form(message)
            case CardMessage():
                self.chat.add_card(VisualCardWidget(message.card, self.chat.texts))
            case ToolCallMessage() | ToolProgressMessage() | ToolOutputMessage() | ToolRejectedMessage():
                card = self._card(message)
                state = self._named(apply_message(card.state, message), card.state)
                self._render(card, state)
                if not state.pending:
                    self._close_form_of(state.tool_call_id)
            case _:
                assert_never(message)

    def approval_needed(self, message: ToolCallMessage) -> None:
        card = self._card(message)
        self._render(card, self._named(apply_message(card.state, message), card.state))
        state = card.state
        self._on_attention("approval", state.tool_call_id, self.chat.texts.tr("tray_approval", name=state.tool_name))

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        card = self._card(message)
        self._render(card, auto_approved(self._named(apply_message(card.state, message), card.state), by))

    def notice(self, message: WarningMessage | ErrorMessage) -> None:
        level: BubbleRole = "error" if isinstance(message, ErrorMessage) else "warning"
        # A known kind of failure in the UI language (the engine's line as its detail).
        self.chat.add_notice(level, lambda texts: notice_markdown(texts, texts.tr(level), message))

    def interrupted(self, message: InterruptedMessage) -> None:
        self.invalidate_pending()
        key = self.tracker.on_interrupted(message.reason)
        if key == "sys_approval_timeout" and any(c.state.outcome == "no_answer" for c in self.cards.values()):
            key = "sys_form_timeout"  # a form, not an approval, waited in vain
        if key is not None:
            self.chat.add_system(self.chat.texts.tr(key))
        self._on_interrupted(message.reason)

    def turn_ended(self, message: TurnEndMessage) -> None:
        self.finish()

    # ------------------------------------------------- from the window

    def card_state(self, tool_call_id: str) -> ToolCardState | None:
        card = self.cards.get(tool_call_id)
        return card.state if card is not None else None

    def mark_answered(self, tool_call_id: str, approved: bool) -> str | None:
        """The user answered a card; returns a system message to show, if any."""
        card = self.cards.get(tool_call_id)
        if card is None:
            return None
        self._render(card, answered(card.state, approved))
        if approved or sampling_of(card.state) is not None:
            return None  # refusing a server's request fails only the request: the turn goes on
        key = self.tracker.reject_clicked()
        if key is not None:
            self.chat.add_system(self.chat.texts.tr(key))
        if card.state.parent_tool_call_id is None:
            card.offer_redirect()  # the turn ends here: say what to do instead
        return key

    def withdraw_redirects(self) -> None:
        """A later turn started: no rejected card still asks what to do instead."""
        for card in self.cards.values():
            card.redirect.withdraw()

    def note_voice_answer(self, tool_call_id: str) -> None:
        """The answer about to be given to this card was spoken (its title
        says so once answered)."""
        card = self.cards.get(tool_call_id)
        if card is not None and card.state.phase == CardPhase.APPROVAL:
            self._render(card, replace(card.state, by_voice=True))

    def form_answered(self, form_id: str, answers: dict[str, Any] | None, *, declined: bool = False) -> None:
        """A restored form: the answers the user gave (None: cancelled, or
        ``declined``), shown as the live form showed them once sent."""
        form = self.forms.get(form_id)
        if form is None:
            return
        if declined:
            form.finish("declined")
        elif answers is None:
            self._form_cancelled(form_id)
            form.finish("cancelled")
        else:
            form.fill(answers)
            form.finish("submitted")

    def invalidate_pending(self) -> None:
        stopped = self.tracker.user_interrupted
        for card in self.cards.values():
            if card.state.pending:
                self._render(card, invalidate(card.state, user_stopped=stopped))
        for form in self.forms.values():
            form.finish("closed")

    def show_attachments(self, attachments: Sequence[Attachment]) -> None:
        """The MCP prompt and resources the user's message carried: its chips."""
        if self.user_bubble is not None and isValid(self.user_bubble):
            self.user_bubble.set_attachments(attachments)

    def unsend(self) -> None:
        """The user's message was not sent after all: its bubble goes, with
        what was shown under it meanwhile."""
        if self.user_bubble is not None and isValid(self.user_bubble):
            self.chat.remove_from(self.user_bubble)
        self.user_bubble = None

    def finish(self) -> None:
        """The turn is over: nothing may still look like it is waiting."""
        self.invalidate_pending()
        self.chat.end_bubble()

    # ------------------------------------------------------------ helpers

    def _render(self, card: ToolCardWidget, state: ToolCardState) -> None:
        if state is card.state:
            return
        moved = state.phase != card.state.phase
        card.show_state(state)
        if moved:
            self._on_card(state)

    def _named(self, state: ToolCardState, before: ToolCardState) -> ToolCardState:
        """A name that grew (streamed in pieces) names its server (and its risk) anew."""
        if state.tool_name == before.tool_name:
            return state
        name = state.tool_name
        return replace(state, server=self._server_of(name), annotations=self._annotations_of(name))

    def _card(self, message: CardUpdate) -> ToolCardWidget:
        tool_call_id = card_key(message)
        card = self.cards.get(tool_call_id)
        if card is None:
            name = message.tool_name if isinstance(message, ToolCallMessage) else None
            if isinstance(message, ToolCallMessage) and sampling_view(
                message.tool_name, message.parent_tool_call_id, message.arguments
            ):
                name = None  # a server's request, not a tool of that name: no tool's server or risk
            state = new_card(
                message,
                server=self._server_of(name) if name is not None else None,
                approval_timeout_s=self._approval_timeout_s,
                annotations=self._annotations_of(name) if name is not None else None,
            )
            card = ToolCardWidget(state, self.chat.texts)
            card.answered.connect(self._on_answer)
            card.server_trusted.connect(self._on_trust_server)
            card.redirect_sent.connect(lambda _id, text, card=card: card.redirect.show_sent(self._on_redirect(text)))
            card.resource_requested.connect(self.chat.resource_requested)
            self.cards[tool_call_id] = card
            parent = self._parent_card(message.parent_tool_call_id)
            if parent is not None:
                parent.add_nested(card)  # a sub-agent's call, inside its sub_agent card
            else:
                self.chat.add_card(card)
            self._on_card(card.state)
        return card

    def _parent_card(self, parent_id: str | None) -> ToolCardWidget | None:
        """The card a nested card goes in: the call of that id, or, when that
        one is not running, a sub-agent's running call of that id (a server's
        request made during a sub-agent's call; its card is keyed under the
        sub_agent call)."""
        if not parent_id:
            return None
        exact = self.cards.get(parent_id)
        if exact is not None and exact.state.phase == CardPhase.EXECUTING:
            return exact
        nested = [c for key, c in self.cards.items() if key.endswith("/" + parent_id)]
        running = [c for c in nested if c.state.phase == CardPhase.EXECUTING]
        return running[-1] if running else exact

    def _add_form(self, message: FormRequestMessage) -> None:
        form_id = message.form_id
        source = message.source.to_json() if message.source is not None else None
        form = FormWidget(
            form_id, [q.to_json() for q in message.questions], message.title, self.chat.texts, source=source
        )
        form.submitted.connect(self._on_form_submit)
        form.cancelled.connect(self._form_cancelled)
        form.declined.connect(self._on_form_decline)
        self.forms[form_id] = form
        tool_call_id = message.tool_call_id
        self._form_of_call[tool_call_id] = form_id
        card = self.cards.get(tool_call_id)
        if card is not None and message.source is None:  # a server's form does not ask the call's questions
            self._render(card, replace(card.state, form_attached=True))
        self.chat.add_card(form)
        self._on_attention("form", form_id, self.chat.texts.tr("tray_form"))

    def _form_cancelled(self, form_id: str) -> None:
        tool_call_id = next((c for c, f in self._form_of_call.items() if f == form_id), None)
        card = self.cards.get(tool_call_id) if tool_call_id is not None else None
        form = self.forms.get(form_id)
        if card is not None and (form is None or form.server is None):  # a server's call goes on
            self._render(card, not_answered(card.state))
        self._on_form_cancel(form_id)

    def _close_form_of(self, tool_call_id: str) -> None:
        form_id = self._form_of_call.get(tool_call_id)
        if form_id is not None and form_id in self.forms:
            self.forms[form_id].finish("closed")
