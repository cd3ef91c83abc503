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
2. the delay from speaker to microphone is where the two correlate best
   (GCC-PHAT: sharp peaks on speech) within ``max_delay_s`` (the device
   buffers and the room; no latency figure exists to read);
3. a short filter around that delay (fractional delay, the devices'
   resampling, the coupling's gain) is fitted by least squares, refitted on
   the blocks where it helped, and its output subtracted block by block,
   only where it lowers the energy — a block where the reply did not in fact
   reach the microphone (it was stopped before) is left as it was.

Nothing is done unless we played something in the last ``recent_s`` before
the utterance began (the echo can only be there then) — and never anything
when numpy cannot be imported (then the utterance goes as heard). numpy is
imported only at such an utterance's end, so an idle window does not load it.
"""

from __future__ import annotations

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
        max_delay_s: float = 1.5,
        lead_s: float = 0.3,
        recent_s: float = 0.6,
    ) -> None:
        self._clock = clock
        self.max_delay_s = max_delay_s
        """The longest speaker-to-microphone delay looked for."""
        self.lead_s = lead_s
        """How much earlier than "now" the utterance's last sample may have been
        recorded (the input buffers): the delay may look that much shorter."""
        self.recent_s = recent_s
        """Playback that stopped longer ago than this before an utterance began
        cannot be in it: nothing is subtracted."""
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
        end = self._clock() if end is None else end
        begin = end - len(pcm) / 2 / RATE
        clips = [c for c in self._clips if c.start < end and (c.end is None or c.end > begin - self.recent_s)]
        if not clips or len(pcm) < 2 * BLOCK * 4:
            return pcm
        try:
            import numpy as np
        except ImportError:  # a build without it: the utterance goes as heard
            return pcm
        captured = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float64)
        origin = begin - self.max_delay_s
        reference = self._laid_out(clips, origin, len(captured) + round((self.max_delay_s + self.lead_s) * RATE))
        cleaned = subtract_echo(captured, reference, max_lag=round((self.max_delay_s + self.lead_s) * RATE))
        if cleaned is None:
            log.info("echo: none of what we played found in a %.2f s utterance", len(captured) / RATE)
            return pcm
        log.info("echo: %.1f dB of a %.2f s utterance was our own voice, taken out",
                 _db(captured) - _db(cleaned), len(captured) / RATE)
        return bytes(np.clip(np.round(cleaned), -32768, 32767).astype("<i2").tobytes())

    def _laid_out(self, clips: list[_Played], origin: float, length: int) -> Floats:
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
    tested on synthetic signals."""
    import numpy as np

    n = len(captured)
    if n < 4 * BLOCK or not np.any(reference):
        return None
    lag = _best_lag(captured, reference, max_lag)
    half = TAPS // 2
    padded = np.concatenate([np.zeros(half), reference, np.zeros(n + TAPS)])
    # Column j: the reference shifted so that tap j sits at lag + j - half.
    start = lag  # index in padded of reference[lag - half]
    columns = np.lib.stride_tricks.sliding_window_view(padded[start : start + n + TAPS - 1], TAPS)[:n]
    if not np.any(columns):
        return None
    rows = np.ones(n, dtype=bool)
    cleaned: Floats | None = None
    for _pass in range(2):  # fit on all, then again on the blocks where the first fit helped
        fit = columns[rows]
        gram = fit.T @ fit  # the normal equations: ~20x faster than lstsq's SVD at 16 taps
        gram += np.eye(TAPS) * (1e-6 * np.trace(gram) / TAPS + 1e-9)
        taps = np.linalg.solve(gram, fit.T @ captured[rows])
        echo = columns @ taps
        residual = captured - echo
        helps = _block_energy(residual) < _block_energy(captured)
        if not np.any(helps):
            return None
        rows = np.repeat(helps, BLOCK)[:n]
        cleaned = np.where(rows, residual, captured)
    return cleaned


def _best_lag(captured: Floats, reference: Floats, max_lag: int) -> int:
    """The ``k`` in [0, max_lag] where ``reference[k:]`` best matches ``captured`` (GCC-PHAT)."""
    import numpy as np

    size = 1 << math.ceil(math.log2(len(reference) + len(captured)))
    spectrum = np.fft.rfft(reference, size) * np.conj(np.fft.rfft(captured, size))
    spectrum /= np.maximum(np.abs(spectrum), 1e-9)
    correlation = np.fft.irfft(spectrum, size)[: max_lag + 1]
    return int(np.argmax(correlation))


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
