"""Speech input (issue 11): recognisers behind core's ``SpeechRecognizer``
port — ``pocketsphinx`` (offline English, a yes/no grammar for approvals)
and ``openai`` (``/audio/transcriptions``) — and the audio they take.

Microphone capture and voice activity detection are elsewhere
(:mod:`desktop_agent.voice.vad`, the window); this package only recognises.
"""

from desktop_agent.voice.stt.audio import pcm_to_wav, read_speech_wav
from desktop_agent.voice.stt.factory import STT_ENGINE_NAMES, build_recognizer
from desktop_agent.voice.stt.openai_stt import DEFAULT_STT_MODEL, OpenAIRecognizer
from desktop_agent.voice.stt.sphinx import ANSWER_WORDS, PocketsphinxRecognizer

__all__ = [
    "ANSWER_WORDS",
    "DEFAULT_STT_MODEL",
    "STT_ENGINE_NAMES",
    "OpenAIRecognizer",
    "PocketsphinxRecognizer",
    "build_recognizer",
    "pcm_to_wav",
    "read_speech_wav",
]
