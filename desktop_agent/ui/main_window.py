"""The main window: conversation, input, Send/Interrupt, mute and volume,
settings, status bar.

Signals:
    turn_finished(status: str)  a turn ended (``completed``, ``user``,
                                ``rejected``, ``approval_timeout``, ``error``,
                                ``cancelled``)
    card_changed(tool_call_id: str, phase: str)
                                a tool card appeared or changed phase
    waiting_for_user(kind: str, ident: str)
                                an approval (tool_call_id) or a form (form_id)
                                waits for the user
    closed()                    the window was closed; the owner then awaits
                                :meth:`MainWindow.shutdown`

The window is shown before the services — and even before asyncio — are
imported, which keeps start-up close to a bare Qt window; hence the
function-level imports below. :meth:`attach` then connects it to a
conversation. A turn runs as one asyncio task on the qasync loop; the core
decides, the window renders (:class:`TurnView`) and answers (approvals,
forms, interrupt).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QToolButton, QVBoxLayout, QWidget

from desktop_agent.ui.audio_controls import AudioControls
from desktop_agent.ui.chat_view import ChatView
from desktop_agent.ui.i18n import tr
from desktop_agent.ui.input_box import InputBox
from desktop_agent.ui.send_button import INTERRUPT_FALLBACK_MS, SendButton
from desktop_agent.ui.status_bar import StatusBar, server_views
from desktop_agent.ui.theme import apply_theme

if TYPE_CHECKING:
    import asyncio

    from desktop_agent.storage.settings import Settings
    from desktop_agent.ui.settings_dialog import SettingsDialog, SettingsEdit
    from desktop_agent.ui.tray import Notifier
    from desktop_agent.ui.turn_view import TurnView
    from desktop_agent.ui.window_deps import WindowDeps

log = logging.getLogger(__name__)

STATUS_REFRESH_MS = 3000
RESTORE_SHOWN = 60
"""How many messages of a restored conversation are drawn (all are kept)."""


class MainWindow(QMainWindow):
    turn_finished = Signal(str)
    card_changed = Signal(str, str)
    waiting_for_user = Signal(str, str)
    closed = Signal()

    def __init__(self, *, interrupt_fallback_ms: int = INTERRUPT_FALLBACK_MS, tray: bool | None = None) -> None:
        super().__init__()
        self.setWindowTitle(tr("app_title"))
        self.resize(880, 760)
        self._deps: WindowDeps | None = None
        self._settings: Settings | None = None
        self._tray = tray
        self.notifier: Notifier | None = None
        self._view: TurnView | None = None
        self._turn_task: asyncio.Task[None] | None = None

        self.chat = ChatView(self)
        self.input = InputBox(self)
        self.send_button = SendButton(self, fallback_ms=interrupt_fallback_ms)
        self.audio = AudioControls(self)
        self.settings_button = QToolButton(self)
        self.settings_button.setText("⚙")
        self.settings_button.setToolTip(tr("settings_action"))
        self.settings_button.setAutoRaise(True)
        font = self.settings_button.font()
        font.setPixelSize(18)
        self.settings_button.setFont(font)

        self.new_chat_button = QToolButton(self)
        self.new_chat_button.setText("＋")
        self.new_chat_button.setToolTip(tr("new_chat"))
        self.new_chat_button.setAutoRaise(True)
        self.new_chat_button.setFont(font)
        self.new_chat_button.setVisible(False)

        bottom = QHBoxLayout()
        bottom.setContentsMargins(12, 6, 12, 10)
        bottom.addWidget(self.input, 1)
        bottom.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.audio, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.new_chat_button, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignBottom)
        central = QWidget(self)
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.chat, 1)
        column.addLayout(bottom)
        self.setCentralWidget(central)
        self.status = StatusBar(self)
        self.setStatusBar(self.status)

        self.input.submitted.connect(self._on_send)
        self.send_button.send_requested.connect(self._on_send)
        self.send_button.interrupt_requested.connect(self.interrupt)
        self.send_button.fallback_fired.connect(self._on_fallback)
        self.audio.muted_changed.connect(self._on_muted)
        self.audio.volume_changed.connect(lambda _v: self._push_audio())
        self.audio.volume_committed.connect(self._on_volume_committed)
        self.settings_button.clicked.connect(self.open_settings)
        QShortcut(QKeySequence.StandardKey.Preferences, self, self.open_settings)
        self.new_chat_button.clicked.connect(self.new_conversation)
        QShortcut(QKeySequence.StandardKey.New, self, self.new_conversation)
        self._status_timer = QTimer(self)
        self._status_timer.setInterval(STATUS_REFRESH_MS)
        self._status_timer.timeout.connect(self.refresh_status)
        self._set_ready(False)
        apply_theme(self)

    def changeEvent(self, event: QEvent) -> None:
        # A system switch between light and dark reaches every window as an
        # application palette change (the platform theme swaps palettes).
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            apply_theme(self)
        super().changeEvent(event)

    # ----------------------------------------------------------- set-up

    def attach(self, deps: WindowDeps) -> None:
        """Connect the window to its conversation; input becomes possible."""
        from desktop_agent.ui.tray import Notifier

        self._deps = deps
        self._settings = deps.settings
        if self.notifier is None:
            self.notifier = Notifier(self, tray_available=self._tray)
        self.audio.set_state(deps.settings.volume, deps.settings.muted)
        self._push_audio()
        self.status.set_model(deps.model_name, is_demo=deps.is_demo, demo_notice=deps.demo_notice)
        self.new_chat_button.setVisible(deps.new_conversation is not None)
        if deps.conversation.history:
            self._show_history(deps.conversation.history)
        for warning in deps.warnings:
            self.chat.add_notice("warning", f"**{tr('warning')}:** {warning}")
        self.refresh_status()
        if deps.mcp_statuses is not None:
            self._status_timer.start()
        self._set_ready(True)
        self.input.setFocus()

    def _show_history(self, history: list[dict[str, Any]]) -> None:
        """Render a restored conversation: the user's and the assistant's
        words, and one line per tool call with the start of its result."""
        names: dict[str, str] = {}
        for message in history:
            for call in message.get("tool_calls") or ():
                names[str(call.get("id"))] = str(call.get("function", {}).get("name", ""))
        # Rendering costs ~6 ms a message: show the recent part, say the rest is kept.
        if len(history) > RESTORE_SHOWN:
            self.chat.add_system(tr("earlier_hidden", count=len(history) - RESTORE_SHOWN))
            history = history[-RESTORE_SHOWN:]
        for message in history:
            role, content = message.get("role"), message.get("content")
            if role == "user":
                self.chat.add_user(str(content or ""))
            elif role == "assistant":
                if content:
                    self.chat.add_assistant_text(str(content))
                    self.chat.end_bubble()
            elif role == "tool":
                summary = " ".join(str(content or "").split())[:120]
                name = names.get(str(message.get("tool_call_id")), "?")
                self.chat.add_system(tr("tool_line", name=name, summary=summary))
        self.chat.add_system(tr("restored"))

    def new_conversation(self) -> bool:
        """Start afresh (the New button): False while a turn runs."""
        deps = self._deps
        if deps is None or deps.new_conversation is None:
            return False
        task = self._turn_task
        if task is not None and not task.done():
            return False
        if deps.save_conversation is not None:
            deps.save_conversation(deps.conversation)
        self._deps = replace(deps, conversation=deps.new_conversation())
        self.chat.clear()
        self.input.setFocus()
        return True

    @property
    def deps(self) -> WindowDeps | None:
        return self._deps

    @property
    def settings(self) -> Settings:
        """The current settings (the window must be attached)."""
        if self._settings is None:
            raise RuntimeError("the window is not attached to its services yet")
        return self._settings

    @property
    def turn_task(self) -> asyncio.Task[None] | None:
        return self._turn_task

    @property
    def view(self) -> TurnView | None:
        return self._view

    def _set_ready(self, ready: bool) -> None:
        self.input.setEnabled(ready)
        self.send_button.setEnabled(ready and self.send_button.phase != "interrupting")
        self.settings_button.setEnabled(ready)

    def refresh_status(self) -> None:
        deps = self._deps
        if deps is not None and deps.mcp_statuses is not None:
            try:
                self.status.set_servers(server_views(deps.mcp_statuses()))
            except Exception:  # the status bar must never take the window down
                log.exception("could not read the MCP server states")

    # ------------------------------------------------------------ turns

    def send_text(self, text: str) -> bool:
        """Start a turn with ``text`` (what Enter does); False when the
        window cannot take it now (not attached, empty, a turn running)."""
        import asyncio

        from desktop_agent.ui.turn_view import TurnView

        text = text.strip()
        if not text or self._deps is None or self.send_button.phase == "interrupting":
            return False
        task = self._turn_task
        previous = task if task is not None and not task.done() else None
        if previous is not None and self._view is not None and not self._view.tracker.interrupted_seen:
            return False  # a turn is running; the button says Interrupt
        self.chat.add_user(text)
        self.send_button.set_phase("interrupt")  # at once: the click was heard
        view = TurnView(
            self.chat,
            on_answer=self._on_card_answered,
            on_form_submit=lambda form_id, answers: self._answer_form(form_id, answers),
            on_form_cancel=lambda form_id: self._answer_form(form_id, None),
            on_attention=self._attention,
            on_interrupted=self._on_interrupted,
            on_card=lambda state: self.card_changed.emit(state.tool_call_id, state.phase),
        )
        if previous is None:
            self._view = view  # Interrupt works from the first moment
        self._turn_task = asyncio.ensure_future(self._run_turn(text, view, previous))
        return True

    def _on_send(self) -> None:
        if self.send_text(self.input.toPlainText()):
            self.input.clear()

    async def _run_turn(self, text: str, view: TurnView, previous: asyncio.Task[None] | None) -> None:
        import asyncio

        deps = self._deps
        assert deps is not None
        me = asyncio.current_task()
        status = "error"
        if previous is not None:  # the interrupted turn is still handing in its results
            await asyncio.gather(previous, return_exceptions=True)
            self._view = view
        try:
            outcome = await deps.conversation.run_turn(text, view, sink=deps.sink, auto_approve=self._auto_approve)
            status = outcome.status
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except Exception as exc:  # the turn's boundary in the UI: show, log, carry on
            log.exception("the turn failed")
            self.chat.add_notice("error", f"**{tr('error')}:** {exc}")
        finally:
            view.finish()
            if self._view is view:
                self._view = None
            if self._turn_task is me:
                self._turn_task = None
                self.send_button.set_phase("send")
            self.refresh_status()
            self.turn_finished.emit(status)

    def _auto_approve(self, tool_name: str) -> bool:
        return tool_name in self.settings.always_allow

    def interrupt(self) -> None:
        """The Interrupt button: Interrupting… until ``interrupted`` arrives."""
        deps, view = self._deps, self._view
        if deps is None or view is None:
            return
        view.tracker.interrupt_clicked()
        self.send_button.set_phase("interrupting")
        if not deps.conversation.interrupt():
            # Nothing was running any more (only the tail of the turn): done.
            self.send_button.set_phase("send")

    def _on_interrupted(self, _reason: str) -> None:
        if self.send_button.phase != "send":
            self.send_button.set_phase("send")

    def _on_fallback(self) -> None:
        """``interrupted`` never came: stop the turn task ourselves."""
        log.warning("no 'interrupted' %d ms after the interrupt; cancelling the turn", self.send_button.fallback_ms)
        view, task = self._view, self._turn_task
        if view is not None:
            view.invalidate_pending()
            key = view.tracker.on_interrupted("user")
            if key is not None:
                self.chat.add_system(tr(key))
        if task is not None and not task.done():
            task.cancel()

    # ------------------------------------------------ approvals, forms

    def _on_card_answered(self, tool_call_id: str, approved: bool, always: bool) -> None:
        deps, view = self._deps, self._view
        if deps is None or view is None:
            return
        state = view.card_state(tool_call_id)
        if state is None or state.task_id is None:
            return
        if approved and always:
            self.set_always_allowed(state.tool_name, True)
        view.mark_answered(tool_call_id, approved)
        if not deps.conversation.answer_approval(state.task_id, approved):
            view.invalidate_pending()
            self.chat.add_system(tr("sys_approval_lost"))

    def _answer_form(self, form_id: str, answers: dict[str, Any] | None) -> None:
        from desktop_agent.core.forms import FormAnswerError

        deps, view = self._deps, self._view
        form = view.forms.get(form_id) if view is not None else None
        if deps is None or form is None:
            return
        try:
            ok = deps.forms.respond(form_id, answers)
        except FormAnswerError as exc:
            form.show_error(str(exc))
            return
        form.finish(("submitted" if answers is not None else "cancelled") if ok else "closed")

    def _attention(self, kind: str, ident: str, text: str) -> None:
        if self.notifier is not None:
            self.notifier.attention(tr("app_title"), text)
        self.waiting_for_user.emit(kind, ident)

    # -------------------------------------------------------- settings

    def set_always_allowed(self, tool_name: str, allowed: bool) -> None:
        self._save_settings(self.settings.with_allowed(tool_name, allowed))

    def _save_settings(self, settings: Settings) -> bool:
        self._settings = settings
        deps = self._deps
        if deps is None:
            return False
        try:
            deps.settings_store.save(settings)
        except (OSError, ValueError) as exc:
            log.error("could not save the settings: %s", exc)
            self.chat.add_notice("error", tr("settings_saved_error", error=exc))
            return False
        if deps.on_settings_saved is not None:
            deps.on_settings_saved(settings)
        return True

    def open_settings(self) -> SettingsDialog | None:
        from desktop_agent.ui.settings_dialog import SettingsDialog

        deps = self._deps
        if deps is None:
            return None
        try:
            has_key = bool(deps.get_api_key())
        except Exception:  # a broken keyring must not stop the dialog
            log.exception("could not read the API key")
            has_key = False
        dialog = SettingsDialog(self.settings, has_api_key=has_key, key_note=deps.key_note, parent=self)
        dialog.saved.connect(self.apply_settings_edit)
        dialog.open()
        return dialog

    def apply_settings_edit(self, edit: SettingsEdit) -> None:
        deps = self._deps
        if deps is None or not self._save_settings(edit.settings):
            return
        if deps.set_api_key is not None and (edit.api_key or edit.forget_api_key):
            try:
                deps.set_api_key(edit.api_key)
            except Exception as exc:  # keyring errors vary by backend
                log.error("could not store the API key: %s", type(exc).__name__)
                self.chat.add_notice("error", tr("settings_saved_error", error=type(exc).__name__))
        if deps.apply_settings is not None:
            # Endpoint, model, key and speech apply from the next request.
            applied = deps.apply_settings(edit.settings)
            self.status.set_model(applied.model, is_demo=applied.is_demo, demo_notice=applied.demo_notice)
            if applied.error:
                self.chat.add_notice("error", applied.error)
        else:
            agent = deps.conversation.agent
            agent.max_steps = edit.settings.max_steps
            agent.speak_every_reply = edit.settings.speak_every_reply
            deps.conversation.approval_timeout_s = edit.settings.approval_timeout_s

    # ----------------------------------------------------------- audio

    def _push_audio(self) -> None:
        sink = self._deps.sink if self._deps is not None else None
        set_muted = getattr(sink, "set_muted", None)
        set_volume = getattr(sink, "set_volume", None)
        if set_muted is not None:
            set_muted(self.audio.muted())
        if set_volume is not None:
            set_volume(self.audio.level())

    def _on_muted(self, muted: bool) -> None:
        self._push_audio()
        self._save_settings(replace(self.settings, muted=muted))

    def _on_volume_committed(self, volume: float) -> None:
        if volume != self.settings.volume:
            self._save_settings(replace(self.settings, volume=volume))

    # --------------------------------------------------------- closing

    def closeEvent(self, event: QCloseEvent) -> None:
        self._status_timer.stop()
        if self.notifier is not None:
            self.notifier.close()
        event.accept()
        self.closed.emit()

    async def shutdown(self, timeout_s: float = 5.0) -> None:
        """Stop a running turn (interrupt, then cancel if it does not end)."""
        import asyncio

        task = self._turn_task
        if task is None or task.done():
            return
        if self._deps is not None:
            self._deps.conversation.interrupt()
        done, _pending = await asyncio.wait({task}, timeout=timeout_s)
        if not done:
            log.warning("the turn did not end within %ss of the interrupt; cancelling it", timeout_s)
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)
