"""Connects speech input (:class:`~desktop_agent.ui.voice.speech_input.VoiceInput`,
over the core's voice session) to the main window: the mic button and the
hands-free switch, Space and Esc in the input, the transcript into the input
(sent, counted down, or left to review), the countdown and the approval
hint on a line above the input, the turn's start, end and speech, barge-in
as the Interrupt button, and approval by voice as the card's buttons — so
nothing here decides a turn. The recognisers and their models are
:class:`~desktop_agent.ui.voice.models.VoiceModels`'. It needs of the window
only what :class:`VoiceWindow` names (the main window is one).

The keys: Space held in an empty input talks (auto-repeat swallowed), its
release ends the utterance; Esc cancels what is heard or recognised, or
stops the countdown; any other key, or a click in the input, stops the
countdown and leaves the text to edit (Enter then sends it at once).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QObject, Qt, SignalInstance
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QBoxLayout, QLayout, QWidget

from desktop_agent.core.voice_output import OutputTap
from desktop_agent.core.voice_session import SEND_MODES, SendMode, VoiceConfig
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.chat.send_countdown import VoiceLine
from desktop_agent.ui.chat.turn_events import WaitKind
from desktop_agent.ui.chat.turn_state import ButtonPhase
from desktop_agent.ui.voice.mic_button import MicState
from desktop_agent.ui.voice.models import ModelsWindow, VoiceModels
from desktop_agent.ui.voice.speech_input import VoiceInput

if TYPE_CHECKING:
    from desktop_agent.core.ports import AudioSink
    from desktop_agent.storage.settings import Settings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.input_box import InputBox
    from desktop_agent.ui.chat.turn_controller import TurnController
    from desktop_agent.ui.chat.turn_view import TurnView
    from desktop_agent.ui.voice.feature import VoiceFeature
    from desktop_agent.ui.voice.mic_button import HandsFreeButton, MicButton


def voice_config(settings: Settings) -> VoiceConfig:
    send: SendMode = settings.voice_send if settings.voice_send in SEND_MODES else "countdown"
    return VoiceConfig(send=send, barge_in=settings.barge_in, barge_in_ms=settings.barge_in_ms,
                       barge_in_min_words=settings.barge_in_min_words)


class VoiceWindow(ModelsWindow, Protocol):
    """What speech input needs of the window: its input row's widgets, the
    turn's signals, and sending and interrupting as the user would."""

    @property
    def texts(self) -> Texts:
        """The language the window speaks now."""

    @property
    def mic(self) -> MicButton: ...

    @property
    def hands_free_button(self) -> HandsFreeButton: ...

    @property
    def input(self) -> InputBox: ...

    @property
    def view(self) -> TurnView | None:
        """The running turn's view (its cards)."""

    @property
    def turn_signals(self) -> TurnController[TurnView] | None: ...

    @property
    def turn_finished(self) -> SignalInstance: ...

    @property
    def card_changed(self) -> SignalInstance: ...

    @property
    def waiting_for_user(self) -> SignalInstance: ...

    @property
    def closed(self) -> SignalInstance: ...

    def send_text(self, text: str) -> bool: ...

    def interrupt(self) -> None: ...


class VoiceGlue(QObject):
    clock: Callable[[], float] = time.monotonic
    """The voice session's clock (the countdown); tests put a FakeClock's here."""

    def __init__(
        self, window: VoiceWindow, feature: VoiceFeature, settings: Settings, *, sink: AudioSink | None = None
    ) -> None:
        super().__init__(window.window())
        self._window = window
        self._space_talk = False
        self._say_line = feature.say
        voice = self.voice = VoiceInput(
            feature.audio_input, feature.recognizer, vad=feature.vad, answer_recognizer=feature.answer_recognizer,
            speak=self._say if feature.say is not None else None, config=voice_config(settings),
            unavailable=feature.note, clock=self.clock, texts=lambda: window.texts, parent=self,
        )  # fmt: skip
        self.models = VoiceModels(window, voice, feature, settings)
        if isinstance(sink, OutputTap):
            voice.attach_output(sink)  # our own voice is known to the echo gate
        self.line = VoiceLine(lambda: window.texts, window.window())
        _place_below(window.model_download, self.line)
        window.mic.set_state(MicState.UNAVAILABLE if not voice.available else MicState.IDLE, voice.reason)
        window.hands_free_button.setEnabled(voice.available)
        voice.state_changed.connect(self._on_state)
        voice.put_text.connect(self._put_text)
        voice.send_input.connect(self._send_input)
        voice.countdown.connect(self.line.show_countdown)
        voice.hint.connect(self.line.show_hint)
        voice.notice.connect(window.show_notice)
        voice.barge_in.connect(self._on_barge_in)
        voice.approval_answer.connect(self._on_approval_answer)
        window.mic.talk_started.connect(self.models.offer_if_needed)
        window.mic.talk_started.connect(voice.start_talk)
        window.mic.talk_ended.connect(voice.end_talk)
        window.hands_free_button.toggled.connect(self._on_hands_free)
        window.waiting_for_user.connect(self._on_waiting)
        window.card_changed.connect(self._on_card)
        window.turn_finished.connect(lambda _status: voice.set_busy(self._busy()))
        signals = window.turn_signals
        if signals is not None:
            signals.phase_changed.connect(lambda _phase: voice.set_busy(self._busy()))
            signals.speaking_changed.connect(voice.set_playing)
        window.input.installEventFilter(self)
        window.input.viewport().installEventFilter(self)
        window.closed.connect(voice.close)
        from desktop_agent.ui.voice.deferred_audio import DeferredMicrophone

        if isinstance(feature.audio_input, DeferredMicrophone):  # hot-plug: ui/voice/device_glue.py
            from desktop_agent.ui.voice.device_glue import DeviceGlue

            self.devices = DeviceGlue(window.mic, voice, feature.audio_input)
        if settings.hands_free and voice.available:
            window.hands_free_button.setChecked(True)

    @property
    def hearing(self) -> bool:
        """Esc is push-to-talk's: it cancels what is recorded or recognised."""
        return self.voice.mode == "talk" or self.voice.state == "recognising"

    def apply(self, settings: Settings) -> None:
        """Settings changed: how speech is sent, barge-in, and the engine
        (:meth:`VoiceModels.apply`)."""
        self.voice.configure(voice_config(settings))
        self.models.apply(settings)

    def _busy(self) -> bool:
        controller = self._window.controller
        return controller is not None and (controller.busy or controller.phase != ButtonPhase.SEND)

    async def _say(self, text: str) -> None:
        controller = self._window.controller
        say = self._say_line
        if say is not None and controller is not None and not controller.speech_muted:  # muted: shown only
            await say(text)

    def _on_state(self, state: MicState, reason: str) -> None:
        self._window.mic.set_state(state, reason)
        if state == MicState.UNAVAILABLE:
            self._window.hands_free_button.setChecked(False)
        self._window.hands_free_button.setEnabled(self.voice.available)

    def _on_hands_free(self, on: bool) -> None:
        self.voice.set_hands_free(on)
        controller = self._window.controller
        if controller is not None and on != controller.settings.hands_free:
            controller.save_settings(replace(controller.settings, hands_free=on))

    def _put_text(self, text: str) -> None:
        box = self._window.input
        existing = box.toPlainText().strip()
        box.setPlainText(f"{existing} {text}" if existing else text)
        box.moveCursor(box.textCursor().MoveOperation.End)
        box.setFocus()

    def _send_input(self) -> None:
        """What Enter does; a turn that could not start leaves the text there."""
        box = self._window.input
        if self._window.send_text(box.toPlainText()):
            box.clear()
        self.voice.set_busy(self._busy())

    def _on_barge_in(self) -> None:
        controller = self._window.controller
        if controller is not None and controller.busy:
            self._window.interrupt()

    def _on_waiting(self, kind: WaitKind, ident: str) -> None:
        view = self._window.view
        state = view.card_state(ident) if kind == WaitKind.APPROVAL and view is not None else None
        if state is not None:
            self.voice.ask_approval(ident, state.tool_name)

    def _on_card(self, tool_call_id: str, phase: CardPhase) -> None:
        if phase != CardPhase.APPROVAL:
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
        if kind == QEvent.Type.MouseButtonPress and self.line.counting:
            self.voice.input_touched()  # a click in the text: the user edits it
            return False
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease) or not isinstance(event, QKeyEvent):
            return False
        key = event.key()
        if key == Qt.Key.Key_Escape and kind == QEvent.Type.KeyPress and self.voice.cancel():
            self._space_talk = False
            self._window.mic.cancel_hold()
            return True
        if kind == QEvent.Type.KeyPress and self.line.counting:
            self.voice.input_touched()  # any key stops the countdown; it still does what it does
        if key != Qt.Key.Key_Space or event.modifiers() != Qt.KeyboardModifier.NoModifier:
            return False
        return self._space(event)

    def _space(self, event: QKeyEvent) -> bool:
        """Space held in an empty input talks; True when the key was taken."""
        if event.type() == QEvent.Type.KeyPress:
            if self._space_talk:
                return True  # auto-repeat while held
            if self._window.input.toPlainText() != "" or event.isAutoRepeat():
                return False
            self.models.offer_if_needed()
            if self.voice.start_talk():
                self._space_talk = True
                return True
            return False
        if self._space_talk:
            if not event.isAutoRepeat():
                self._space_talk = False
                self.voice.end_talk()
            return True
        return False


def _place_below(widget: QWidget, line: QWidget) -> None:
    """Put ``line`` right below ``widget`` in the layout that holds it (the
    model download panel, right above the input row)."""
    parent = widget.parentWidget()
    layout = _holding(parent.layout(), widget) if parent is not None else None
    if layout is not None:
        layout.insertWidget(layout.indexOf(widget) + 1, line)


def _holding(layout: QLayout | None, widget: QWidget) -> QBoxLayout | None:
    if layout is None:
        return None
    if isinstance(layout, QBoxLayout) and layout.indexOf(widget) >= 0:
        return layout
    for index in range(layout.count()):
        item = layout.itemAt(index)
        found = _holding(item.layout() if item is not None else None, widget)
        if found is not None:
            return found
    return None
