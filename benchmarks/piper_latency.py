"""Section 8 of ``bench_voice.py``: Piper (offline neural speech) against
espeak-ng, side by side in one run.

8. First token → first audible sample, streamed, for each engine: the same
   path as section 4 (real ``StreamParser``, ``SpeechPipeline`` and
   ``PlaybackQueue`` to a timestamping sink at the ``AudioSink`` port), the
   same two replies (a short first clause; a long first sentence), the two
   engines alternating run by run so both see the same machine load. Piper's
   voice is loaded once before (it stays loaded for the session; its load
   time is a row of its own). Target: Piper's p50 ≤ espeak-ng's p50 + 150 ms.
   Piper's real-time factor (synthesis time / audio time) over sentences of
   2-6 s, and its first sentence's share of a long paragraph.
"""

from __future__ import annotations

import statistics
import time

from voice_latency import BODY, LONG_FIRST, SHORT_FIRST, first_sample_once

from desktop_agent.voice import EspeakEngine
from desktop_agent.voice.piper import PiperEngine

Rows = list[tuple[str, list[float], float | None]]
MARGIN_S = 0.150
"""Piper may take this much longer than espeak-ng to the first sample."""
SENTENCES = (
    "Sure, here is what I found.",
    "The meeting moved to Thursday afternoon at three.",
    "Remember to bring the quarterly figures and the draft of the new budget.",
    "It will rain in the morning, so take an umbrella when you leave the house.",
)


async def load_row(engine: PiperEngine) -> Rows:
    start = time.perf_counter()
    await engine.prepare("en")
    return [("8 piper: load the voice (once per session)", [time.perf_counter() - start], None)]


async def first_sample_rows(runs: int) -> Rows:
    piper = PiperEngine()
    rows = await load_row(piper)
    for label, template in (("short first clause", SHORT_FIRST), ("long first sentence", LONG_FIRST)):
        times: dict[str, list[float]] = {"espeak-ng": [], "piper": []}
        for run in range(runs + 1):  # run 0 warms up
            reply = template.format(body=BODY.format(run=run))
            espeak = EspeakEngine()
            times["espeak-ng"].append(await first_sample_once(espeak, reply))
            await espeak.wait_streams()
            times["piper"].append(await first_sample_once(piper, reply))
            await piper.wait_idle()  # the cancelled stream's worker is free again
        rows.append((f"8 first token → first PCM at sink, espeak-ng streamed, {label}", times["espeak-ng"][1:], None))
        rows.append((f"8 first token → first PCM at sink, piper streamed, {label}", times["piper"][1:], None))
    return rows


async def real_time_rows(runs: int) -> Rows:
    """Synthesis time over audio time, per sentence; and a paragraph's first
    sentence against its whole synthesis (what streaming saves)."""
    piper = PiperEngine()
    await piper.prepare("en")
    factors, first, whole = [], [], []
    for _ in range(runs):
        for sentence in SENTENCES:
            start = time.perf_counter()
            speech = await piper.open_stream(sentence)
            await speech.wait_finished()
            factors.append((time.perf_counter() - start) / (speech.size / 2 / speech.sample_rate))
        start = time.perf_counter()
        stream = await piper.open_stream(" ".join(SENTENCES))
        first.append(time.perf_counter() - start)
        await stream.wait_finished()
        whole.append(time.perf_counter() - start)
    return [
        ("8 piper real-time factor, a sentence (shown ×1000)", factors, None),
        ("8 piper alone, paragraph of 4 sentences: first PCM", first, None),
        ("8 piper alone, paragraph of 4 sentences: whole synthesis", whole, None),
    ]


async def piper_rows(runs: int) -> Rows:
    return [*await first_sample_rows(runs), *await real_time_rows(max(2, runs // 4))]


def print_piper_summary(rows: Rows) -> None:
    """The target is relative (Piper ≤ espeak-ng + 150 ms), so it is judged
    here, on the medians, with the p95 difference beside it."""
    values = {name: sorted(v) for name, v, _ in rows}
    for label in ("short first clause", "long first sentence"):
        espeak = values.get(f"8 first token → first PCM at sink, espeak-ng streamed, {label}")
        piper = values.get(f"8 first token → first PCM at sink, piper streamed, {label}")
        if espeak and piper:
            p50 = statistics.median(piper) - statistics.median(espeak)
            p95 = _p95(piper) - _p95(espeak)
            verdict = "ok" if p50 <= MARGIN_S else "OVER"
            print(f"8 {label}: piper - espeak-ng = {p50 * 1000:+.0f} ms p50, {p95 * 1000:+.0f} ms p95 "
                  f"(target p50 ≤ +150 ms): {verdict}")
    factors = values.get("8 piper real-time factor, a sentence (shown ×1000)")
    if factors:
        print(f"8 piper real-time factor: {statistics.median(factors):.2f} p50, {_p95(factors):.2f} p95")


def _p95(values: list[float]) -> float:
    return values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
