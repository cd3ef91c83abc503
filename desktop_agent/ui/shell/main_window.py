"""The main window: conversation, input, Send/Interrupt, mute and volume,
settings, status bar. It lays out widgets, forwards what the user does to
its :class:`~desktop_agent.ui.chat.turn_logic.TurnLogic` (:attr:`MainWindow.controller`)
and renders what the logic's Qt adapter
(:class:`~desktop_agent.ui.chat.turn_controller.TurnController`,
:attr:`MainWindow.turn_signals`) says; the logic decides (turns, answers,
settings, conversations).

Signals:
    turn_finished(status: TurnEnd)
                                a turn ended (``completed``, ``user``,
                                ``rejected``, ``approval_timeout``, ``error``,
                                ``cancelled``)
    card_changed(tool_call_id: str, phase: CardPhase)
                                a tool card appeared or changed phase
                                (``cards.phase.CardPhase``)
    waiting_for_user(kind: WaitKind, ident: str)
                                an approval (tool_call_id) or a form (form_id)
                                waits for the user
    closed()                    the window was closed; the owner then awaits
                                :meth:`MainWindow.shutdown`
    attached()                  :meth:`MainWindow.attach` connected it to its
                                services (Settings opens from here on)
    sending()                   a message is about to be sent (typed, a
                                welcome prompt, voice): the first warms the
                                Markdown parser (``runtime.warm_on_first_use``)

The window is shown before the services — and even before asyncio — are
imported, which keeps start-up close to a bare Qt window; hence the
function-level imports below. :meth:`attach` then connects it to a
conversation through a new controller.

Never frozen at start: the input takes text from the first
moment. A message sent before :meth:`attach` is shown at once and waits
(the button says Interrupt, which drops it); it runs as the first turn once
attached, below the restored conversation. Settings asked for before then
opens once attached. The composition root attaches as soon as the services
are built, without waiting for the MCP servers, which start in the
background (the status bar follows each one).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QToolButton, QVBoxLayout, QWidget

from desktop_agent.texts import ENGLISH, Texts
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.input_box import InputBox
from desktop_agent.ui.chat.send_button import INTERRUPT_FALLBACK_MS, SendButton
from desktop_agent.ui.chat.turn_events import NoticeLevel, TurnEnd, WaitKind
from desktop_agent.ui.chat.turn_state import ButtonPhase
from desktop_agent.ui.common.theme import apply_theme, forced_theme
from desktop_agent.ui.settings.glue import apply_settings_appearance, reload_if_moved
from desktop_agent.ui.shell.status_bar import StatusBar, server_views
from desktop_agent.ui.shell.window_keys import WindowKeys
from desktop_agent.ui.voice.audio_controls import AudioControls
from desktop_agent.ui.voice.mic_button import HandsFreeButton, MicButton, MicState
from desktop_agent.ui.voice.model_download import ModelDownloadPanel

if TYPE_CHECKING:
    import asyncio

    from desktop_agent.services import AppliedSettings
    from desktop_agent.storage.settings import Settings
    from desktop_agent.ui.chat.message_actions import ChatActions
    from desktop_agent.ui.chat.turn_controller import TurnController
    from desktop_agent.ui.chat.turn_logic import TurnLogic
    from desktop_agent.ui.chat.turn_view import TurnView
    from desktop_agent.ui.conversations.glue import ConversationsGlue
    from desktop_agent.ui.settings.dialog import SettingsDialog, SettingsEdit
    from desktop_agent.ui.shell.tray import Notifier
    from desktop_agent.ui.shell.welcome import WelcomePanel
    from desktop_agent.ui.shell.window_deps import WindowDeps
    from desktop_agent.ui.voice.glue import VoiceGlue
    from desktop_agent.voice.stt.models import DownloadProgress

log = logging.getLogger(__name__)

STATUS_REFRESH_MS = 3000


class MainWindow(QMainWindow):
    turn_finished = Signal(TurnEnd)
    card_changed = Signal(str, CardPhase)
    waiting_for_user = Signal(WaitKind, str)
    closed = Signal()
    attached = Signal()
    sending = Signal()

    def __init__(
        self, *, interrupt_fallback_ms: int = INTERRUPT_FALLBACK_MS, tray: bool | None = None,
        texts: Texts = ENGLISH,
    ) -> None:
        super().__init__()
        self.texts = texts
        """The language this window speaks: handed to every widget it builds, and a new one
        to what is open on a language switch (:meth:`retranslate`)."""
        self.setWindowTitle(self.texts.tr("app_title"))
        self.resize(1100, 760)  # the sidebar (260 px) and a chat column as wide as before it
        self._deps: WindowDeps | None = None
        self._controller: TurnLogic[TurnView] | None = None
        self._turn_signals: TurnController[TurnView] | None = None
        self._tray = tray
        self.notifier: Notifier | None = None
        self._pending: str | None = None
        """A message sent before :meth:`attach`; its first turn once attached."""
        self._pending_bubble: QWidget | None = None
        self._early: list[QWidget] = []
        """What the chat shows from before :meth:`attach` (kept below a restored conversation)."""
        self._settings_wanted = False
        self.settings_dialog: SettingsDialog | None = None
        """The Settings dialog opened last."""

        self.chat = ChatView(self.texts, self)
        self.input = InputBox(self.texts, self)
        self.send_button = SendButton(self.texts, self, fallback_ms=interrupt_fallback_ms)
        self.mic = MicButton(self.texts, self)
        self.mic.set_state(MicState.UNAVAILABLE, self.texts.tr("starting"))  # usable once attached
        self.hands_free_button = HandsFreeButton(self.texts, self)
        self.hands_free_button.setEnabled(False)
        self.voice: VoiceGlue | None = None
        """Speech input, once attached."""
        self.welcome: WelcomePanel | None = None
        """What an empty conversation shows, once attached."""
        self.chat_actions: ChatActions | None = None
        """Regenerate and Edit, once attached."""
        self.conversations: ConversationsGlue | None = None
        """The sidebar and switching, once attached with saved conversations."""
        self.audio = AudioControls(self.texts, self)
        self.settings_button = QToolButton(self)
        self.settings_button.setText("⚙")
        self.settings_button.setToolTip(self.texts.tr("settings_action"))
        self.settings_button.setAutoRaise(True)
        font = self.settings_button.font()
        font.setPixelSize(18)
        self.settings_button.setFont(font)

        self.new_chat_button = QToolButton(self)
        self.new_chat_button.setText("＋")
        self.new_chat_button.setToolTip(self.texts.tr("new_chat"))
        self.new_chat_button.setAutoRaise(True)
        self.new_chat_button.setFont(font)
        self.new_chat_button.setVisible(False)

        bottom = QHBoxLayout()
        bottom.setContentsMargins(12, 6, 12, 10)
        bottom.addWidget(self.input, 1)
        bottom.addWidget(self.mic, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.hands_free_button, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.audio, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.new_chat_button, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignBottom)
        central = QWidget(self)
        self.body = QHBoxLayout(central)
        """The sidebar (once attached) and the conversation column."""
        self.body.setContentsMargins(0, 0, 0, 0)
        self.body.setSpacing(0)
        column = QVBoxLayout()
        self.body.addLayout(column, 1)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.chat, 1)
        self.model_download = ModelDownloadPanel(self.texts, central)
        """The speech model's first-use download (hidden unless one runs or failed)."""
        column.addWidget(self.model_download)
        column.addLayout(bottom)
        self.setCentralWidget(central)
        self.status = StatusBar(self.texts, self)
        self.setStatusBar(self.status)
        self.status.retry_requested.connect(self._retry_server)

        self.keys = WindowKeys(self)
        """Esc, Shift+Esc, Enter while a reply runs, the approval keys and cards' focus."""
        self.input.submitted.connect(self._on_send)
        self.send_button.send_requested.connect(self._on_send)
        self.send_button.interrupt_requested.connect(self.interrupt)
        self.send_button.fallback_fired.connect(self._on_fallback)
        self.audio.muted_changed.connect(self._on_muted)
        self.audio.volume_changed.connect(lambda _v: self._push_audio())
        self.audio.volume_committed.connect(self._on_volume_committed)
        self.settings_button.clicked.connect(self.open_settings)
        QShortcut(QKeySequence.StandardKey.Preferences, self, self.open_settings)
        if QKeySequence("Ctrl+,") not in QKeySequence.keyBindings(QKeySequence.StandardKey.Preferences):
            # Preferences is Ctrl+, only on macOS; the same key twice would be ambiguous (neither fires).
            QShortcut(QKeySequence("Ctrl+,"), self, self.open_settings)
        self.new_chat_button.clicked.connect(self.new_conversation)
        QShortcut(QKeySequence.StandardKey.New, self, self.new_conversation)
        self._status_timer = QTimer(self)
        self._status_timer.setInterval(STATUS_REFRESH_MS)
        self._status_timer.timeout.connect(self.refresh_status)
        apply_theme(self)
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(self._on_color_scheme)

    def event(self, event: QEvent) -> bool:
        # A system switch between light and dark reaches a window as an
        # application palette change (the platform theme swaps palettes), a
        # theme change, or (Qt 6.5+) only as the style hints' colorSchemeChanged:
        # some platforms send one of these and not the others. Qt 6 passes
        # neither event on to changeEvent, hence event().
        if event.type() in (QEvent.Type.ApplicationPaletteChange, QEvent.Type.ThemeChange):
            apply_theme(self)
        return super().event(event)

    @Slot(Qt.ColorScheme)
    def _on_color_scheme(self, _scheme: Qt.ColorScheme) -> None:
        """The system went light or dark: follow it, unless the user chose one."""
        if not forced_theme():
            apply_theme(self)

    # ----------------------------------------------------------- set-up

    def attach(self, deps: WindowDeps) -> None:
        """Connect the window to its conversation; input becomes possible."""
        apply_settings_appearance(self.texts, self.retranslate, None, deps.settings)
        from desktop_agent.ui.chat.turn_controller import TurnController
        from desktop_agent.ui.shell.tray import Notifier

        if self._controller is not None:
            raise RuntimeError("the window is attached already")
        self._deps = deps
        signals: TurnController[TurnView] = TurnController(deps, parent=self, texts=lambda: self.texts)
        self._turn_signals, self._controller = signals, signals.logic
        controller = signals.logic
        signals.turn_finished.connect(self._on_turn_finished)
        signals.phase_changed.connect(self._on_phase)
        signals.notice.connect(self.show_notice)
        signals.model_changed.connect(self._on_model_changed)
        signals.speaking_changed.connect(self.audio.set_speaking)
        self.audio.skip_requested.connect(controller.skip_speech)
        if self.notifier is None:
            self.notifier = Notifier(self, tray_available=self._tray)
        self.audio.set_state(deps.settings.volume, deps.settings.muted)
        self._push_audio()
        self.status.set_model(deps.model_name, is_demo=deps.is_demo, demo_notice=deps.demo_notice)
        self.new_chat_button.setVisible(deps.new_conversation is not None)
        if deps.conversation.history or deps.conversation.events:
            from desktop_agent.ui.conversations.glue import draw

            draw(self, deps.conversation)  # as it looked live
            self.chat.move_to_end(self._early)  # what the user did meanwhile stays last
        self._early = []
        self._add_welcome_and_actions(deps, signals)  # after the restored conversation
        if deps.conversations is not None:
            from desktop_agent.ui.conversations.glue import ConversationsGlue

            self.conversations = ConversationsGlue(self, deps.conversations)
        for warning in deps.warnings:
            self.show_notice(NoticeLevel.WARNING, functools.partial(_warning_text, warning))
        self.refresh_status()
        if deps.mcp is not None:
            self._status_timer.start()
        from desktop_agent.ui.voice.glue import VoiceGlue

        self.voice = VoiceGlue(self, deps.voice, deps.settings, sink=deps.sink)
        self.input.setFocus()
        pending, self._pending = self._pending, None
        if pending is not None and not controller.start_turn(pending, self._open_turn):
            self.send_button.set_phase(controller.phase)
        if self._settings_wanted:
            self._settings_wanted = False
            self.open_settings()
        self.attached.emit()

    def _add_welcome_and_actions(self, deps: WindowDeps, signals: TurnController[TurnView]) -> None:
        from desktop_agent.ui.chat.message_actions import ChatActions
        from desktop_agent.ui.shell.welcome import WelcomePanel

        self.welcome = WelcomePanel(is_demo=deps.is_demo, texts=self.texts)
        self.welcome.prompt_chosen.connect(self.send_text)
        self.welcome.connect_requested.connect(self.open_settings)
        self.chat.set_welcome(self.welcome)
        self.chat_actions = ChatActions(self.chat, self.input, signals, self._open_turn,
                                        hint=self.status.showMessage)

    def new_conversation(self) -> bool:
        """Start afresh (the New button): False while a turn runs."""
        controller = self._controller
        if controller is None or not controller.new_conversation():
            return False
        self.chat.clear()
        self.after_switch()
        return True

    def after_switch(self) -> None:
        """Another conversation is on screen (new, or opened from the sidebar)."""
        if self.chat_actions is not None:
            self.chat_actions.refresh()
        if self.conversations is not None:
            self.conversations.refresh()
        self.input.setFocus()

    @property
    def controller(self) -> TurnLogic[TurnView] | None:
        """What decides; None until :meth:`attach`."""
        return self._controller

    @property
    def deps(self) -> WindowDeps | None:
        """What the window was attached with; None until :meth:`attach`."""
        return self._deps

    @property
    def turn_signals(self) -> TurnController[TurnView] | None:
        """What the turn logic says, as Signals; None until :meth:`attach`."""
        return self._turn_signals

    @property
    def settings(self) -> Settings:
        """The current settings (the window must be attached)."""
        if self._controller is None:
            raise RuntimeError("the window is not attached to its services yet")
        return self._controller.settings

    @property
    def turn_task(self) -> asyncio.Task[None] | None:
        return self._controller.turn_task if self._controller is not None else None

    @property
    def view(self) -> TurnView | None:
        return self._controller.view if self._controller is not None else None

    def _retry_server(self, name: str) -> None:
        """A server's Retry (its status item's menu)."""
        mcp = self._deps.mcp if self._deps is not None else None
        if mcp is not None:
            mcp.retry(name)
            self.refresh_status()

    def refresh_status(self) -> None:
        mcp = self._deps.mcp if self._deps is not None else None
        if mcp is not None:
            try:
                self.status.set_servers(server_views(mcp.statuses()))
            except Exception:  # the status bar must never take the window down
                log.exception("could not read the MCP server states")

    def bring_forward(self) -> None:
        """Show the window in front (a second launch asked for it): restored
        if it was minimised, raised, and given the focus where the window
        manager allows it."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def show_notice(self, level: NoticeLevel, text: str | Callable[[Texts], str]) -> None:
        """Something to say in the conversation: ``error`` or ``warning``
        (Markdown), or ``system`` (one plain line). A function gives the
        text in the window's language, and again after a language switch."""
        if level == NoticeLevel.SYSTEM:
            self.chat.add_system(text(self.texts) if callable(text) else text)
        else:
            self.chat.add_notice("error" if level == NoticeLevel.ERROR else "warning", text)

    # ------------------------------------------------------------ turns

    def send_text(self, text: str) -> bool:
        """Start a turn with ``text`` (what Enter does); False when the
        window cannot take it now (empty, a turn running). Before
        :meth:`attach` the text is shown and waits for it (one message)."""
        self.sending.emit()
        controller = self._controller
        if controller is None:
            return self._hold(text)
        if self.conversations is not None and text.strip():
            self.conversations.show_end()  # after a search hit's window, the new message follows the real last one
        if self.chat_actions is not None and self.chat_actions.editing:
            return self.chat_actions.send_edited(text)  # it replaces the last exchange
        return controller.start_turn(text, self._open_turn)

    def _hold(self, text: str) -> bool:
        """Keep a message sent before :meth:`attach`, shown, to run once attached."""
        text = text.strip()
        if not text or self._pending is not None:
            return False
        self._pending = text
        self._pending_bubble = self.chat.add_user(text)
        self._early.append(self._pending_bubble)
        self.send_button.set_phase(ButtonPhase.INTERRUPT)
        return True

    def _open_turn(self, text: str) -> TurnView:
        from desktop_agent.ui.chat.turn_view import TurnView

        controller = self._controller
        assert controller is not None
        shown, self._pending_bubble = self._pending_bubble, None
        if shown is None:  # a held message is on screen already
            self.chat.add_user(text)
        return TurnView(
            self.chat,
            on_answer=controller.answer_approval,
            on_form_submit=self._answer_form,
            on_form_cancel=lambda form_id: self._answer_form(form_id, None),
            on_attention=self._attention,
            on_interrupted=controller.on_interrupted,
            on_card=lambda state: self.card_changed.emit(state.tool_call_id, state.phase),
            server_of=controller.deps.tool_server,
            annotations_of=controller.deps.tool_annotations,
            approval_timeout_s=controller.conversation.approval_timeout_s,
        )

    def _on_send(self) -> None:
        if self.send_text(self.input.toPlainText()):
            self.input.clear()
        elif self.input.toPlainText().strip():
            self.keys.say_busy()  # the model still replies: say so, keep the text

    def _on_phase(self, phase: ButtonPhase) -> None:
        self.send_button.set_phase(phase)

    def _on_turn_finished(self, status: TurnEnd) -> None:
        self.refresh_status()
        self.turn_finished.emit(status)

    def interrupt(self) -> None:
        """The Interrupt button: Interrupting… until ``interrupted`` arrives.
        Before :meth:`attach` it drops the held message, which never runs."""
        if self._controller is not None:
            self._controller.interrupt()
        elif self._pending is not None:
            self._pending = self._pending_bubble = None
            self._early.append(self.chat.add_system(self.texts.tr("sys_interrupted")))
            self.send_button.set_phase(ButtonPhase.SEND)

    def _on_fallback(self) -> None:
        """``interrupted`` never came: stop the turn task ourselves."""
        log.warning(
            "no 'interrupted' %d ms after the interrupt; cancelling the turn", self.send_button.fallback_ms
        )
        if self._controller is not None:
            self._controller.give_up_interrupt()

    # ---------------------------------------------------------- forms

    def _answer_form(self, form_id: str, answers: Mapping[str, Any] | None) -> None:
        controller, view = self._controller, self.view
        form = view.forms.get(form_id) if view is not None else None
        if controller is None or form is None:
            return
        reply = controller.answer_form(form_id, answers)
        if reply.error is not None:
            form.show_error(reply.error)
        elif reply.ended is not None:
            form.finish(reply.ended)

    def _attention(self, kind: str, ident: str, text: str) -> None:
        wait = WaitKind(kind)
        if wait == WaitKind.APPROVAL:
            self.keys.approval_shown(ident)
        if self.notifier is not None:
            self.notifier.attention(self.texts.tr("app_title"), text)
        self.waiting_for_user.emit(wait, ident)

    # -------------------------------------------------------- settings

    def set_always_allowed(self, key: str, allowed: bool) -> None:
        """``key``: an always-allow entry (``core.approval.allow_key``)."""
        if self._controller is not None:
            self._controller.set_always_allowed(key, allowed)

    def open_settings(self) -> SettingsDialog | None:
        from dataclasses import replace

        from desktop_agent.ui.settings.dialog import SettingsDialog
        from desktop_agent.ui.settings.hooks_page import HooksPage

        deps, controller = self._deps, self._controller
        if deps is None or controller is None:
            self._settings_wanted = True  # opens once attached (a moment, never the MCP servers)
            return None
        if deps.on_settings_opened is not None:
            deps.on_settings_opened()
        dialog = SettingsDialog(
            controller.settings, has_api_key=controller.has_api_key(), key_note=deps.key_note(),
            skills=deps.skills, skills_folder=deps.skills_folder, parent=self,
            stored_key=deps.get_api_key, mcp=deps.mcp.control() if deps.mcp is not None else None,
            preview_voice=deps.preview_voice, model_downloads=deps.voice.model_downloads, texts=self.texts,
        )
        dialog.appearance_changed.connect(self.retranslate)
        self.settings_dialog = dialog
        hooks = HooksPage(
            deps.hook_infos(controller.settings.hooks_enabled), texts=dialog.texts, folder=deps.hooks_folder
        )
        dialog.add_page("hooks_tab", hooks)  # a key: the title follows a language switch
        # The Hooks page's switches join the dialog's edit: one save, one settings path.
        dialog.saved.connect(
            lambda edit: self.apply_settings_edit(replace(edit, settings=hooks.apply_to(edit.settings)))
        )
        dialog.open()
        return dialog

    def apply_settings_edit(self, edit: SettingsEdit) -> None:
        before = self._controller.settings if self._controller is not None else None
        if self._controller is not None:
            self._controller.apply_edit(
                edit.settings, api_key=edit.api_key, forget_api_key=edit.forget_api_key
            )
        if self.voice is not None:
            self.voice.apply(edit.settings)
        apply_settings_appearance(self.texts, self.retranslate, before, edit.settings)
        reload_if_moved(self._deps.mcp if self._deps is not None else None, before, edit.settings)

    def retranslate(self, texts: Texts) -> None:
        """``texts`` (the language chosen) and the colours again, after
        Settings → Appearance: the one way in, which hands the new texts to the
        chat, the status bar, the welcome panel and the sidebar."""
        self.texts = texts
        self.setWindowTitle(texts.tr("app_title"))
        self.settings_button.setToolTip(texts.tr("settings_action"))
        self.new_chat_button.setToolTip(texts.tr("new_chat"))
        self.input.setPlaceholderText(texts.tr("input_placeholder"))
        self.send_button.retranslate(texts)
        self.mic.retranslate(texts)
        self.hands_free_button.retranslate(texts)
        self.audio.retranslate(texts)
        self.model_download.retranslate(texts)  # a failure or an offer says it again
        self.chat.retranslate(texts)  # cards, message actions, code blocks, system lines
        self.status.retranslate(texts)
        self.refresh_status()
        if self.welcome is not None:
            self.welcome.retranslate(texts)
        if self.conversations is not None:
            self.conversations.retranslate(texts)  # the sidebar
        apply_theme(self)

    def _on_model_changed(self, applied: AppliedSettings) -> None:
        self.status.set_model(applied.model, is_demo=applied.is_demo, demo_notice=applied.demo_notice)
        if self.welcome is not None:
            self.welcome.set_demo(applied.is_demo)

    def model_progress(self, progress: DownloadProgress) -> None:
        """A speech model download's progress callback (any thread); the
        final report hides the panel, :meth:`ModelDownloadPanel.failed` says why one failed."""
        self.model_download.post(progress)

    # ----------------------------------------------------------- audio

    def _push_audio(self) -> None:
        if self._controller is not None:
            self._controller.push_audio(self.audio.level(), self.audio.muted())

    def _on_muted(self, muted: bool) -> None:
        self._push_audio()
        if self._controller is not None:
            self._controller.save_muted(muted)

    def _on_volume_committed(self, volume: float) -> None:
        if self._controller is not None:
            self._controller.save_volume(volume)

    # --------------------------------------------------------- closing

    def closeEvent(self, event: QCloseEvent) -> None:
        self._status_timer.stop()
        if self.notifier is not None:
            self.notifier.close()
        event.accept()
        self.closed.emit()

    async def shutdown(self, timeout_s: float = 5.0) -> None:
        """Stop a running turn (interrupt, then cancel if it does not end)
        and save the conversation."""
        if self._controller is not None:
            await self._controller.shutdown(timeout_s)


def _warning_text(warning: str | Callable[[Texts], str], texts: Texts) -> str:
    """A start-up warning as the window says it, in ``texts``' language."""
    from desktop_agent.ui.shell.notice_wording import notice_text

    return f"**{texts.tr('warning')}:** {warning(texts) if callable(warning) else notice_text(texts, warning)}"
