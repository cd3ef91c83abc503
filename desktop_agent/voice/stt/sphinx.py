"""Offline English recognition with pocketsphinx and the model its wheel
ships (no download).

Two modes. ``dictation`` uses the wheel's language model: weak on synthetic
speech (espeak-ng's "no" comes back "oh" or "um", "what time is it" as
"well i"), usable for short clear commands.
``answer`` decodes against a one-word JSGF grammar of approval answers, so
"no" cannot turn into "oh": what it hears is one of :data:`ANSWER_WORDS`,
or nothing. Only strong words are in it: with "sure" or "okay" in the
grammar, "I am not sure" came back "sure". Speech that fits no word comes
back empty or as a part of "go ahead" ("go", which is not a yes), so the
yes/no rules of :mod:`desktop_agent.core.voice_answer` still decide.

Decoding is blocking C code: it runs in a worker thread, one utterance at a
time per recognizer (a decoder is not thread-safe).
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Literal

from desktop_agent.core.ports import STTError
from desktop_agent.voice.pcm import RATE, resample16, to_mono16

if TYPE_CHECKING:
    from pocketsphinx import Decoder

SphinxMode = Literal["dictation", "answer"]
ANSWER_WORDS = ("yes", "yeah", "approve", "go ahead", "no", "nope", "reject", "stop")
_GRAMMAR = "#JSGF V1.0;\ngrammar answer;\npublic <answer> = " + " | ".join(ANSWER_WORDS) + ";\n"


class PocketsphinxRecognizer:
    """The :class:`~desktop_agent.core.ports.SpeechRecognizer` for pocketsphinx."""

    def __init__(self, mode: SphinxMode = "dictation") -> None:
        self.mode: SphinxMode = mode
        self._decoder: Decoder | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "pocketsphinx"

    async def transcribe(self, pcm16: bytes, sample_rate: int = RATE) -> str:
        if sample_rate != RATE:
            pcm16 = resample16(to_mono16(pcm16, "int16", 1), sample_rate).tobytes()
        return await asyncio.to_thread(self._decode, pcm16)

    def _decode(self, pcm16: bytes) -> str:
        with self._lock:
            decoder = self._decoder or self._load()
            try:
                decoder.start_utt()
                decoder.process_raw(pcm16, full_utt=True)
                decoder.end_utt()
            except RuntimeError as exc:
                raise STTError(f"pocketsphinx could not decode the audio: {exc}") from exc
            hyp = decoder.hyp()
            return hyp.hypstr.strip() if hyp is not None else ""

    def _load(self) -> Decoder:
        try:
            from pocketsphinx import Decoder
        except (ImportError, OSError) as exc:
            raise STTError(f"pocketsphinx is not usable: {exc}") from exc
        try:
            if self.mode == "answer":
                decoder = Decoder(samprate=RATE, lm=None, loglevel="FATAL")
                decoder.add_jsgf_string("answer", _GRAMMAR)
                decoder.activate_search("answer")
            else:
                decoder = Decoder(samprate=RATE, loglevel="FATAL")
        except (RuntimeError, ValueError) as exc:
            raise STTError(f"pocketsphinx could not load its English model: {exc}") from exc
        self._decoder = decoder
        return decoder
