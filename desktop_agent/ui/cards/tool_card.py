"""The tool card: a dumb widget that renders a :class:`ToolCardState`.

Signals:
    answered(tool_call_id: str, approved: bool, always_allow: bool)
        Approve or Reject was clicked or its key pressed (the checkbox
        rides along); the row and its second question for a destructive
        tool are :class:`~desktop_agent.ui.cards.approval.ApprovalControls`.
    server_trusted(server: str)
        Approved with "Always allow read-only tools from this server"
        ticked (just before ``answered``).
    redirect_sent(tool_call_id: str, text: str)
        After the user rejected the call: what the model should do
        instead (:class:`~desktop_agent.ui.cards.redirect.RedirectField`),
        to send as the conversation's next message.
    resource_requested(server: str, uri: str)
        One of the result's MCP resource links was clicked (web links open
        in the browser without this).

A ``sub_agent`` card holds its agent's calls as cards of their own (each
with its own buttons) in :attr:`ToolCardWidget.nested`.

Which state follows which message is decided in :mod:`card_state`; this
widget only shows one state at a time. The details toggle (whether the user
opened a finished card) and the always-allow confirmation step are the only
state it keeps of its own.

A card waiting for its answer can hold the keyboard (the window gives it
focus when it appears, ``ui/shell/window_keys.py``): it is in the Tab chain then,
drawn with a focus ring, and keeps the keyboard as it is answered, so that
the window, not Qt's focus chain, says where it goes next.

A language switch (Settings → Appearance) reaches the card
through :meth:`ToolCardWidget.retranslate`: its fixed texts are bound once
(:class:`~desktop_agent.ui.common.retranslate.TextBindings`), the rest is drawn from the
state again, nested cards included.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QProgressBar, QStyle, QVBoxLayout, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.cards.approval import ApprovalControls
from desktop_agent.ui.cards.card_header import CardHeader
from desktop_agent.ui.cards.card_output import (
    ImageStrip,
    LiveOutput,
    clip,
    fit_height,
    mono_label,
    output_box,
)
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.redirect import RedirectField
from desktop_agent.ui.cards.resource_links import ResourceLinks
from desktop_agent.ui.cards.sampling import sampling_of, sampling_text, sampling_title
from desktop_agent.ui.cards.state import (
    ToolCardState,
)
from desktop_agent.ui.cards.structured_view import StructuredView
from desktop_agent.ui.cards.wording import (
    always_offer,
    arguments_summary,
    arguments_text,
    auto_badge,
    cut_note,
    elapsed_caption,
    outcome_text,
    output_notice,
    output_text,
    partial_text,
    progress_caption,
    result_heading,
    risk_text,
    title_for,
)
from desktop_agent.ui.common.retranslate import TextBindings

# Style icons, not emoji: many desktops (and this project's CI) have no emoji font.
_SP = QStyle.StandardPixmap
_ICONS = {  # preparing and executing show the spinner instead
    CardPhase.APPROVAL: _SP.SP_MessageBoxQuestion,
    CardPhase.DONE: _SP.SP_DialogApplyButton,
    CardPhase.REJECTED: _SP.SP_DialogCancelButton,
    CardPhase.INVALIDATED: _SP.SP_BrowserStop,
}
ICON_SIZE = 16
ELAPSED_AFTER_S = 3.0
"""A running call with no progress total shows its elapsed time after this."""
DETAILS_OUTPUT_MAX_HEIGHT = 260
NESTED_INDENT_PX = 14


class ToolCardWidget(QFrame):
    answered = Signal(str, bool, bool)
    server_trusted = Signal(str)
    redirect_sent = Signal(str, str)
    resource_requested = Signal(str, str)

    def __init__(self, state: ToolCardState, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.state = state
        self._expanded = False
        self._bindings = TextBindings(texts)
        """The card's language and fixed texts, set again by :meth:`retranslate`."""

        self.clock: Callable[[], float] = time.monotonic
        """When the call started running is measured with this (tests set it)."""
        self._started_at: float | None = None
        self._details_output_len = -1
        self._elapsed_timer = QTimer(self)
        self._elapsed_timer.setInterval(1000)
        self._elapsed_timer.timeout.connect(self.tick)

        header = CardHeader(self, self._bindings)
        self.icon, self.spinner, self.title, self.server = header.icon, header.spinner, header.title, header.server
        self.badge, self.auto_note, self.toggle = header.badge, header.auto_note, header.toggle
        self.toggle.toggled.connect(self._on_toggle)

        self.risk = QLabel(self)
        """What the tool says of its risk: red for "may change or delete data"."""
        self.risk.setObjectName("cardRisk")
        self.risk.setWordWrap(True)
        self.risk.setTextFormat(Qt.TextFormat.PlainText)
        self.arguments = mono_label(self)
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setFixedHeight(8)
        self.progress_caption = QLabel(self)
        self.progress_caption.setObjectName("cardMuted")
        self.live_row = LiveOutput(self._bindings, self)
        """A running call's last lines and the button for more of them."""
        self.live_output, self.live_more = self.live_row.box, self.live_row.more
        self.output_label = self._bindings.label("output", self)
        self.output_label.setObjectName("cardMuted")
        self.output = output_box(self)
        self.output.setMaximumHeight(DETAILS_OUTPUT_MAX_HEIGHT)  # fit_height: as tall as its lines, up to this
        self.result_label = QLabel(self)
        self.result_label.setObjectName("cardMuted")
        self.result_label.setWordWrap(True)
        self.result = mono_label(self)
        self.reason = QLabel(self)
        self.reason.setObjectName("cardMuted")
        self.reason.setWordWrap(True)
        self.nested = QWidget(self)
        """A sub_agent card's nested cards (its agent's calls), in order."""
        self.nested.setObjectName("nestedCards")
        self._nested_layout = QVBoxLayout(self.nested)
        self._nested_layout.setContentsMargins(NESTED_INDENT_PX, 0, 0, 0)
        self._nested_layout.setSpacing(6)
        self.nested.setVisible(False)
        self.images = ImageStrip(self._bindings, self)
        self.structured = StructuredView(self)
        """The result's structured content as fields or a table."""
        self.resource_links = ResourceLinks(texts, self)
        """The result's resource links and embedded resources."""
        self.resource_links.open_requested.connect(
            lambda uri: self.resource_requested.emit(self.state.server or "", uri)
        )

        self.approval = ApprovalControls(self._bindings, self)
        """Approve and Reject (with their keys), "Always allow" and its second question."""
        self.approval.answered.connect(lambda ok, always: self.answered.emit(self.state.tool_call_id, ok, always))
        self.approve_button = self.approval.approve_button
        self.reject_button = self.approval.reject_button
        self.always = self.approval.always
        self.approval_row = self.approval.approval_row
        self.confirm_text = self.approval.confirm_text
        self.confirm_always = self.approval.confirm_always
        self.confirm_once = self.approval.confirm_once
        self.confirm_back = self.approval.confirm_back
        self.confirm_row = self.approval.confirm_row
        self.always_server = self.approval.always_server
        self.approval.server_trusted.connect(lambda: self.server_trusted.emit(self.state.server or ""))
        self.redirect = RedirectField(self._bindings, self)
        """After a rejection: "Tell the model what to do instead"."""
        self.redirect.sent.connect(lambda text: self.redirect_sent.emit(self.state.tool_call_id, text))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)
        layout.addLayout(header.layout)
        layout.addWidget(self.risk)
        layout.addWidget(self.arguments)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.progress_caption)
        layout.addWidget(self.live_row)
        layout.addWidget(self.approval)
        layout.addWidget(self.reason)
        layout.addWidget(self.redirect)
        layout.addWidget(self.nested)
        layout.addWidget(self.output_label)
        layout.addWidget(self.output)
        layout.addWidget(self.result_label)
        layout.addWidget(self.result)
        layout.addWidget(self.images)
        layout.addWidget(self.structured)
        layout.addWidget(self.resource_links)
        self.show_state(state)

    # --------------------------------------------------------------- render

    def show_state(self, state: ToolCardState) -> None:
        phase = state.phase
        if phase != CardPhase.APPROVAL and self.state.phase == CardPhase.APPROVAL and self._keyboard_inside():
            # The buttons are about to hide; the card keeps the keyboard
            # rather than Qt passing it on down the focus chain, and the
            # window decides where it goes next (``ui/shell/window_keys.py``).
            self.setFocus(Qt.FocusReason.OtherFocusReason)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus if phase == CardPhase.APPROVAL else Qt.FocusPolicy.NoFocus)
        self.state = state
        risk = ("destructive" if state.destructive else "cautious" if state.cautious else "") if state.pending else ""
        if self.property("phase") != phase or (self.property("risk") or "") != risk:
            self.setProperty("phase", phase.value)  # the style sheet matches the word
            self.setProperty("risk", risk)
            self.style().unpolish(self)
            self.style().polish(self)
        terminal = not state.pending
        sampling = sampling_of(state)  # a server's request: its own words
        args = sampling_text(self._bindings.texts, sampling) if sampling else arguments_text(state.arguments)
        result = state.result or ""
        partial = partial_text(state.partial_result)

        texts = self._bindings.texts
        self.title.setText(sampling_title(texts, state, sampling) if sampling else title_for(texts, state))
        if sampling is not None:
            self.approval.offer(texts.tr("card_sampling_always", server=sampling.server))
        elif phase == CardPhase.APPROVAL:
            offer = always_offer(texts, state)
            self.approval.offer(offer.tool, offer.server, offer.confirm)
        self.server.setText(self._bindings.texts.tr("card_from_server", server=state.server) if state.server else "")
        self.server.setVisible(bool(state.server))
        running = phase in (CardPhase.PREPARING, CardPhase.EXECUTING)
        self.spinner.setVisible(running)
        self.icon.setVisible(not running)
        if not running:
            icon = _SP.SP_MessageBoxWarning if phase == CardPhase.DONE and state.is_error else _ICONS[phase]
            if state.outcome == "not_answered":
                icon = _SP.SP_MessageBoxInformation
            self.icon.setPixmap(self.style().standardIcon(icon).pixmap(ICON_SIZE, ICON_SIZE))
        if state.auto_approved and phase == CardPhase.EXECUTING:
            self.badge.setText(auto_badge(self._bindings.texts, state))
        else:
            summary = "" if sampling is not None else arguments_summary(state.arguments)
            self.badge.setText(summary if terminal and not self._expanded else "")
        self.badge.setVisible(bool(self.badge.text()))
        self.auto_note.setText(auto_badge(self._bindings.texts, state) if state.auto_approved and terminal else "")
        self.auto_note.setVisible(bool(self.auto_note.text()))

        expandable = terminal and bool(args or result or partial or state.images or state.output)
        self.toggle.setVisible(expandable)
        open_details = expandable and self._expanded
        show_args = bool(args) and (
            phase == CardPhase.APPROVAL or (phase == CardPhase.EXECUTING and not state.form_attached) or open_details
        )
        self.arguments.setText(args)
        self.arguments.setVisible(show_args)

        self._track_running(phase == CardPhase.EXECUTING)
        self._show_progress(state)
        self.live_row.show_output(state, phase == CardPhase.EXECUTING)

        risk_line = risk_text(self._bindings.texts, state) if state.pending or self._expanded else ""
        self.risk.setText(risk_line)
        kind = "destructive" if state.destructive else "cautious" if state.cautious else "open_world"
        if self.risk.property("risk") != kind:
            self.risk.setProperty("risk", kind)
            self.risk.style().unpolish(self.risk)
            self.risk.style().polish(self.risk)
        self.risk.setVisible(bool(risk_line))
        self.approval.show_pending(phase == CardPhase.APPROVAL, destructive=state.destructive)
        outcome = outcome_text(self._bindings.texts, state) or cut_note(self._bindings.texts, state)
        notice, raw = ("", "") if outcome else output_notice(self._bindings.texts, state)
        self.reason.setText(outcome or notice)
        self.reason.setToolTip(raw)
        self.reason.setVisible(bool(outcome or notice))

        show_output = open_details and bool(state.output)
        if show_output and self._details_output_len != len(state.output) + state.output_cut:
            self._details_output_len = len(state.output) + state.output_cut
            self.output.setPlainText(output_text(self._bindings.texts, state))
            fit_height(self.output, DETAILS_OUTPUT_MAX_HEIGHT)
        self.output_label.setVisible(show_output)
        self.output.setVisible(show_output)
        shown_result = result if phase == CardPhase.DONE else partial
        self.result_label.setText(result_heading(self._bindings.texts, state))
        self.result.setText(clip(shown_result))
        self.result_label.setVisible(open_details and bool(shown_result))
        self.result.setVisible(open_details and bool(shown_result))
        self.images.show_images(state.images)
        self.images.setVisible(phase == CardPhase.DONE and bool(state.images))
        done = phase == CardPhase.DONE
        if done and state.structured is not None:
            texts = self._bindings.texts
            self.structured.show_value(state.structured, more_rows=lambda n: texts.tr("card_more_rows", n=n))
        self.structured.setVisible(done and state.structured is not None)
        self.resource_links.show_refs(state.resources if done else ())
        self.resource_links.setVisible(done and bool(state.resources))

    def retranslate(self, texts: Texts) -> None:
        """Every text again in ``texts``' language (a language switch)."""
        self._bindings.retranslate(texts)
        self.resource_links.retranslate(texts)
        self.redirect.retranslate()
        self.structured.layout_shown = None  # "… more rows" is said again
        self._details_output_len = -1  # "… characters dropped" is said again
        self.show_state(self.state)
        for card in self.nested_cards():
            card.retranslate(texts)

    def tick(self) -> None:
        """Once a second while running: refresh the elapsed time."""
        self._show_progress(self.state)

    def _track_running(self, running: bool) -> None:
        if running and self._started_at is None:
            self._started_at = self.clock()
        if running and not self._elapsed_timer.isActive():
            self._elapsed_timer.start()
        elif not running and self._elapsed_timer.isActive():
            self._elapsed_timer.stop()

    def _show_progress(self, state: ToolCardState) -> None:
        progress = state.progress
        running = state.phase == CardPhase.EXECUTING
        percent = progress.percent if progress is not None else None
        caption = ""
        if running and percent is not None and progress is not None:
            self.progress_bar.setRange(0, 100)
            self.progress_bar.setValue(percent)
            caption = progress_caption(self._bindings.texts, progress)
        elif running:
            elapsed = self.clock() - self._started_at if self._started_at is not None else 0.0
            if elapsed >= ELAPSED_AFTER_S:
                caption = elapsed_caption(self._bindings.texts, elapsed, progress)
            elif progress is not None:
                caption = progress_caption(self._bindings.texts, progress)
        self.progress_bar.setVisible(running and percent is not None)
        self.progress_caption.setText(caption)
        self.progress_caption.setVisible(bool(caption))

    def offer_redirect(self) -> None:
        """The user rejected this call: offer to tell the model what to do instead."""
        self.redirect.offer()

    def add_nested(self, card: ToolCardWidget) -> None:
        """Show a sub-agent's call inside this (sub_agent) card."""
        self._nested_layout.addWidget(card)
        self.nested.setVisible(True)

    def nested_cards(self) -> list[ToolCardWidget]:
        return [w for w in self.nested.findChildren(ToolCardWidget) if w.parentWidget() is self.nested]

    # --------------------------------------------------------------- input

    def _answer(self, approved: bool) -> None:
        """Approve or Reject, as if clicked (the window's keys come here)."""
        if self.state.phase == CardPhase.APPROVAL:
            self.approval.answer(approved)

    def answer_key(self, approved: bool) -> None:
        """Alt+A or Alt+R while this card waits: as the button, shown pressed."""
        button = self.approve_button if approved else self.reject_button
        if self.state.phase == CardPhase.APPROVAL and button.isVisibleTo(self):
            button.animateClick()
        else:
            self._answer(approved)  # the second question: Reject still works, Approve waits

    def answer_chain(self) -> list[QWidget]:
        """The card, then what answers it, in Tab order."""
        a = self.approval
        return [self, a.approve_button, a.reject_button, a.always, a.always_server, a.confirm_always, a.confirm_once, a.confirm_back]

    def _keyboard_inside(self) -> bool:
        focused = QApplication.focusWidget()
        return focused is not None and (focused is self or self.isAncestorOf(focused))

    def _on_toggle(self, checked: bool) -> None:
        self._expanded = checked
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if checked else Qt.ArrowType.RightArrow)
        self.show_state(self.state)

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setChecked(expanded)
