"""Connects :class:`~desktop_agent.ui.voice_input.VoiceInput` to the main
window: the mic button and hands-free switch, Space/Esc in an empty input,
transcripts into the input (sent at once or left to edit), the turn's
start and end, barge-in as the Interrupt button, and approval by voice.

The keys: Space held in an empty input talks (auto-repeat swallowed), its
release ends the utterance; Esc cancels what is heard or recognised.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent

from desktop_agent.core.ports import STTError
from desktop_agent.ui.i18n import tr
from desktop_agent.ui.voice_input import VoiceInput

if TYPE_CHECKING:
    from desktop_agent.storage.settings import Settings
    from desktop_agent.ui.main_window import MainWindow
    from desktop_agent.ui.mic_button import MicState
    from desktop_agent.ui.window_deps import WindowDeps


def _engine_settings(settings: Settings) -> tuple[str, ...]:
    """The settings that choose and configure the recognisers."""
    return (settings.stt_engine, settings.stt_base_url, settings.stt_model, settings.stt_model_base_url,
            settings.stt_model_dir, settings.base_url)


class VoiceGlue(QObject):
    def __init__(self, window: MainWindow, deps: WindowDeps) -> None:
        super().__init__(window)
        self._preparing: set[asyncio.Task[None]] = set()
        self._window = window
        self._space_talk = False
        settings = deps.settings
        self.voice = VoiceInput(
            deps.audio_input,
            deps.recognizer,
            vad=deps.vad,
            answer_recognizer=deps.answer_recognizer,
            unavailable=deps.speech_input_note,
            parent=self,
        )
        self._make_recognizers = deps.make_recognizers
        self._engine = _engine_settings(settings)
        self._listen_to_downloads(deps.recognizer)
        self.apply(settings)
        voice = self.voice
        self._say_line = deps.say
        if deps.say is not None:
            voice.speak = self._say
        window.mic.set_state("unavailable" if not voice.available else "idle", voice.reason)
        window.hands_free_button.setEnabled(voice.available)
        voice.state_changed.connect(self._on_state)
        voice.transcript.connect(self._on_transcript)
        voice.notice.connect(window.show_notice)
        voice.barge_in.connect(self._on_barge_in)
        voice.approval_answer.connect(self._on_approval_answer)
        window.mic.talk_started.connect(voice.start_talk)
        window.mic.talk_ended.connect(voice.end_talk)
        window.hands_free_button.toggled.connect(self._on_hands_free)
        window.waiting_for_user.connect(self._on_waiting)
        window.card_changed.connect(self._on_card)
        window.turn_finished.connect(lambda _status: voice.set_busy(False))
        controller = window.controller
        if controller is not None:
            controller.phase_changed.connect(lambda phase: voice.set_busy(phase != "send" or controller.busy))
        window.input.installEventFilter(self)
        window.closed.connect(voice.close)
        window.model_download.cancel_requested.connect(self._cancel_download)
        if settings.hands_free and voice.available:
            window.hands_free_button.setChecked(True)

    def apply(self, settings: Settings) -> None:
        """Settings changed (or first read). Another recognition engine (or
        its endpoint, model, model folder) is used at once, no restart; a
        SenseVoice model not yet on disk starts downloading now, its
        progress shown, rather than at the first utterance."""
        self.voice.send_at_once = settings.voice_send_at_once
        self.voice.barge_in_ms = settings.barge_in_ms if settings.barge_in else None
        engine = _engine_settings(settings)
        if engine == self._engine or self._make_recognizers is None:
            return
        self._engine = engine
        recognizer, answers, reason = self._make_recognizers(settings)
        self._listen_to_downloads(recognizer)
        self.voice.set_recognizers(recognizer, answers, reason)
        window = self._window
        window.mic.set_state("unavailable" if not self.voice.available else "idle", self.voice.reason)
        window.hands_free_button.setEnabled(self.voice.available)
        prepare = getattr(recognizer, "prepare", None)
        if prepare is not None and not getattr(recognizer, "ready", True):
            task = asyncio.ensure_future(self._prepare(prepare))
            self._preparing.add(task)
            task.add_done_callback(self._preparing.discard)

    def _listen_to_downloads(self, recognizer: object) -> None:
        """A recogniser that downloads its model reports to the window's
        panel: progress, and why it failed."""
        if recognizer is not None and hasattr(recognizer, "on_progress"):
            recognizer.on_progress = self._window.model_progress
            if hasattr(recognizer, "on_failure"):
                recognizer.on_failure = self._window.model_download.failed

    def _cancel_download(self) -> None:
        """The panel's Cancel: stop the download, whether Settings started it
        or an utterance waits for it (what was heard is dropped)."""
        for task in list(self._preparing):
            task.cancel()
        if self.voice.state == "recognising":
            self.voice.cancel()

    async def _prepare(self, prepare: Callable[[], Awaitable[None]]) -> None:
        try:
            await prepare()
        except STTError as exc:
            if self._window.model_download.state != "failed":  # a download failure is on the panel already
                self._window.show_notice("warning", functools.partial(tr, "mic_stt_error", error=str(exc)))

    async def _say(self, text: str) -> None:
        controller = self._window.controller
        say = self._say_line
        if say is not None and controller is not None and not controller.speech_muted:  # muted: shown only
            await say(text)

    def _on_state(self, state: str, reason: str) -> None:
        mic_state: MicState = state if state in ("idle", "listening", "recognising", "unavailable") else "idle"  # type: ignore[assignment]
        self._window.mic.set_state(mic_state, reason)
        if state == "unavailable":
            self._window.hands_free_button.setChecked(False)
            self._window.hands_free_button.setEnabled(False)

    def _on_hands_free(self, on: bool) -> None:
        self.voice.set_hands_free(on)
        controller = self._window.controller
        if controller is not None and on != controller.settings.hands_free:
            from dataclasses import replace

            controller.save_settings(replace(controller.settings, hands_free=on))

    def _on_transcript(self, text: str, send: bool) -> None:
        box = self._window.input
        existing = box.toPlainText().strip()
        combined = f"{existing} {text}" if existing else text
        if send and self._window.send_text(combined):
            box.clear()
            return
        box.setPlainText(combined)
        box.moveCursor(box.textCursor().MoveOperation.End)
        box.setFocus()

    def _on_barge_in(self) -> None:
        controller = self._window.controller
        if controller is not None and controller.busy:
            self._window.interrupt()

    def _on_waiting(self, kind: str, ident: str) -> None:
        view = self._window.view
        state = view.card_state(ident) if kind == "approval" and view is not None else None
        if state is not None:
            self.voice.ask_approval(ident, state.tool_name)

    def _on_card(self, tool_call_id: str, phase: str) -> None:
        if phase != "approval":
            self.voice.drop_approval(tool_call_id)

    def _on_approval_answer(self, tool_call_id: str, approved: bool) -> None:
        window = self._window
        view, controller = window.view, window.controller
        if view is None or controller is None:
            return
        view.note_voice_answer(tool_call_id)
        controller.answer_approval(tool_call_id, approved, by="voice")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease) or not isinstance(event, QKeyEvent):
            return False
        key = event.key()
        hearing = self.voice.mode == "talk" or self.voice.state == "recognising"
        if key == Qt.Key.Key_Escape and kind == QEvent.Type.KeyPress and hearing:
            self._space_talk = False
            self._window.mic.cancel_hold()
            self.voice.cancel()
            return True
        if key != Qt.Key.Key_Space or event.modifiers() != Qt.KeyboardModifier.NoModifier:
            return False
        if kind == QEvent.Type.KeyPress:
            if self._space_talk:
                return True  # auto-repeat while held
            if self._window.input.toPlainText() == "" and not event.isAutoRepeat() and self.voice.start_talk():
                self._space_talk = True
                return True
            return False
        if self._space_talk:
            if not event.isAutoRepeat():
                self._space_talk = False
                self.voice.end_talk()
            return True
        return False
