"""A recording is never lost because the chosen engine's model is not here.

When the engine the user chose cannot hear yet (its model is still
downloading, the download failed, it was never fetched), what was said is
kept and either recognised now by the best engine that can (the transcript
says which) or held until the model arrives. :func:`best_available` is that
decision, pure, for the window and the headless mode alike;
:class:`RecognizerChain` applies it to recognisers: the chosen one first,
and on a failed download the others in order of preference.

Preference: Whisper (Chinese and English, the most accurate), SenseVoice
(Chinese and English), a transcription endpoint (needs the network the
failed download may have lacked: it is tried, and passed over if it fails),
pocketsphinx (English only, always there: its model is in its wheel).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from desktop_agent.core.ports import SpeechRecognizer, STTError
from desktop_agent.voice.pcm import RATE
from desktop_agent.voice.stt.download_errors import ModelDownloadError

PREFERENCE = ("whisper", "sensevoice", "openai", "pocketsphinx")
"""Engines from the best to the last resort."""

EngineState = Literal["ready", "downloading", "needs_download", "failed"]


@dataclass(frozen=True)
class EngineStatus:
    name: str
    """``whisper``, ``sensevoice``, ``openai``, ``pocketsphinx``."""
    state: EngineState
    """``ready``: can recognise now; ``downloading``: its model is on its
    way; ``needs_download``: its model is not here and not coming;
    ``failed``: its download failed."""


@dataclass(frozen=True)
class RecogniseWith:
    """Recognise the recording now with ``engine``."""

    engine: str
    instead_of: str | None = None
    """The chosen engine, when ``engine`` stands in for it."""
    type: Literal["recognise"] = "recognise"


@dataclass(frozen=True)
class HoldRecording:
    """Keep the recording until ``engine``'s model arrives (or the user
    retries the download or picks another source)."""

    engine: str
    type: Literal["hold"] = "hold"


Decision = RecogniseWith | HoldRecording


def best_available(chosen: EngineStatus, others: Sequence[EngineStatus]) -> Decision:
    """What to do with a recording the ``chosen`` engine was meant to hear.

    Ready: it hears it. Downloading: hold it (the model is coming; a
    stand-in would hear Chinese as English gibberish). Otherwise the first
    ready engine of :data:`PREFERENCE` hears it, and says it stood in; with
    none ready, hold it."""
    if chosen.state == "ready":
        return RecogniseWith(chosen.name)
    if chosen.state == "downloading":
        return HoldRecording(chosen.name)
    ready = {s.name for s in others if s.state == "ready" and s.name != chosen.name}
    for name in PREFERENCE:
        if name in ready:
            return RecogniseWith(name, instead_of=chosen.name)
    return HoldRecording(chosen.name)


def status_of(recognizer: SpeechRecognizer) -> EngineStatus:
    """A recogniser's state from what it says of itself: one with a model
    to download has ``ready``; the others (pocketsphinx, an endpoint) are
    always ready."""
    ready = getattr(recognizer, "ready", True)
    return EngineStatus(recognizer.name, "ready" if ready else "needs_download")


@dataclass(frozen=True)
class Recognised:
    text: str
    engine: str
    """The engine that heard it (the ``transcript`` message's ``engine``)."""
    failure: ModelDownloadError | None = None
    """Why the chosen engine could not (``engine`` stood in for it)."""


class RecognizerChain:
    """The chosen recogniser, and the ones that may stand in for it when its
    model cannot be downloaded. ``on_stand_in(failure, engine)`` is told
    once a stand-in has heard the recording (the headless mode prints one
    line: the source, the reason, which engine heard it instead)."""

    def __init__(
        self,
        chosen: SpeechRecognizer,
        stand_ins: Sequence[SpeechRecognizer] = (),
        *,
        on_stand_in: Callable[[ModelDownloadError, str], None] | None = None,
    ) -> None:
        self.chosen = chosen
        self.stand_ins = [r for r in stand_ins if r.name != chosen.name]
        self.on_stand_in = on_stand_in

    async def recognise(self, pcm16: bytes, sample_rate: int = RATE) -> Recognised:
        """The chosen engine's text; on a failed download, the best ready
        stand-in's. Raises the download's :class:`ModelDownloadError` when
        no stand-in could hear it (the caller still has the recording), and
        any other :class:`STTError` of the chosen engine as it is."""
        try:
            return Recognised(await self.chosen.transcribe(pcm16, sample_rate), self.chosen.name)
        except ModelDownloadError as failure:
            tried: set[str] = set()
            while True:
                decision = best_available(
                    EngineStatus(self.chosen.name, "failed"),
                    [s for s in map(status_of, self.stand_ins) if s.name not in tried],
                )
                if not isinstance(decision, RecogniseWith):
                    raise failure
                tried.add(decision.engine)
                stand_in = next(r for r in self.stand_ins if r.name == decision.engine)
                try:
                    text = await stand_in.transcribe(pcm16, sample_rate)
                except STTError:
                    continue  # the next one (an endpoint may need the network that failed)
                if self.on_stand_in is not None:
                    self.on_stand_in(failure, stand_in.name)
                return Recognised(text, stand_in.name, failure)
