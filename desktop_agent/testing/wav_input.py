"""An :class:`~desktop_agent.core.ports.AudioInput` fed by WAV files: no
audio input device exists on the test machines.

It pushes 30 ms frames of 16 kHz mono PCM from the running asyncio loop, at
real pace (``speed=1``) or faster, then silence (a microphone never stops
by itself) until stopped or ``tail_s`` runs out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path

from desktop_agent.voice.pcm import RATE, read_wav16, silence16

FRAME_MS = 30
FRAME_BYTES = RATE * FRAME_MS // 1000 * 2


class WavAudioInput:
    """Plays ``clips`` (WAV paths or 16 kHz PCM bytes) into ``on_frames``,
    one after another on each :meth:`start` (the last one again when they
    run out), followed by ``tail_s`` of silence.

    ``error``: :meth:`start` raises ``OSError(error)``, as a machine without
    a microphone does."""

    def __init__(
        self,
        clips: Iterable[str | Path | bytes] = (),
        *,
        speed: float = 1.0,
        tail_s: float = 3.0,
        error: str | None = None,
    ) -> None:
        self._clips = [clip if isinstance(clip, bytes) else read_wav16(clip) for clip in clips]
        self.speed = speed
        self.tail_s = tail_s
        self.error = error
        self.starts = 0
        self._handle: asyncio.TimerHandle | None = None
        self._on_frames: Callable[[bytes], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.finished = asyncio.Event()
        """Set when a clip and its tail were all delivered."""

    @property
    def running(self) -> bool:
        return self._on_frames is not None

    def queue(self, clip: str | Path | bytes) -> None:
        self._clips.append(clip if isinstance(clip, bytes) else read_wav16(clip))

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        if self.error is not None:
            raise OSError(self.error)
        self.stop()
        clip = self._clips.pop(0) if len(self._clips) > 1 else (self._clips[0] if self._clips else b"")
        pcm = clip + silence16(self.tail_s)
        self.starts += 1
        self.finished = asyncio.Event()
        self._on_frames = on_frames
        self._loop = asyncio.get_running_loop()
        self._schedule(pcm, 0)

    def _schedule(self, pcm: bytes, offset: int) -> None:
        assert self._loop is not None
        delay = FRAME_MS / 1000 / self.speed if self.speed > 0 else 0.0
        self._handle = self._loop.call_later(delay, self._push, pcm, offset)

    def _push(self, pcm: bytes, offset: int) -> None:
        on_frames = self._on_frames
        if on_frames is None:
            return
        frame = pcm[offset : offset + FRAME_BYTES]
        if not frame:
            self._handle = None
            self.finished.set()
            return
        on_frames(frame)
        if self._on_frames is on_frames:  # the callback may have stopped us
            self._schedule(pcm, offset + FRAME_BYTES)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._on_frames = None
