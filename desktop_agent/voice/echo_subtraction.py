"""Our own voice taken out of what the microphone heard, before the
recogniser hears it.

The echo gate (:mod:`desktop_agent.core.voice_echo`) decides whether a
frame is the user; it cannot stop the reply's last words, still in the air
and in the device buffers when the user starts to talk over it, from being
in the utterance the user's first words are in (a barge-in: 0.15–0.55 s of
our voice under "what time is it" was enough for Whisper to mis-hear it).
Here, at the end of an utterance, the samples we played (the same
``OutputTap`` feed as the gate's) are found in it and subtracted:

1. the played PCM of the last clips, at 16 kHz mono, is laid out on the
   clock's time line (a clip starts when it was handed to the speaker; its
   samples follow at its rate), and the utterance is placed on the same
   line (it ends now);
2. for each quarter second of the utterance, the delay from speaker to
   microphone is where it matches what we played best, within
   ``max_delay_s`` (the device buffers and the room: 1.0–1.3 s through
   PulseAudio on a loaded machine, and it drifts as the speaker's buffer
   runs dry; no latency figure exists to read); a quarter second where the
   user's voice dominates takes the delay of the nearest one that was
   surely ours;
3. a short filter around that delay (fractional delay, the devices'
   resampling, the coupling's gain) is fitted by least squares and its
   output subtracted block by block, only where it lowers the energy — a
   block where the reply did not in fact reach the microphone (it was
   stopped before) is left as it was.

Nothing is done unless we played something in the last ``max_delay_s``
before the utterance began (the echo can only be there then) — and never
anything when numpy cannot be imported (then the utterance goes as heard).
numpy is imported only at such an utterance's end, so an idle window does
not load it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from desktop_agent.voice.pcm import RATE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]

log = logging.getLogger(__name__)

BLOCK = 320
"""Samples per block of the subtraction's on/off decision (20 ms)."""
TAPS = 16
"""The filter's length around the delay (1 ms): fractional delay and resampling."""
SEGMENT = 4000
"""Samples per segment with a delay of its own (a quarter second)."""
MIN_MATCH = 0.3
"""How well (squared normalised correlation) a segment must match what we
played for it to be taken as our echo: our voice alone matches at ~0.98, the
user's voice over it at a few hundredths."""


@dataclass
class _Played:
    start: float
    """When it was handed to the speaker (the clock's time)."""
    rate: int
    channels: int
    chunks: list[bytes] = field(default_factory=list)
    end: float | None = None
    """When it stopped (None: playing)."""


class EchoSubtractor:
    """An ``OutputListener`` (:class:`desktop_agent.core.voice_output.OutputTap`)
    that keeps what was played, and :meth:`clean`, which takes it out of an
    utterance."""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        max_delay_s: float = 2.5,
        lead_s: float = 0.3,
    ) -> None:
        self._clock = clock
        self.max_delay_s = max_delay_s
        """The longest speaker-to-microphone delay looked for; playback that
        stopped longer ago than this before an utterance began cannot be in it."""
        self.lead_s = lead_s
        """How much earlier than "now" the utterance's last sample may have been
        recorded (the input buffers): the delay may look that much shorter."""
        self._clips: deque[_Played] = deque(maxlen=8)

    # ------------------------------------------------------------ the output

    def play_started(self, rate: int, channels: int = 1) -> None:
        self.play_stopped()
        self._clips.append(_Played(self._clock(), max(1, rate), max(1, channels)))

    def play_unknown(self) -> None:
        """A clip whose samples cannot be read (MP3): nothing to subtract."""
        self.play_stopped()

    def play_pcm(self, pcm: bytes) -> None:
        clip = self._clips[-1] if self._clips else None
        if clip is not None and clip.end is None:
            clip.chunks.append(pcm)

    def play_stopped(self) -> None:
        if self._clips and self._clips[-1].end is None:
            self._clips[-1].end = self._clock()

    # ---------------------------------------------------------- the microphone

    def clean(self, pcm: bytes, end: float | None = None) -> bytes:
        """``pcm`` (16 kHz mono 16-bit, its last sample recorded at ``end``,
        by default now) without our voice in it, as far as it can be found."""
        return self.prepare(pcm, end)()

    def prepare(self, pcm: bytes, end: float | None = None) -> Callable[[], bytes]:
        """:meth:`clean` in two steps: what was played is copied now (cheap,
        on the thread that feeds this), the work is done by the returned
        function, which may run in a worker thread (tens of ms a second of
        speech; several times that on a loaded machine)."""
        end = self._clock() if end is None else end
        begin = end - len(pcm) / 2 / RATE
        clips = tuple(
            _Played(c.start, c.rate, c.channels, [b"".join(c.chunks)], c.end)
            for c in self._clips
            if c.start < end and (c.end is None or c.end > begin - self.max_delay_s)
        )
        if not clips or len(pcm) < 2 * BLOCK * 4:
            return lambda: pcm
        return functools.partial(self._clean, pcm, begin, clips)

    def _clean(self, pcm: bytes, begin: float, clips: tuple[_Played, ...]) -> bytes:
        try:
            import numpy as np
        except ImportError:  # a build without it: the utterance goes as heard
            return pcm
        captured = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float64)
        max_lag = round((self.max_delay_s + self.lead_s) * RATE)
        reference = _laid_out(clips, begin - self.max_delay_s, len(captured) + max_lag + TAPS)
        cleaned = subtract_echo(captured, reference, max_lag=max_lag)
        if cleaned is None:
            log.info("echo: none of what we played found in a %.2f s utterance", len(captured) / RATE)
            return pcm
        changed = cleaned != captured
        log.info("echo: %.2f s of a %.2f s utterance had our own voice in it, %.1f dB taken out there",
                 np.count_nonzero(changed) / RATE, len(captured) / RATE, _db(captured[changed]) - _db(cleaned[changed]))
        return bytes(np.clip(np.round(cleaned), -32768, 32767).astype("<i2").tobytes())


async def without_echo(job: Callable[[], bytes], pcm: bytes) -> bytes:
    """``job`` (:meth:`EchoSubtractor.prepare`) run in a worker thread; ``pcm``
    as heard when it fails (a bug here must not lose what the user said)."""
    try:
        return await asyncio.to_thread(job)
    except Exception:
        log.exception("echo subtraction failed; the utterance goes as heard")
        return pcm


def _laid_out(clips: tuple[_Played, ...], origin: float, length: int) -> Floats:
    """What was played, at 16 kHz mono, sample ``i`` at ``origin + i / RATE``."""
    import numpy as np

    out = np.zeros(length)
    for clip in clips:
        samples = np.frombuffer(b"".join(clip.chunks)[: sum(map(len, clip.chunks)) // 2 * 2], dtype="<i2")
        mono = samples[: len(samples) // clip.channels * clip.channels].reshape(-1, clip.channels)[:, 0]
        resampled = _resample(mono.astype(np.float64), clip.rate)
        first = round((clip.start - origin) * RATE)
        lo, hi = max(0, first), min(length, first + len(resampled))
        if hi > lo:
            out[lo:hi] += resampled[lo - first : hi - first]
    return out


def _resample(samples: Floats, rate: int) -> Floats:
    import numpy as np

    if rate == RATE or len(samples) == 0:
        return samples
    count = int(len(samples) * RATE / rate)
    return np.asarray(np.interp(np.arange(count) * (rate / RATE), np.arange(len(samples)), samples))


def subtract_echo(captured: Floats, reference: Floats, *, max_lag: int) -> Floats | None:
    """``captured`` less the echo of ``reference`` in it; None when no echo
    of it is found. ``reference[k + n]`` is what played when ``captured[n]``
    would have been heard with no delay and ``k = max_lag``: an echo delayed
    by ``d`` samples lines up at ``k = max_lag - d``. Pure numpy, so it is
    tested on synthetic signals.

    Segment by segment (a quarter second), since the delay drifts when the
    machine is loaded (the speaker's buffer runs dry and catches up): each
    segment's delay is where it matches the reference best (normalised
    cross-correlation); a segment where the user's voice dominates matches
    nothing surely and takes the delay of the nearest one that did. A short
    filter there is fitted by least squares (the user's voice does not
    correlate with ours, so it barely moves the fit), and its output is
    subtracted block by block where that lowers the energy."""
    import numpy as np

    n = len(captured)
    if n < 4 * BLOCK or not np.any(reference):
        return None
    pieces = [(int(p[0]), len(p)) for p in np.array_split(np.arange(n), max(1, n // SEGMENT))]
    windows = [reference[start : start + length + max_lag + TAPS] for start, length in pieces]
    matches = [
        _best_match(captured[start : start + length], window[: length + max_lag])
        if len(window) >= length + max_lag + TAPS and np.any(captured[start : start + length]) else (0, 0.0)
        for (start, length), window in zip(pieces, windows, strict=True)
    ]
    sure = [i for i, (_lag, match) in enumerate(matches) if match >= MIN_MATCH]
    if not sure:
        return None
    out = captured.copy()
    changed = False
    for i, ((start, length), window) in enumerate(zip(pieces, windows, strict=True)):
        if len(window) < length + max_lag + TAPS:
            continue
        # Where the user's voice dominates, the delay of the nearest quarter second that was surely ours.
        lag = matches[min(sure, key=lambda j: abs(j - i))][0]
        cleaned = _fit_and_subtract(captured[start : start + length], window, lag)
        if cleaned is not None:
            out[start : start + length] = cleaned
            changed = True
    return out if changed else None


def _best_match(segment: Floats, window: Floats) -> tuple[int, float]:
    """The ``k`` where ``window[k : k + len(segment)]`` matches ``segment``
    best, and how well (the squared normalised correlation, 0 to 1)."""
    import numpy as np

    length = len(segment)
    size = 1 << math.ceil(math.log2(len(window) + length))
    correlation = np.fft.irfft(np.fft.rfft(window, size) * np.conj(np.fft.rfft(segment, size)), size)
    correlation = correlation[: len(window) - length + 1]
    power = np.concatenate([[0.0], np.cumsum(window * window)])
    energy = power[length:] - power[:-length]
    match = correlation**2 / (np.maximum(energy, 1e-9) * float(np.sum(segment * segment)))
    best = int(np.argmax(match))
    return best, float(match[best])


def _fit_and_subtract(segment: Floats, window: Floats, lag: int) -> Floats | None:
    """``segment`` less the least-squares fit of ``window`` around ``lag``,
    block by block where that lowers the energy; None where it never does."""
    import numpy as np

    length, half = len(segment), TAPS // 2
    padded = np.concatenate([np.zeros(half), window, np.zeros(TAPS)])
    columns = np.lib.stride_tricks.sliding_window_view(padded[lag : lag + length + TAPS - 1], TAPS)[:length]
    gram = columns.T @ columns
    if not np.any(gram):
        return None
    gram += np.eye(TAPS) * (1e-6 * np.trace(gram) / TAPS + 1e-9)
    residual = segment - columns @ np.linalg.solve(gram, columns.T @ segment)
    helps = _block_energy(residual) < _block_energy(segment)
    if not np.any(helps):
        return None
    return np.where(np.repeat(helps, BLOCK)[:length], residual, segment)


def _db(samples: Floats) -> float:
    import numpy as np

    return float(10 * np.log10(np.mean(samples * samples) + 1e-9))


def _block_energy(samples: Floats) -> Floats:
    import numpy as np

    whole = len(samples) // BLOCK * BLOCK
    blocks = samples[:whole].reshape(-1, BLOCK)
    energy = np.sum(blocks * blocks, axis=1)
    if whole < len(samples):
        energy = np.append(energy, np.sum(samples[whole:] ** 2))
    return np.asarray(energy)
