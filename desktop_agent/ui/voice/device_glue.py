"""Connects the window's microphone (a
:class:`~desktop_agent.ui.voice.deferred_audio.DeferredMicrophone`) to speech
input and the mic button, for hot-plug:

- the pointer or the keyboard focus on the mic button starts watching the
  devices (``MicButton.about_to_use``), so a machine without a microphone
  shows the button unavailable, with the reason, before it is pressed —
  and an idle window still never loads QtMultimedia;
- no microphone makes speech input unavailable with the reason; one that
  appears makes it available at once (``VoiceInput.set_microphone``);
- the microphone unplugged while open (``VoiceInput.device_lost``): what it
  recorded of the user is kept and recognised, and one line says so.

What the speaker does when outputs come and go is the composition root's
(``app_speech.deferred_sink``): it owns the speaker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

if TYPE_CHECKING:
    from desktop_agent.ui.voice.deferred_audio import DeferredMicrophone
    from desktop_agent.ui.voice.mic_button import MicButton
    from desktop_agent.ui.voice.speech_input import VoiceInput


class DeviceGlue(QObject):
    """Needs of the window only its mic button (``mic``)."""

    def __init__(self, mic: MicButton, voice: VoiceInput, microphone: DeferredMicrophone) -> None:
        super().__init__(mic)
        self._mic, self._voice = mic, voice
        mic.about_to_use.connect(microphone.prepare)
        microphone.on_change = voice.set_microphone
        microphone.on_lost = self._lost

    def _lost(self, name: str) -> None:
        self._mic.cancel_hold()  # the release that follows ends nothing
        self._voice.device_lost(name)
