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

Never frozen at start: the input takes text from the first moment (a
message sent before :meth:`attach` waits, shown: ``held_message.py``), and
Settings asked for then opens once attached (``window_settings.py``). The
composition root attaches as soon as the services are built, without
waiting for the MCP servers, which start in the background (the status bar
follows each one: ``server_watch.py``). Each turn's view opens through
``turn_opener.py``; ``window_layout.py`` places the widgets.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QTextCursor
from PySide6.QtWidgets import QMainWindow

from desktop_agent.texts import ENGLISH, Texts
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.input_box import InputBox
from desktop_agent.ui.chat.send_button import INTERRUPT_FALLBACK_MS, SendButton
from desktop_agent.ui.chat.turn_events import NoticeLevel, TurnEnd, WaitKind
from desktop_agent.ui.common.key_hints import SIDEBAR_KEY, key_text
from desktop_agent.ui.common.painting import paint_on_one_thread
from desktop_agent.ui.common.theme import SystemThemeFollower, apply_theme
from desktop_agent.ui.settings.glue import apply_settings_appearance
from desktop_agent.ui.shell.held_message import HeldMessage
from desktop_agent.ui.shell.notice_line import NoticeLine
from desktop_agent.ui.shell.server_watch import ServerWatch
from desktop_agent.ui.shell.status_bar import StatusBar
from desktop_agent.ui.shell.turn_opener import TurnOpener
from desktop_agent.ui.shell.window_keys import WindowKeys
from desktop_agent.ui.shell.window_layout import lay_out, symbol_button
from desktop_agent.ui.shell.window_settings import WindowSettings
from desktop_agent.ui.voice.audio_controls import AudioControls
from desktop_agent.ui.voice.mic_button import HandsFreeButton, MicButton, MicState
from desktop_agent.ui.voice.model_download import ModelDownloadPanel

if TYPE_CHECKING:
    import asyncio

    from desktop_agent.core.timers import Timers
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
    from desktop_agent.ui.shell.window_commands import WindowCommands
    from desktop_agent.ui.shell.window_deps import WindowDeps
    from desktop_agent.ui.voice.glue import VoiceGlue
    from desktop_agent.voice.stt.models import DownloadProgress

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    turn_finished = Signal(TurnEnd)
    card_changed = Signal(str, CardPhase)
    waiting_for_user = Signal(WaitKind, str)
    closed = Signal()
    attached = Signal()
    sending = Signal()

    def __init__(
        self, *, interrupt_fallback_ms: int = INTERRUPT_FALLBACK_MS, tray: bool | None = None,
        texts: Texts = ENGLISH, timers: Timers | None = None,
    ) -> None:
        paint_on_one_thread()  # before anything paints (a window built without run_gui: tests, benchmarks)
        super().__init__()
        self.texts = texts
        """The language this window speaks: handed to every widget it builds, and a new one
        to what is open on a language switch (:meth:`retranslate`)."""
        self.setWindowTitle(self.texts.tr("app_title"))
        self.resize(1100, 760)  # the sidebar (260 px) and a chat column as wide as before it
        self._deps: WindowDeps | None = None
        self._controller: TurnLogic[TurnView] | None = None
        self._turn_signals: TurnController[TurnView] | None = None
        self._opener: TurnOpener | None = None
        """How a turn's view opens, once attached."""
        self._tray = tray
        self.notifier: Notifier | None = None
        self._settings = WindowSettings(self, self)

        self.chat = ChatView(self.texts, self)
        self.input = InputBox(self.texts, self)
        self.send_button = SendButton(self.texts, self, fallback_ms=interrupt_fallback_ms, timers=timers)
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
        self.settings_button = symbol_button("⚙", self.texts.tr("settings_action"), self)
        self.new_chat_button = symbol_button("＋", self.texts.tr("new_chat"), self)
        self.new_chat_button.setVisible(False)
        self.sidebar_button = symbol_button("☰", self._sidebar_tip(self.texts), self)
        """Shows the conversations sidebar again after Ctrl+B hid it (visible only then)."""
        self.sidebar_button.setVisible(False)
        self.model_download = ModelDownloadPanel(self.texts, self)
        """The speech model's first-use download (hidden unless one runs or failed)."""
        self.notices = NoticeLine(self.texts, self)
        """Start-up notices above the input, each dismissible (not chat bubbles)."""
        self.body = lay_out(self, self.chat, self.model_download, self.input, above_input=self.notices, buttons=(
            self.mic, self.hands_free_button, self.send_button, self.audio, self.new_chat_button, self.settings_button,
        ), leading=(self.sidebar_button,))
        """The sidebar (once attached) and the conversation column."""
        self.commands: WindowCommands | None = None
        """The input's ``/`` and ``@`` lists and the app's ``/`` commands, once attached."""
        self.status = StatusBar(self.texts, self)
        self.setStatusBar(self.status)
        self._servers = ServerWatch(self.status)
        self._held = HeldMessage(self.chat, self.send_button, lambda: self.texts)
        """A message sent before :meth:`attach`; its first turn once attached."""

        self.keys = WindowKeys(self)
        """Esc, Shift+Esc, Enter while a reply runs, the approval keys and cards' focus, Settings and New."""
        self.input.submitted.connect(self._on_send)
        self.send_button.send_requested.connect(self._on_send)
        self.send_button.interrupt_requested.connect(self.interrupt)
        self.send_button.fallback_fired.connect(self._on_fallback)
        self.settings_button.clicked.connect(self.open_settings)
        self.new_chat_button.clicked.connect(self.new_conversation)
        apply_theme(self)
        self._theme = SystemThemeFollower(self)
        self.setAcceptDrops(True)  # an MCP bundle (bundle_drop.py)

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
        self._opener = opener = TurnOpener(
            self.chat, controller, self._held, on_card=self.card_changed.emit,
            on_waiting=self.waiting_for_user.emit, approval_shown=self.keys.approval_shown, attention=self._notify,
            send=self.send_text,
        )
        signals.turn_finished.connect(self._on_turn_finished)
        signals.phase_changed.connect(self.send_button.set_phase)
        signals.notice.connect(self.show_notice)
        signals.model_changed.connect(self._on_model_changed)
        signals.speaking_changed.connect(self.audio.set_speaking)
        signals.unsent.connect(self._give_back)
        if self.notifier is None:
            self.notifier = Notifier(self, tray_available=self._tray)
        self.audio.set_state(deps.settings.volume, deps.settings.muted)
        self.audio.drive(controller)
        self.status.set_model(deps.model_name, is_demo=deps.is_demo, demo_notice=deps.demo_notice)
        self.new_chat_button.setVisible(deps.keeper is not None)
        early = self._held.shown_early()
        if deps.conversation.events or deps.conversation.history_view():  # the log first: the history is made when needed
            from desktop_agent.ui.conversations.glue import draw

            draw(self, deps.conversation)  # as it looked live
            self.chat.move_to_end(early)  # what the user did meanwhile stays last
        self._add_welcome_and_actions(deps, signals, opener)  # after the restored conversation
        if deps.conversations is not None:
            from desktop_agent.ui.conversations.glue import ConversationsGlue

            self.conversations = ConversationsGlue(self, deps.conversations)
        self.notices.dismissals_changed.connect(self._save_dismissed)
        self.notices.show_start_up(deps.warnings, deps.settings.dismissed_notices)
        self._servers.follow(deps.mcp)
        from desktop_agent.ui.shell.window_commands import WindowCommands

        self.commands = WindowCommands(self, deps)
        from desktop_agent.ui.shell.resource_open import ResourceOpener

        self.resources = ResourceOpener(
            self, deps.mcp.read_resource if deps.mcp is not None else None, lambda: self.texts, self.show_notice
        )
        """Opens a tool card's MCP resource link."""
        self.chat.resource_requested.connect(self.resources.open)
        from desktop_agent.ui.voice.glue import VoiceGlue

        self.voice = VoiceGlue(self, deps.voice, deps.settings, sink=deps.sink)
        self.input.setFocus()
        pending = self._held.take()
        if pending is not None and not controller.start_turn(pending, opener):
            self.send_button.set_phase(controller.phase)
        self._settings.open_if_asked()
        self.attached.emit()

    def _add_welcome_and_actions(
        self, deps: WindowDeps, signals: TurnController[TurnView], opener: TurnOpener
    ) -> None:
        from desktop_agent.ui.chat.message_actions import ChatActions
        from desktop_agent.ui.shell.welcome import WelcomePanel

        self.welcome = WelcomePanel(is_demo=deps.is_demo, texts=self.texts)
        self.welcome.prompt_chosen.connect(self.send_text)
        self.welcome.connect_requested.connect(self.open_settings)
        self.chat.set_welcome(self.welcome)
        from desktop_agent.ui.conversations.glue import redraw_from

        self.chat_actions = ChatActions(self.chat, self.input, signals, opener, hint=self.status.showMessage,
                                        redraw=lambda turn: redraw_from(self, turn))

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

    def refresh_status(self) -> None:
        """Read the MCP servers' states again (the status bar)."""
        self._servers.refresh()

    def bring_forward(self) -> None:
        """Show the window in front (a second launch asked for it): restored
        if it was minimised, raised, and given the focus where the window
        manager allows it."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def _save_dismissed(self, keys: tuple[str, ...]) -> None:
        """The notice line's dismissals, kept in the settings for later sessions."""
        if self._controller is not None and keys != self._controller.settings.dismissed_notices:
            self._controller.save_settings(replace(self._controller.settings, dismissed_notices=keys))

    def _notify(self, text: str) -> None:
        """The tray's notification, while the window is inactive."""
        if self.notifier is not None:
            self.notifier.attention(self.texts.tr("app_title"), text)

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
        controller, opener = self._controller, self._opener
        if controller is None or opener is None:
            return self._held.hold(text)
        if self.conversations is not None and text.strip():
            self.conversations.show_end()  # after a search hit's window, the new message follows the real last one
        if self.chat_actions is not None and self.chat_actions.editing:
            return self.chat_actions.send_edited(text)  # it replaces the last exchange
        started = controller.start_turn(text, opener)
        if started and self.conversations is not None:
            self.conversations.sent(text)  # a new conversation is listed at once
        return started

    def _on_send(self) -> None:
        if self.commands is not None and self.commands.run_typed(self.input.toPlainText()):
            return  # /new, /settings, /help
        if self.send_text(self.input.toPlainText()):
            self.input.clear()
        elif self.input.toPlainText().strip():
            self.keys.say_busy()  # the model still replies: say so, keep the text

    def _give_back(self, text: str) -> None:
        """A message that was not sent after all (its MCP mentions did not
        expand): its text goes back to the input, before anything typed since."""
        typed = self.input.toPlainText()
        self.input.setPlainText(f"{text}\n{typed}" if typed.strip() else text)
        self.input.moveCursor(QTextCursor.MoveOperation.End)
        self.input.setFocus()

    def _on_turn_finished(self, status: TurnEnd) -> None:
        self.refresh_status()
        self.turn_finished.emit(status)

    def interrupt(self) -> None:
        """The Interrupt button: Interrupting… until ``interrupted`` arrives.
        Before :meth:`attach` it drops the held message, which never runs."""
        if self._controller is not None:
            self._controller.interrupt()
        else:
            self._held.drop()

    def _on_fallback(self) -> None:
        """``interrupted`` never came: stop the turn task ourselves."""
        log.warning(
            "no 'interrupted' %d ms after the interrupt; cancelling the turn", self.send_button.fallback_ms
        )
        if self._controller is not None:
            self._controller.give_up_interrupt()

    # -------------------------------------------------------- settings

    def set_always_allowed(self, key: str, allowed: bool) -> None:
        """``key``: an always-allow entry (``core.approval.allow_key``)."""
        if self._controller is not None:
            self._controller.set_always_allowed(key, allowed)

    @property
    def settings_dialog(self) -> SettingsDialog | None:
        """The Settings dialog opened last."""
        return self._settings.dialog

    def _bundle_target(self) -> Callable[[], SettingsDialog | None] | None:
        """Open Settings for a dropped MCP bundle, when the servers can be changed."""
        mcp = self._deps.mcp if self._deps is not None else None
        return self.open_settings if mcp is not None and mcp.control() is not None else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        from desktop_agent.ui.shell import bundle_drop  # the bundle code (and mcp) only when a drag comes

        bundle_drop.drag_enter(event, self._bundle_target())

    def dropEvent(self, event: QDropEvent) -> None:
        from desktop_agent.ui.shell import bundle_drop

        bundle_drop.drop(event, self._bundle_target())

    def open_settings(self) -> SettingsDialog | None:
        """Open Settings; None before :meth:`attach`, which then opens it."""
        return self._settings.open()

    def apply_settings_edit(self, edit: SettingsEdit) -> None:
        """What a Save changes (the turn logic, speech, appearance, servers)."""
        self._settings.apply(edit)

    def retranslate(self, texts: Texts) -> None:
        """``texts`` (the language chosen) and the colours again, after
        Settings → Appearance: the one way in, which hands the new texts to the
        chat, the status bar, the welcome panel and the sidebar."""
        self.texts = texts
        self.setWindowTitle(texts.tr("app_title"))
        self.settings_button.setToolTip(texts.tr("settings_action"))
        self.new_chat_button.setToolTip(texts.tr("new_chat"))
        self.sidebar_button.setToolTip(self._sidebar_tip(texts))
        self.input.retranslate(texts)
        self.send_button.retranslate(texts)
        self.mic.retranslate(texts)
        self.hands_free_button.retranslate(texts)
        self.audio.retranslate(texts)
        self.model_download.retranslate(texts)  # a failure or an offer says it again
        self.notices.retranslate(texts)
        self.chat.retranslate(texts)  # cards, message actions, code blocks, system lines
        self.status.retranslate(texts)
        self.refresh_status()
        if self.welcome is not None:
            self.welcome.retranslate(texts)
        if self.conversations is not None:
            self.conversations.retranslate(texts)  # the sidebar
        apply_theme(self)

    @staticmethod
    def _sidebar_tip(texts: Texts) -> str:
        return texts.tr("show_sidebar", shortcut=key_text(SIDEBAR_KEY))

    def _on_model_changed(self, applied: AppliedSettings) -> None:
        self.status.set_model(applied.model, is_demo=applied.is_demo, demo_notice=applied.demo_notice)
        if self.welcome is not None:
            self.welcome.set_demo(applied.is_demo)

    def model_progress(self, progress: DownloadProgress) -> None:
        """A speech model download's progress callback (any thread); the
        final report hides the panel, :meth:`ModelDownloadPanel.failed` says why one failed."""
        self.model_download.post(progress)

    # --------------------------------------------------------- closing

    def closeEvent(self, event: QCloseEvent) -> None:
        self._servers.stop()
        if self.notifier is not None:
            self.notifier.close()
        event.accept()
        self.closed.emit()

    async def shutdown(self, timeout_s: float = 5.0) -> None:
        """Stop a running turn (interrupt, then cancel if it does not end)
        and save the conversation."""
        if self._controller is not None:
            await self._controller.shutdown(timeout_s)

