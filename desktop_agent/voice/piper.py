"""Piper adapter: natural neural speech, offline (piper-tts on onnxruntime).

Two voices: a Chinese one for segments with a Han character and an English
one for the others (:func:`desktop_agent.voice.text.is_chinese`, as the
other engines choose). Where each voice is, and the download of one that is
missing, is :mod:`desktop_agent.voice.piper_voices`; loading one is
:mod:`desktop_agent.voice.piper_load`.

All of Piper's work (loading a voice, ~1 s; synthesis) runs on one worker
thread per engine, never on the event loop, one segment at a time in the
order they were asked for: on two cores, segments synthesised side by side
would each take twice as long and the first would start later. Piper
synthesises a text sentence by sentence; each sentence's 16-bit PCM is fed
into a :class:`~desktop_agent.core.speech_stream.SpeechStream` as it comes,
and :meth:`PiperEngine.open_stream` returns at the first one, so playback
starts after the first sentence, not the last. The first sentence's first
clause ("Sure," of "Sure, let me check.") is synthesised on its own: the
first sound then waits for a clause, not a sentence (Piper's time grows with
the audio it makes, ~0.2 s per second of speech on two cores; measured in
``benchmarks/piper_latency.py``). Cancelling the stream stops the worker
between pieces (Piper's inference of one cannot be interrupted; a sentence
is a few hundred ms of CPU at most).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.voice.edge import check_percent
from desktop_agent.voice.piper_voices import (
    DEFAULT_VOICES,
    VoiceError,
    VoiceLanguage,
    VoiceState,
    download_voice,
    voice_state,
)
from desktop_agent.voice.stt.models import ModelDownloadError, ModelStore, ProgressCallback, default_store
from desktop_agent.voice.text import is_chinese, one_line

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)

MIME = "audio/wav"
_FIRST_CLAUSE = re.compile(r"^([^.!?。！？]*?\w[^.!?。！？]*?(?:[,;:](?=\s)|[，；：、]))\s*(?=\w)", re.UNICODE)
"""The first sentence's first clause, ending at a comma, semicolon or colon
(an ASCII one before a blank, so "3,000" and "10:30" stay whole), with a
word before it and one after."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class _Job:
    """One segment's synthesis, as the worker thread sees it."""

    text: str
    model: Path
    language: VoiceLanguage
    stop: threading.Event
    loop: asyncio.AbstractEventLoop
    deliver: Callable[[bytes, int], None]
    end: Callable[[str | None], None]


class PiperEngine:
    """:class:`~desktop_agent.core.ports.StreamingTTSEngine` over piper-tts.

    ``english`` / ``chinese``: a catalogue voice name or a ``FILE.onnx``
    (empty: :data:`~desktop_agent.voice.piper_voices.DEFAULT_VOICES`).
    ``rate`` and ``volume`` take the edge-tts ``+10%`` form, like espeak-ng.
    ``download``: fetch a missing catalogue voice at its first use (False in
    ``auto``, which never waits for a download in the middle of a reply: it
    asks :meth:`can_speak` first). ``source`` / ``base_url``: where from
    (see :mod:`desktop_agent.voice.piper_voices`); ``on_progress`` hears it.
    """

    def __init__(
        self,
        english: str = "",
        chinese: str = "",
        *,
        rate: str = "+0%",
        volume: str = "+0%",
        store: ModelStore | None = None,
        download: bool = True,
        source: str = "huggingface",
        base_url: str = "",
        on_progress: ProgressCallback | None = None,
        threads: int | None = None,
    ) -> None:
        self._refs: dict[VoiceLanguage, str] = {
            "en": english.strip() or DEFAULT_VOICES["en"],
            "zh": chinese.strip() or DEFAULT_VOICES["zh"],
        }
        self._rate = check_percent("rate", rate)
        self._volume = check_percent("volume", volume)
        self._store = store
        self._download = download
        self._source = source
        self._base_url = base_url
        self.on_progress = on_progress
        self._threads = threads
        self._executor_made: ThreadPoolExecutor | None = None
        """Made at the first use (and ``piper_load`` imported then): an idle
        window that never speaks offline loads none of it."""
        self._voices: dict[tuple[Path, VoiceLanguage], Any] = {}
        """Loaded voices, by file and the language they speak here (one
        file may serve both slots; only the Chinese one is probed for
        Mandarin). Touched by the worker thread only."""
        self._broken: dict[tuple[Path, VoiceLanguage], str] = {}
        """Voices that failed to load, and why: not tried again."""
        self._downloads: dict[str, asyncio.Task[Path]] = {}
        self.chunks_made = 0
        """Pieces (sentences, or a first clause) synthesised so far; tests
        and the benchmark watch it."""

    def _executor(self) -> ThreadPoolExecutor:
        """The one worker thread voices load and speak on (one at a time)."""
        if self._executor_made is None:
            from concurrent.futures import ThreadPoolExecutor

            self._executor_made = ThreadPoolExecutor(max_workers=1, thread_name_prefix="piper")
        return self._executor_made

    @property
    def name(self) -> str:
        return "piper"

    @property
    def cache_key(self) -> str:
        return f"piper:{self._refs['en']}:{self._refs['zh']}:{self._rate}:{self._volume}"

    @property
    def store(self) -> ModelStore:
        if self._store is None:
            self._store = default_store()
        return self._store

    def voice_for(self, text: str) -> str:
        """The voice (name or file) that speaks ``text``."""
        return self._refs[_language(text)]

    def state(self, language: VoiceLanguage) -> VoiceState:
        """Where the voice for ``language`` stands (nothing is loaded)."""
        return voice_state(self._refs[language], self.store)

    def can_speak(self, text: str) -> bool:
        """Whether ``text``'s voice is here and not known to be broken: what
        ``auto`` asks before choosing Piper for a segment."""
        language = _language(text)
        state = self.state(language)
        return state.path is not None and (state.path, language) not in self._broken

    async def prepare(self, language: VoiceLanguage = "en") -> None:
        """Fetch and load ``language``'s voice now, so its first sentence is
        not the slow one. Raises :class:`TTSError`."""
        model = await self._model(language)
        await asyncio.get_running_loop().run_in_executor(self._executor(), self._voice, model, language)

    async def wait_idle(self) -> None:
        """Until the worker has finished everything asked of it so far."""
        await asyncio.get_running_loop().run_in_executor(self._executor(), lambda: None)

    async def synthesize(self, text: str) -> Speech:
        stream = await self.open_stream(text)
        try:
            await stream.wait_finished()
        except asyncio.CancelledError:
            stream.cancel()
            raise
        if stream.error is not None:
            raise TTSError(stream.error)
        return Speech(audio=stream.wav(), mime=MIME, engine=self.name)

    async def open_stream(self, text: str) -> SpeechStream:
        """:class:`~desktop_agent.core.ports.StreamingTTSEngine`: return at
        the first sentence's PCM; the worker keeps feeding the stream."""
        language = _language(text)
        model = await self._model(language)
        loop = asyncio.get_running_loop()
        first: asyncio.Future[SpeechStream] = loop.create_future()
        stop = threading.Event()
        holder: list[SpeechStream] = []

        def deliver(pcm: bytes, rate: int) -> None:
            if not holder:
                stream = SpeechStream(sample_rate=rate, engine=self.name)
                stream.set_canceller(stop.set)
                holder.append(stream)
                stream.feed(pcm)
                if not first.done():
                    first.set_result(stream)
                else:  # nobody waits for it any more
                    stream.cancel()
            elif not holder[0].finished:  # cancelled: what is still produced is dropped
                holder[0].feed(pcm)

        def end(error: str | None) -> None:
            if holder:
                holder[0].finish(error)
            elif not first.done():
                first.set_exception(TTSError(error or "Piper produced no audio"))

        job = _Job(text, model, language, stop, loop, deliver, end)
        loop.run_in_executor(self._executor(), self._run, job)
        try:
            return await first
        except asyncio.CancelledError:
            stop.set()  # a job not started yet will not start; one running stops at its next sentence
            raise

    # ----------------------------------------------------------- the voice

    async def _model(self, language: VoiceLanguage) -> Path:
        """The ``.onnx`` for ``language``, downloading it first if allowed."""
        ref = self._refs[language]
        state = self.state(language)
        if state.error is not None:
            raise TTSError(state.error)
        if state.path is not None:
            if (state.path, language) in self._broken:
                raise TTSError(self._broken[state.path, language])
            return state.path
        if not self._download:
            raise TTSError(f"the Piper voice {ref} is not downloaded yet")
        task = self._downloads.get(ref)
        if task is None or task.done():
            task = asyncio.get_running_loop().create_task(self._fetch(ref))
            task.add_done_callback(_seen)  # its failure reaches whoever waits, or nobody: not a loop warning
            self._downloads[ref] = task
        # A segment that gives up (its timeout, an interrupt) leaves the
        # download running for the next one.
        return await asyncio.shield(task)

    async def _fetch(self, ref: str) -> Path:
        try:
            return await download_voice(ref, self.store, self.on_progress, source=self._source,
                                        base_url=self._base_url)
        except (ModelDownloadError, VoiceError) as exc:
            raise TTSError(str(exc)) from exc  # already one line; the cause keeps its fields for the window

    def _voice(self, model: Path, language: VoiceLanguage) -> Any:
        """The loaded voice (worker thread only)."""
        key = (model, language)
        voice = self._voices.get(key)
        if voice is None:
            if key in self._broken:
                raise TTSError(self._broken[key])
            try:
                from desktop_agent.voice.piper_load import load_voice, synthesis_threads

                voice = load_voice(model, language, self._threads or synthesis_threads())
            except TTSError as exc:
                self._broken[key] = str(exc)
                raise
            self._voices[key] = voice
        return voice

    # ---------------------------------------------------------- the worker

    def _run(self, job: _Job) -> None:
        """Synthesise ``job`` sentence by sentence (worker thread)."""
        error: str | None = None
        try:
            if job.stop.is_set():
                error = "cancelled"
                return
            voice = self._voice(job.model, job.language)
            config = self._synthesis_config(voice)
            for piece in first_clause_apart(job.text):
                for chunk in voice.synthesize(piece, config):
                    self.chunks_made += 1
                    _call(job.loop, job.deliver, chunk.audio_int16_bytes, chunk.sample_rate)
                    if job.stop.is_set():
                        error = "cancelled"
                        return
        except TTSError as exc:
            error = str(exc)
        except Exception as exc:  # a failure inside piper or onnxruntime: one line for the segment
            log.exception("piper failed on a segment")
            error = one_line(f"Piper failed: {type(exc).__name__}: {exc}")
        finally:
            _call(job.loop, job.end, error)

    def _synthesis_config(self, voice: Any) -> Any:
        from piper import SynthesisConfig

        speed = 1 + int(self._rate[:-1]) / 100
        return SynthesisConfig(
            length_scale=voice.config.length_scale / max(0.25, speed),
            volume=max(0.0, 1 + int(self._volume[:-1]) / 100),
        )


def first_clause_apart(text: str) -> list[str]:
    """``text`` as Piper is given it: its first clause on its own when its
    first sentence has one, then the rest (which Piper cuts into sentences).
    Control characters become blanks (espeak-ng refuses a NUL), and ``[[``
    / ``]]`` single brackets: Piper reads what is between them as raw
    phonemes, which a reply's text never is."""
    text = _CONTROL.sub(" ", text).replace("[[", "[").replace("]]", "]")
    match = _FIRST_CLAUSE.match(text)
    if match is None:
        return [text]
    return [match.group(1), text[match.end():]]


def _seen(task: asyncio.Task[Path]) -> None:
    if not task.cancelled():
        task.exception()


def _language(text: str) -> VoiceLanguage:
    return "zh" if is_chinese(text) else "en"


def _call(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    """Run ``callback`` on the loop (a loop already closed hears nothing)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)
