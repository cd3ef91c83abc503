"""A microphone that hears the room whether or not it is open, and a
speaker that plays into that room: the window's voice tests need both (no
machine here has a sound card).

:class:`LiveMicrophone` is an :class:`~desktop_agent.core.ports.AudioInput`
over one timeline of 16 kHz PCM: what the test says (:meth:`say`) and what
the speaker plays are mixed into it, 30 ms frames are taken off it at real
pace (or ``speed`` times it), and they reach ``on_frames`` only while the
microphone is open — speech while it is closed is lost, as with a real one
(``WavAudioInput`` instead starts a new clip at every start).

:class:`LoopbackSink` is an :class:`~desktop_agent.core.ports.AudioSink`
that plays a WAV clip (16 kHz mono 16-bit) into the microphone's room at
``gain``, in real time, until it ends or is stopped — the app's own voice
heard back through speakers. Other clips it plays as silence of a second.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
from collections.abc import Callable

from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.core.voice_echo import wav_pcm

FRAME_MS = 30
FRAME_BYTES = 16000 * FRAME_MS // 1000 * 2


def _mix(a: bytes, b: bytes) -> bytes:
    x, y = array.array("h"), array.array("h")
    x.frombytes(a)
    y.frombytes(b)
    if len(y) > len(x):
        x, y = y, x
    for i, sample in enumerate(y):
        x[i] = max(-32768, min(32767, x[i] + sample))
    return x.tobytes()


def scaled(pcm: bytes, gain: float) -> bytes:
    samples = array.array("h")
    samples.frombytes(pcm)
    return array.array("h", (max(-32768, min(32767, int(s * gain))) for s in samples)).tobytes()


class LiveMicrophone:
    def __init__(self, *, speed: float = 1.0) -> None:
        self.speed = speed
        self.frames = 0
        """Frames taken off the timeline so far (heard or not)."""
        self.heard = 0
        """Frames delivered to an open microphone."""
        self.starts = 0
        self.said_at: list[int] = []
        """The frame each :meth:`say` began at."""
        self._user = b""
        self._output = b""
        """What the speaker plays into the room (stopped apart from the user)."""
        self._on_frames: Callable[[bytes], None] | None = None
        self._handle: asyncio.TimerHandle | None = None

    @property
    def running(self) -> bool:
        return self._on_frames is not None

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        self.starts += 1
        self._on_frames = on_frames
        self._pump()

    def stop(self) -> None:
        self._on_frames = None

    def say(self, pcm: bytes) -> None:
        """The user speaks from now on (over whatever plays)."""
        self.said_at.append(self.frames)
        self._user = _mix(self._user, pcm[: len(pcm) - len(pcm) % 2])
        self._pump()

    def play(self, pcm: bytes) -> None:
        """The speaker sounds from now on."""
        self._output = _mix(self._output, pcm[: len(pcm) - len(pcm) % 2])
        self._pump()

    def silence_output(self) -> None:
        self._output = b""

    def close(self) -> None:
        self._on_frames = None
        self._user = self._output = b""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _pump(self) -> None:
        if self._handle is None and (self._user or self._output or self._on_frames is not None):
            delay = FRAME_MS / 1000 / self.speed if self.speed > 0 else 0.0
            self._handle = asyncio.get_running_loop().call_later(delay, self._frame)

    def _frame(self) -> None:
        self._handle = None
        frame = _mix(self._user[:FRAME_BYTES], self._output[:FRAME_BYTES]).ljust(FRAME_BYTES, b"\0")
        self._user, self._output = self._user[FRAME_BYTES:], self._output[FRAME_BYTES:]
        self.frames += 1
        listener = self._on_frames
        if listener is not None:
            self.heard += 1
            listener(frame)
        self._pump()


class LoopbackSink:
    def __init__(self, mic: LiveMicrophone, *, gain: float = 1.0) -> None:
        self.mic, self.gain = mic, gain
        self.played: list[float] = []
        """Seconds of each clip played."""
        self.stops = 0
        self._stop: asyncio.Event | None = None

    @property
    def playing(self) -> bool:
        return self._stop is not None

    async def play(self, audio: bytes, mime: str) -> None:
        decoded = wav_pcm(audio)
        pcm = decoded[0] if decoded is not None and decoded[1] == 16000 else b"\0\0" * 16000
        self.mic.play(scaled(pcm, self.gain))
        await self._hold(len(pcm) / 32000)

    async def play_stream(self, stream: SpeechStream) -> None:
        await stream.wait_finished()
        await self.play(stream.wav(), "audio/wav")

    def stop(self) -> None:
        self.stops += 1
        if self._stop is not None:
            self._stop.set()

    async def _hold(self, seconds: float) -> None:
        stop = self._stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds / max(self.mic.speed, 1e-9)):
                    await stop.wait()
        finally:
            self.played.append(loop.time() - started)
            if stop.is_set():
                self.mic.silence_output()
            if self._stop is stop:
                self._stop = None
