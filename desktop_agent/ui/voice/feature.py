"""Speech input as the composition root hands it to the window: one typed
object (the microphone, the recognisers, the voice activity detector, the
spoken question's voice, the models' downloads). A feature with no
microphone or no recogniser is speech input that is unavailable: the mic
button says why (``note``). Type-only imports: the window imports this
before it shows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_agent.core.ports import AudioInput, SpeechRecognizer
    from desktop_agent.core.utterance import FrameClassifier
    from desktop_agent.storage.settings import Settings
    from desktop_agent.voice.downloads import ModelDownloads


RecognizerFactory = Callable[["Settings"], tuple["SpeechRecognizer | None", "SpeechRecognizer | None", "str | None"]]
"""Settings → the dictation recogniser, the answers recogniser, why none."""


@dataclass(frozen=True)
class VoiceFeature:
    audio_input: AudioInput | None = None
    """The microphone; None: speech input is unavailable."""
    recognizer: SpeechRecognizer | None = None
    """Speech to text; None disables the mic button (the reason in its tooltip)."""
    answer_recognizer: SpeechRecognizer | None = None
    """Hears spoken approval answers (a yes/no grammar where the engine has
    one); None: ``recognizer`` does."""
    make_recognizers: RecognizerFactory | None = None
    """Builds the recognisers for other settings (dictation, answers, why
    none): the Settings dialog switches engines without a restart. None:
    they stay as they are (no microphone, say)."""
    vad: Callable[[], FrameClassifier] | None = None
    """A fresh voice activity detector (hands-free, barge-in, approval by voice)."""
    note: str | None = None
    """Why speech input is unavailable, when the composition root knows."""
    say: Callable[[str], Awaitable[None]] | None = None
    """Synthesise one line and play it, returning when it ended (the spoken
    approval question); None: it is only shown."""
    model_downloads: ModelDownloads | None = None
    """The window's speech model downloads (Settings → Voice, the panel
    above the input, a recogniser fetching its model): one state for all."""


__all__ = ["RecognizerFactory", "VoiceFeature"]
