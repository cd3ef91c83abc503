"""SpeechPipeline: one turn's speech, synthesised early and delivered in order.

The chat handler submits each voice segment the moment the stream parser
cuts it; synthesis starts at once on its own task, alongside the rest of the
LLM stream, tool calls and approval waits (the turn's loop keeps pushing
finished speech while it waits, contracts §4). Results are pushed onto the bus strictly in submit
order, whatever order they finish in, because the playback queue pairs each
voice ``text`` with the next ``audio`` of the same segment and plays them in
bus order. A failure or timeout is pushed in its place as an ``audio``
message with ``error`` (pipecat's habit: errors flow as frames), so the text
still shows and the queue goes on.

An engine that streams (:class:`~desktop_agent.core.ports.StreamingTTSEngine`,
espeak-ng) settles its slot as soon as its first PCM chunk exists: the
``audio`` message then carries the growing
:class:`~desktop_agent.core.speech_stream.SpeechStream` instead of bytes, so
the sink can start before synthesis ends. The timeout and the concurrency
bound apply up to that first chunk; the finished stream is cached as a WAV
(a failed or cancelled one is not). ``cancel`` also stops streams still
being produced.

Identical texts share one synthesis (in flight) and one cache entry (done).
Audio messages are always pushed from task callbacks, never inside
``submit``, so a handler that pushes a segment's ``text`` and then submits
it always sees ``text`` first.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
from collections import deque
from dataclasses import dataclass

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import AudioEndMessage, AudioMessage
from desktop_agent.core.ports import Speech, StreamingTTSEngine, TTSEngine, TTSError, streams_now
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.core.timers import Timers, timeout
from desktop_agent.voice.cache import CacheKey, SpeechCache, cache_key
from desktop_agent.voice.text import has_speakable, one_line

log = logging.getLogger(__name__)

NOTHING_TO_SAY = "nothing to speak"


@dataclass(frozen=True, slots=True)
class _Failure:
    reason: str


_Outcome = Speech | SpeechStream | _Failure


@dataclass(slots=True)
class _Slot:
    segment_id: int
    outcome: _Outcome | None = None


class SpeechPipeline:
    """:class:`~desktop_agent.core.ports.SpeechPort` over a TTS engine.

    ``max_concurrency`` bounds simultaneous engine calls; ``segment_timeout_s``
    bounds each engine call (time waiting for a free slot not counted).
    ``cache`` is shared across turns; without one the pipeline keeps a
    private cache for the turn. ``timers``: the clock the timeouts run on
    (None: the loop's; a test passes a ``FakeClock``).
    """

    def __init__(
        self,
        engine: TTSEngine,
        bus: SessionMessageBus,
        *,
        max_concurrency: int = 3,
        segment_timeout_s: float = 15.0,
        cache: SpeechCache | None = None,
        timers: Timers | None = None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError(f"SpeechPipeline: max_concurrency must be at least 1, got {max_concurrency!r}")
        if segment_timeout_s <= 0:
            raise ValueError(f"SpeechPipeline: segment_timeout_s must be positive, got {segment_timeout_s!r}")
        self._engine = engine
        self._bus = bus
        self._max_concurrency = max_concurrency
        self._timeout_s = segment_timeout_s
        self._timers = timers
        self._cache = cache if cache is not None else SpeechCache()
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._waiting: deque[_Slot] = deque()
        self._seen: set[int] = set()
        self._running: dict[CacheKey, asyncio.Task[_Outcome]] = {}
        self._streams: set[SpeechStream] = set()
        self._announced: set[SpeechStream] = set()
        """Streams whose ``audio`` is on the bus and whose ``audio_end`` is not yet."""
        self._all_pushed = asyncio.Event()
        self._all_pushed.set()
        self._cancelled = False

    @property
    def pending(self) -> int:
        """Segments submitted whose audio message is not pushed yet."""
        return len(self._waiting)

    def submit(self, segment_id: int, text: str) -> None:
        if self._cancelled:
            log.debug("speech: segment %s submitted after cancel; dropped", segment_id)
            return
        if segment_id in self._seen:
            raise ValueError(f"SpeechPipeline: segment {segment_id} was already submitted")
        self._seen.add(segment_id)
        slot = _Slot(segment_id)
        self._waiting.append(slot)
        self._all_pushed.clear()
        key = cache_key(self._engine, text)
        task = self._running.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._synthesize(key, text))
            self._running[key] = task
        task.add_done_callback(functools.partial(self._settle, slot))

    async def _synthesize(self, key: CacheKey, text: str) -> _Outcome:
        try:
            if not has_speakable(text):
                return _Failure(NOTHING_TO_SAY)
            cached = self._cache.get(key)
            if cached is not None:
                return cached
            async with self._semaphore:
                try:
                    async with timeout(self._timeout_s, self._timers):
                        if streams_now(self._engine):
                            assert isinstance(self._engine, StreamingTTSEngine)
                            return self._track(key, await self._engine.open_stream(text))
                        speech = await self._engine.synthesize(text)
                except TimeoutError:
                    return _Failure(f"speech timed out after {self._timeout_s:g} s")
                except TTSError as exc:
                    return _Failure(one_line(str(exc)) or "speech failed")
                except Exception as exc:  # an engine bug becomes an error frame, not a dead turn
                    log.exception("speech engine %s raised a non-TTSError", self._engine.name)
                    return _Failure(one_line(f"speech failed: {type(exc).__name__}: {exc}"))
            self._cache.put(key, speech)
            return speech
        finally:
            if self._running.get(key) is asyncio.current_task():
                del self._running[key]

    def _track(self, key: CacheKey, stream: SpeechStream) -> SpeechStream:
        self._streams.add(stream)

        def finished(done: SpeechStream) -> None:
            self._streams.discard(done)
            if done.error is None:
                self._cache.put(key, Speech(audio=done.wav(), mime="audio/wav", engine=done.engine))
            else:
                log.info("speech: stream ended early: %s", done.error)

        stream.add_done_callback(finished)
        return stream

    def _settle(self, slot: _Slot, task: asyncio.Task[_Outcome]) -> None:
        if self._cancelled or task.cancelled():
            return
        slot.outcome = task.result()
        self._flush()

    def _flush(self) -> None:
        while self._waiting and self._waiting[0].outcome is not None and not self._cancelled:
            slot = self._waiting.popleft()
            self._push(slot.segment_id, slot.outcome)
        if not self._waiting:
            self._all_pushed.set()

    def _push(self, segment_id: int, outcome: _Outcome | None) -> None:
        if isinstance(outcome, SpeechStream):
            self._bus.push(AudioMessage(segment_id, mime=outcome.mime, engine=outcome.engine, stream=outcome))
            # Its size is known when its PCM ends: audio_end says it then (at
            # once when it already has), an interrupt's cancel included.
            self._announced.add(outcome)
            outcome.add_done_callback(functools.partial(self._ended, segment_id))
        elif isinstance(outcome, Speech):
            self._bus.push(
                AudioMessage(
                    segment_id,
                    mime=outcome.mime,
                    bytes=len(outcome.audio),
                    engine=outcome.engine,
                    audio=outcome.audio,
                )
            )
        else:
            reason = outcome.reason if outcome is not None else "speech timed out"
            log.info("speech: segment %s failed: %s", segment_id, reason)
            self._bus.push(AudioMessage(segment_id, error=reason, engine=self._engine.name))

    def _ended(self, segment_id: int, stream: SpeechStream) -> None:
        self._announced.discard(stream)
        self._bus.push(AudioEndMessage.of(segment_id, stream))

    async def drain(self) -> None:
        """Wait until every submitted segment's audio message was pushed.

        Each engine call is bounded by ``segment_timeout_s``; as a last guard
        against an engine that ignores cancellation, the whole wait is bounded
        by that per segment in flight, after which the rest are pushed as
        timed out."""
        if self._cancelled:
            return
        if not self._all_pushed.is_set():
            rounds = math.ceil(len(self._waiting) / self._max_concurrency) + 1
            try:
                async with timeout(self._timeout_s * rounds, self._timers):
                    await self._all_pushed.wait()
            except TimeoutError:
                log.warning("speech: drain gave up on %d segment(s)", len(self._waiting))
                while self._waiting and not self._cancelled:
                    slot = self._waiting.popleft()
                    self._push(slot.segment_id, slot.outcome)
                self._all_pushed.set()
                self._stop_tasks()
        await self._streams_ended()

    async def _streams_ended(self) -> None:
        """Until every announced stream's PCM has ended (each ``audio_end``
        is then on the bus, before the turn's end), bounded like a segment;
        a stream still going then is cancelled, which ends it."""
        announced = list(self._announced)
        if not announced:
            return
        try:
            async with timeout(self._timeout_s, self._timers):
                await asyncio.gather(*(stream.wait_finished() for stream in announced))
        except TimeoutError:
            log.warning("speech: %d stream(s) still producing at the turn's end; stopped", len(self._announced))
            for stream in list(self._announced):
                stream.cancel()

    def cancel(self) -> None:
        """Drop everything pending; no audio message is pushed after this,
        but every stream already announced ends with its ``audio_end``
        (``error`` ``cancelled`` when it was still producing), at once."""
        if self._cancelled:
            return
        self._cancelled = True
        self._waiting.clear()
        self._all_pushed.set()
        self._stop_tasks()

    def _stop_tasks(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        self._running.clear()
        for stream in list(self._streams | self._announced):
            stream.cancel()
