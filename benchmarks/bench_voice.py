"""Speech latency: from the model's first token to sound, between clips,
and from interrupt to silence.

1. Time to first audio, overhead only. A reply streams into the real
   ``StreamParser`` token by token (each token in its own loop turn, as
   from a socket); every segment is pushed as ``text`` and, when voiced,
   submitted to ``SpeechPipeline``, exactly as the chat handler does. A
   consumer takes bus messages and hands each clip to an audio sink. We
   time from the first token to the first clip handed to the sink, minus
   the engine's own synthesis time for that segment (measured around the
   engine call). Engines: FakeTTS with a known 50 ms delay, and espeak-ng.
   Target ≤ 30 ms.
2. Gap between consecutive segments beyond the engine's time. Same path;
   the sink "plays" each clip for a fixed time (FakeAudioSink). Per gap:
   (start of clip i+1) - (end of clip i) - (time still spent waiting for
   the engine on segment i+1 after clip i ended). Target ≤ 50 ms. Also the
   real QMediaPlayer's own switch gap (QtAudioSink, espeak-ng clips, 8x):
   EndOfMedia of clip i to BufferedMedia (playing) of clip i+1.
3. Interrupt to silence with the real QtAudioSink playing an espeak-ng
   clip at normal speed: ``pipeline.cancel(); sink.stop()`` to the player's
   ``StoppedState``, and to the pending ``play()`` having returned.
   Target ≤ 100 ms.

4–7 (streamed speech, speech input, barge-in, pocketsphinx's real-time
factor; end of speech → request and speech onset → playback stopped,
beside the figures before) are described in ``benchmarks/voice_latency.py``.

8 (Piper against espeak-ng, first token → first audible sample,
side by side; Piper's real-time factor) is in ``benchmarks/piper_latency.py``.

Everything runs on a qasync loop (the window's loop); sections 1 and 2 also
on plain asyncio (the headless CLI's loop).

Run: ``.venv/bin/python benchmarks/bench_voice.py [--runs 20] [--sections-4-7 | --piper | --barge]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")  # lets qasync be imported before PySide6
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import qasync
from PySide6.QtMultimedia import QMediaPlayer
from PySide6.QtWidgets import QApplication

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import AudioMessage, BusItem, TextMessage
from desktop_agent.core.ports import AudioSink, Speech, TTSEngine
from desktop_agent.core.stream_parser import Segment, StreamParser
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.fake_tts import FakeTTS
from desktop_agent.ui.voice.audio_sink import QtAudioSink
from desktop_agent.voice import EspeakEngine, SpeechPipeline
from desktop_agent.voice.wav import tone_wav

from piper_latency import piper_rows, print_piper_summary  # isort: skip  (beside this file)
from voice_latency import first_sample_rows, window_rows  # isort: skip

FAKE_DELAY_S = 0.05
CLIP_S = 0.15


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f}"


@dataclass
class Row:
    name: str
    values: list[float]
    target_s: float | None

    def cells(self) -> list[str]:
        v = sorted(self.values)
        p95 = v[min(len(v) - 1, round(0.95 * (len(v) - 1)))]
        verdict = "" if self.target_s is None else ("ok" if p95 <= self.target_s else "OVER")
        target = "" if self.target_s is None else f"≤ {self.target_s * 1000:.0f}"
        return [self.name, str(len(v)), ms(statistics.median(v)), ms(p95), ms(v[-1]), target, verdict]


class TimedEngine:
    """Wraps an engine; records when each text's synthesis started and ended."""

    def __init__(self, inner: TTSEngine) -> None:
        self.inner = inner
        self.spans: dict[str, tuple[float, float]] = {}

    @property
    def name(self) -> str:
        return self.inner.name

    async def synthesize(self, text: str) -> Speech:
        start = time.perf_counter()
        try:
            return await self.inner.synthesize(text)
        finally:
            self.spans[text] = (start, time.perf_counter())


class TimedSink(FakeAudioSink):
    def __init__(self, clip_s: float) -> None:
        super().__init__(auto_finish_s=clip_s)
        self.spans: list[tuple[float, float]] = []

    async def play(self, audio: bytes, mime: str) -> None:
        start = time.perf_counter()
        await super().play(audio, mime)
        self.spans.append((start, time.perf_counter()))


@dataclass
class Turn:
    """One simulated reply: parser → bus (+ pipeline) → consumer → sink."""

    engine: TimedEngine
    sink: AudioSink
    bus: SessionMessageBus = field(default_factory=lambda: SessionMessageBus("bench"))
    texts: dict[int, str] = field(default_factory=dict)

    async def run(self, reply: str) -> float:
        """Stream ``reply``; once every voiced segment's clip was played,
        return the time of the first token."""
        pipeline = SpeechPipeline(self.engine, self.bus)  # fresh cache: every segment synthesised
        parser = StreamParser()
        played = 0
        progress = asyncio.Event()

        clips: asyncio.Queue[AudioMessage] = asyncio.Queue()

        def take(item: BusItem) -> None:
            # The bus only calls listeners: attach before the first push.
            if isinstance(item.message, AudioMessage):
                clips.put_nowait(item.message)

        async def consume() -> None:
            nonlocal played, progress
            while True:
                audio = await clips.get()
                if audio.audio:
                    await self.sink.play(audio.audio, audio.mime or "")
                played += 1
                progress.set()
                progress = asyncio.Event()

        self.bus.add_listener(take)
        consumer = asyncio.get_running_loop().create_task(consume())
        segment_id = 0

        def handle(segments: list[Segment]) -> None:
            nonlocal segment_id
            for segment in segments:  # as ChatHandler does
                if not segment.text:
                    continue
                segment_id += 1
                self.bus.push(TextMessage(segment_id, segment.text, segment.raw_text, segment.voice))
                if segment.voice and segment.spoken:
                    self.texts[segment_id] = segment.spoken
                    pipeline.submit(segment_id, segment.spoken)

        tokens = [reply[i : i + 2] for i in range(0, len(reply), 2)]
        first_token = time.perf_counter()
        for token in tokens:
            handle(parser.feed(token))
            await asyncio.sleep(0)  # the next token arrives in a later loop turn
        handle(parser.flush())
        try:
            async with asyncio.timeout(60):
                await pipeline.drain()
                while played < len(self.texts):
                    await progress.wait()
        finally:
            consumer.cancel()
            self.bus.remove_listener(take)
        return first_token


def reply_for(run: int, sentences: int) -> str:
    body = "".join(f"第{run}轮第{i}句，这是一段用来测量延迟的中文句子。" for i in range(sentences))
    return f"<voice>好的，我来查一下第{run}个问题。{body}</voice>"


async def first_audio_overhead(make_engine: Callable[[], TTSEngine], runs: int) -> list[float]:
    """Run ``runs + 1`` turns; the first (warm-up: imports, first timers) is not counted."""
    out = []
    for run in range(runs + 1):
        engine = TimedEngine(make_engine())
        sink = TimedSink(clip_s=0.001)
        turn = Turn(engine, sink)
        first_token = await turn.run(reply_for(run, 1))
        first_text = turn.texts[min(turn.texts)]
        synth_start, synth_end = engine.spans[first_text]
        out.append(sink.spans[0][0] - first_token - (synth_end - synth_start))
    return out[1:]


async def first_sound_overhead(runs: int) -> list[float]:
    """Like first_audio_overhead with espeak-ng, but up to the real player
    having the first clip playing (BufferedMedia)."""
    out = []
    sink = QtAudioSink(playback_rate=8.0)
    try:
        for run in range(runs):
            engine = TimedEngine(EspeakEngine())
            sounding: list[float] = []

            def on_status(status: QMediaPlayer.MediaStatus, out_: list[float] = sounding) -> None:
                if status == QMediaPlayer.MediaStatus.BufferedMedia:
                    out_.append(time.perf_counter())

            sink.player.mediaStatusChanged.connect(on_status)
            turn = Turn(engine, sink)
            first_token = await turn.run(reply_for(run, 0))
            sink.player.mediaStatusChanged.disconnect(on_status)
            synth_start, synth_end = engine.spans[turn.texts[min(turn.texts)]]
            out.append(sounding[0] - first_token - (synth_end - synth_start))
    finally:
        sink.close()
    return out


async def gaps_beyond_engine(make_engine: Callable[[], TTSEngine], runs: int) -> list[float]:
    out = []
    for run in range(runs):
        engine = TimedEngine(make_engine())
        sink = TimedSink(clip_s=CLIP_S)
        turn = Turn(engine, sink)
        await turn.run(reply_for(run, 4))
        order = [turn.texts[k] for k in sorted(turn.texts)]
        for i in range(1, len(sink.spans)):
            prev_end = sink.spans[i - 1][1]
            start = sink.spans[i][0]
            waiting_for_engine = max(0.0, engine.spans[order[i]][1] - prev_end)
            out.append(start - prev_end - waiting_for_engine)
    return out


async def player_switch_gaps(clips: list[bytes]) -> list[float]:
    sink = QtAudioSink(playback_rate=8.0)
    current = 0
    ended: dict[int, float] = {}
    playing: dict[int, float] = {}

    def on_started(clip: int) -> None:
        nonlocal current
        current = clip

    def on_status(status: QMediaPlayer.MediaStatus) -> None:
        if status == QMediaPlayer.MediaStatus.EndOfMedia:
            ended.setdefault(current, time.perf_counter())
        elif status == QMediaPlayer.MediaStatus.BufferedMedia:
            playing.setdefault(current, time.perf_counter())

    sink.clip_started.connect(on_started)
    sink.player.mediaStatusChanged.connect(on_status)
    try:
        async with asyncio.timeout(120):
            for clip in clips:
                await sink.play(clip, "audio/wav")
    finally:
        sink.close()
    return [playing[c + 1] - ended[c] for c in sorted(ended) if c + 1 in playing]


async def interrupt_to_silence(clip: bytes, runs: int) -> tuple[list[float], list[float]]:
    to_stopped, to_returned = [], []
    sink = QtAudioSink()  # normal speed: the clip is far from its end when interrupted
    try:
        for _ in range(runs):
            bus = SessionMessageBus("bench")
            pipeline = SpeechPipeline(FakeTTS(hold=True), bus)
            pipeline.submit(1, "pending segment")  # something to drop
            buffered = asyncio.Event()
            stopped_at: list[float] = []

            def on_status(status: QMediaPlayer.MediaStatus, event: asyncio.Event = buffered) -> None:
                if status == QMediaPlayer.MediaStatus.BufferedMedia:
                    event.set()

            def on_state(state: QMediaPlayer.PlaybackState, out: list[float] = stopped_at) -> None:
                if state == QMediaPlayer.PlaybackState.StoppedState and not out:
                    out.append(time.perf_counter())

            sink.player.mediaStatusChanged.connect(on_status)
            sink.player.playbackStateChanged.connect(on_state)
            play = asyncio.ensure_future(sink.play(clip, "audio/wav"))
            async with asyncio.timeout(10):
                await buffered.wait()
                await asyncio.sleep(0.2)  # let it really play for a moment
                t0 = time.perf_counter()
                pipeline.cancel()
                sink.stop()
                if not stopped_at and sink.player.playbackState() == QMediaPlayer.PlaybackState.StoppedState:
                    stopped_at.append(time.perf_counter())
                await play
                returned = time.perf_counter()
            sink.player.mediaStatusChanged.disconnect(on_status)
            sink.player.playbackStateChanged.disconnect(on_state)
            to_stopped.append(stopped_at[0] - t0)
            to_returned.append(returned - t0)
    finally:
        sink.close()
    return to_stopped, to_returned


def fake_engine() -> TTSEngine:
    return FakeTTS(delay_s=FAKE_DELAY_S)


def espeak_engine() -> TTSEngine:
    return EspeakEngine()


async def pipeline_rows(loop_name: str, runs: int, have_espeak: bool) -> list[Row]:
    rows = [
        Row(
            f"1 first audio overhead, fake 50 ms [{loop_name}]",
            await first_audio_overhead(fake_engine, runs),
            0.030,
        ),
        Row(
            f"2 gap beyond engine, fake 50 ms [{loop_name}]",
            await gaps_beyond_engine(fake_engine, runs),
            0.050,
        ),
    ]
    if have_espeak:
        rows.insert(
            1,
            Row(
                f"1 first audio overhead, espeak-ng [{loop_name}]",
                await first_audio_overhead(espeak_engine, runs),
                0.030,
            ),
        )
        rows.append(
            Row(
                f"2 gap beyond engine, espeak-ng [{loop_name}]",
                await gaps_beyond_engine(espeak_engine, runs),
                0.050,
            )
        )
    return rows


async def qt_rows(runs: int, have_espeak: bool) -> list[Row]:
    rows = await pipeline_rows("qasync", runs, have_espeak)
    if have_espeak:
        rows.insert(
            2,
            Row("1b … to QMediaPlayer playing, espeak-ng [qasync]", await first_sound_overhead(runs), 0.030),
        )
        engine = EspeakEngine()
        clips = [(await engine.synthesize(f"第{i}句，这是测试。")).audio for i in range(max(4, runs // 2))]
        long_text = "这是一段比较长的测试语音，用来测量中断到静音需要多长时间。" * 3
        long_clip = (await engine.synthesize(long_text)).audio
    else:
        clips = [tone_wav(0.8) for _ in range(max(4, runs // 2))]
        long_clip = tone_wav(10.0)
    rows.append(Row("2b QMediaPlayer switch gap (8x) [qasync]", await player_switch_gaps(clips), 0.050))
    stopped, returned = await interrupt_to_silence(long_clip, max(5, runs // 2))
    rows.append(Row("3 interrupt → StoppedState [qasync]", stopped, 0.100))
    rows.append(Row("3 interrupt → play() returned [qasync]", returned, 0.100))
    return rows


def run_plain(coro_factory: Callable[[], Coroutine[Any, Any, list[Row]]]) -> list[Row]:
    with asyncio.Runner() as runner:
        return runner.run(coro_factory())


def run_qt(app: QApplication, coro_factory: Callable[[], Coroutine[Any, Any, list[Row]]]) -> list[Row]:
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        return runner.run(coro_factory())


def print_ratios(rows: list[Row]) -> None:
    """Section 4 as ratios: streamed over whole clip (p50), per reply kind."""
    p50 = {row.name: statistics.median(row.values) for row in rows}
    for kind in ("short first clause", "long first sentence"):
        whole = p50.get(f"4 first token → first PCM at sink, espeak whole clip, {kind}")
        streamed = p50.get(f"4 first token → first PCM at sink, espeak streamed, {kind}")
        if whole and streamed:
            print(f"4 streamed / whole clip, first PCM at sink, {kind}: {streamed / whole:.2f}")
    whole = p50.get("4 espeak-ng alone, long paragraph: whole synthesis")
    first = p50.get("4 espeak-ng alone, long paragraph: first PCM chunk")
    if whole and first:
        print(f"4 espeak-ng first chunk / whole synthesis, long paragraph: {first / whole:.2f}")


BenchRows = list[tuple[str, list[float], float | None]]


def run_plain_rows(coro_factory: Callable[[], Coroutine[Any, Any, BenchRows]]) -> BenchRows:
    with asyncio.Runner() as runner:
        return runner.run(coro_factory())


def run_qt_rows(app: QApplication, coro_factory: Callable[[], Coroutine[Any, Any, BenchRows]]) -> BenchRows:
    app.setQuitOnLastWindowClosed(False)  # closing the bench window must not end the loop
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        return runner.run(coro_factory())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sections-4-7", action="store_true", help="only sections 4–7")
    parser.add_argument("--piper", action="store_true", help="only section 8 (Piper against espeak-ng)")
    parser.add_argument("--barge", action="store_true", help="only section 6 (barge-in)")
    args = parser.parse_args()
    have_espeak = shutil.which("espeak-ng") is not None
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    rows: list[Row] = []
    if args.barge:
        rows += [Row(*row) for row in run_qt_rows(app, lambda: window_rows(args.runs, only_barge_in=True))]
    if not args.sections_4_7 and not args.piper and not args.barge:
        rows += run_plain(lambda: pipeline_rows("asyncio", args.runs, have_espeak))
        rows += run_qt(app, lambda: qt_rows(args.runs, have_espeak))
    if have_espeak and not args.piper and not args.barge:
        rows += [Row(*row) for row in run_plain_rows(lambda: first_sample_rows(args.runs))]
        rows += [Row(*row) for row in run_qt_rows(app, lambda: window_rows(args.runs))]
    piper: BenchRows = []
    if have_espeak and not args.sections_4_7 and not args.barge:
        piper = run_plain_rows(lambda: piper_rows(args.runs))
        rows += [Row(*row) for row in piper]
    header = ["measure", "n", "p50 ms", "p95 ms", "max ms", "target", ""]
    table = [header] + [row.cells() for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print(
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(line, widths, strict=True))
            )
        )
    if not have_espeak:
        print("(espeak-ng not installed: its rows are missing)")
    else:
        print_ratios(rows)
        print_piper_summary(piper)
    return 0


if __name__ == "__main__":
    sys.exit(main())
