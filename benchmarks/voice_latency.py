"""Issue 11 latencies, run from ``bench_voice.py`` (section 4–7 rows).

4. First token → first audible sample with espeak-ng, whole clip vs
   streamed. A reply streams into the real ``StreamParser`` (each token in
   its own loop turn), through ``SpeechPipeline`` and the real
   ``PlaybackQueue`` to a timestamping sink at the ``AudioSink`` port
   (:class:`~desktop_agent.testing.fake_sink.FakeAudioSink`): "first
   audible sample" is the moment the first PCM reaches the sink, the whole
   WAV handed to ``play`` (before) or the first chunk read by
   ``play_stream`` (after). No sound device exists on these machines, so the
   device's own output latency is not in it. Two replies: a short first
   clause, and a long first sentence (where streaming matters). Target
   ≤ 100 ms for the short first clause.
5. End of utterance → transcript, and → the first LLM request, in the real
   window (hands-free, ``VoiceInput`` + ``VoiceGlue`` + ``TurnController``
   → ``OpenAIProvider`` → the scripted server), the microphone being 20
   espeak-ng utterances of 2–5 s fed by ``WavAudioInput`` (4x pace: the
   measures start at the frame that ended the utterance), after one
   warm-up utterance (the first turn of a window pays one-off costs). "End of
   utterance" is that frame's callback (the VAD's own end-silence wait is
   before it); pocketsphinx's own time (around ``transcribe``) is
   subtracted. Target ≤ 30 ms.
6. Barge-in: speech onset → audio stopped. The window plays a voiced reply
   (espeak-ng, to a timestamping sink); the microphone says a sentence
   after 0.6 s of silence. Reported: the VAD's own detection time (audio
   time from onset to the frame where barge-in fired: ``barge_in_ms`` plus
   the detector's lag) and, beyond it, that frame's callback → ``stop()``
   on the sink. Target ≤ 150 ms.
7. Pocketsphinx real-time factor (recognition time / audio time) over the
   utterances of 5, as a figure.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import (
    ErrorMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.playback import PlaybackQueue, ToolEvent
from desktop_agent.core.ports import Speech, TTSEngine
from desktop_agent.core.risk import AutoDecider
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.core.stream_parser import Segment, StreamParser
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.wav_input import FRAME_MS, WavAudioInput
from desktop_agent.voice import EspeakEngine, SpeechPipeline
from desktop_agent.voice.pcm import read_wav16, silence16

# ----------------------------------------------------------------- 4: first sample


class WholeClipEngine:
    """espeak-ng without ``open_stream``: the pipeline's whole-clip path."""

    def __init__(self, inner: EspeakEngine) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def cache_key(self) -> str:
        return self.inner.cache_key

    async def synthesize(self, text: str) -> Speech:
        return await self.inner.synthesize(text)


class StampingSink(FakeAudioSink):
    """Records when the first PCM reached it, whole clip or streamed chunk."""

    def __init__(self, *, auto_finish_s: float | None = None) -> None:
        super().__init__(auto_finish_s=auto_finish_s)
        self.first_pcm: float | None = None
        self.stopped_at: float | None = None

    async def play(self, audio: bytes, mime: str) -> None:
        if self.first_pcm is None:
            self.first_pcm = self.clock()
        await super().play(audio, mime)

    async def play_stream(self, stream: SpeechStream) -> None:
        task = asyncio.ensure_future(super().play_stream(stream))
        await self.wait_until(lambda: bool(self.chunk_times) and bool(self.chunk_times[0]))
        if self.first_pcm is None:
            self.first_pcm = self.chunk_times[0][0][0]
        await task

    def stop(self) -> None:
        if self.stopped_at is None:
            self.stopped_at = self.clock()
        super().stop()


class NullView:
    def show_text(self, message: TextMessage) -> None: ...
    def round_ended(self, message: RoundEndMessage) -> None: ...
    def tool_event(self, message: ToolEvent) -> None: ...
    def approval_needed(self, message: ToolCallMessage) -> None: ...
    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None: ...
    def notice(self, message: WarningMessage | ErrorMessage) -> None: ...
    def interrupted(self, message: InterruptedMessage) -> None: ...
    def turn_ended(self, message: TurnEndMessage) -> None: ...


SHORT_FIRST = "<voice>Sure, let me check. {body}</voice>"
LONG_FIRST = "<voice>{body}</voice>"
BODY = (
    "Reply {run}: the weather in the mountains will stay cold and windy for most of the week, with snow on "
    "the higher passes and rain in the valleys, so plan any travel for the weekend when it clears up again."
)


async def first_sample_once(engine: TTSEngine, reply: str) -> float:
    """First token → first PCM at the sink, through parser, pipeline and queue."""
    bus = SessionMessageBus("bench")
    sink = StampingSink(auto_finish_s=0.05)
    queue = PlaybackQueue(NullView(), approver=lambda t, a, by: True, sink=sink, expect_audio=True)
    queue.attach(bus)
    runner = asyncio.ensure_future(queue.run(bus))
    pipeline = SpeechPipeline(engine, bus)  # fresh cache: always synthesised
    parser = StreamParser()
    segment_id = 0

    def handle(segments: list[Segment]) -> None:
        nonlocal segment_id
        for segment in segments:  # as ChatHandler does
            if not segment.text:
                continue
            segment_id += 1
            bus.push(TextMessage(segment_id, segment.text, segment.raw_text, segment.voice))
            if segment.voice and segment.spoken:
                pipeline.submit(segment_id, segment.spoken)

    first_token = time.perf_counter()
    for i in range(0, len(reply), 2):
        handle(parser.feed(reply[i : i + 2]))
        await asyncio.sleep(0)
    handle(parser.flush())
    async with asyncio.timeout(30):
        await sink.wait_until(lambda: sink.first_pcm is not None)
        queue.stop_now()
        pipeline.cancel()
        bus.push(TurnEndMessage())
        await runner
    assert sink.first_pcm is not None
    return sink.first_pcm - first_token


async def engine_rows(runs: int) -> list[tuple[str, list[float], float | None]]:
    """espeak-ng alone on a long paragraph: the whole synthesis (what a
    whole clip waits for) and the first chunk (what a stream waits for)."""
    engine = EspeakEngine()
    whole, first = [], []
    for run in range(runs + 1):
        text = " ".join(BODY.format(run=run + i) for i in range(3))
        start = time.perf_counter()
        await engine.synthesize(text)
        whole.append(time.perf_counter() - start)
        start = time.perf_counter()
        stream = await engine.open_stream(text)
        first.append(time.perf_counter() - start)
        await stream.wait_finished()
        seconds = stream.size / 44100
    print(f"(section 4 engine rows: a paragraph of {seconds:.0f} s of speech)")
    return [
        ("4 espeak-ng alone, long paragraph: whole synthesis", whole[1:], None),
        ("4 espeak-ng alone, long paragraph: first PCM chunk", first[1:], None),
    ]


async def first_sample_rows(runs: int) -> list[tuple[str, list[float], float | None]]:
    rows: list[tuple[str, list[float], float | None]] = await engine_rows(runs)
    for label, template in (("short first clause", SHORT_FIRST), ("long first sentence", LONG_FIRST)):
        for mode in ("whole clip", "streamed"):
            values = []
            for run in range(runs + 1):  # run 0 warms up
                espeak = EspeakEngine()
                engine: TTSEngine = WholeClipEngine(espeak) if mode == "whole clip" else espeak
                values.append(await first_sample_once(engine, template.format(body=BODY.format(run=run))))
                await espeak.wait_streams()  # the cancelled stream's process is reaped
            target = 0.100 if label == "short first clause" else None
            rows.append((f"4 first token → first PCM at sink, espeak {mode}, {label}", values[1:], target))
    return rows


# -------------------------------------------------------------- 5–7: the window


UTTERANCES = [
    "what time is it in tokyo right now and is it already dark there",
    "please open the calendar for tomorrow and show me the first meeting",
    "read me the last message from my brother and tell me when he sent it",
    "how much free space is left on the main disk of this computer",
    "set a timer for ten minutes and tell me when it ends please",
    "what is the weather like in the city today and will it rain tonight",
    "turn the volume down a little and then play the next song in the list",
    "search the documents folder for the budget report from last year",
    "remind me to call the dentist on monday morning before nine",
    "list the files in my downloads folder that are larger than one megabyte",
    "what did i ask you a moment ago about the train to the airport",
    "show me the photos from the trip to the lake last summer",
    "close all the windows except the browser and the terminal",
    "how long will it take to drive to the airport in the evening traffic",
    "translate good morning and thank you very much into french and german",
    "play some quiet music while i work on the report this afternoon",
    "send the draft to the team and ask them for comments by friday",
    "what is on my schedule this afternoon and can i move the last meeting",
    "check whether the backup finished last night and how long it took",
    "stop the music and tell me a short joke about computers",
]


async def espeak_utterances(texts: list[str]) -> list[bytes]:
    """16 kHz PCM of each text, as a microphone would give it."""
    engine = EspeakEngine()
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for i, text in enumerate(texts):
            path = Path(folder) / f"u{i}.wav"
            path.write_bytes((await engine.synthesize(text)).audio)
            out.append(read_wav16(path))
    return out


class StampedInput(WavAudioInput):
    """Records the start of each frame callback; ``ended_at``: the callback
    during which the listener stopped the microphone (utterance end or
    barge-in), with the number of frames delivered until then."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.frame_at = 0.0
        self.frames = 0
        self.ended_at: list[tuple[float, int]] = []
        self._in_frame = False

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        self.frames = 0

        def stamped(pcm: bytes) -> None:
            self.frame_at = time.perf_counter()
            self.frames += 1
            self._in_frame = True
            try:
                on_frames(pcm)
            finally:
                self._in_frame = False

        super().start(stamped)

    def stop(self) -> None:
        if self._in_frame:
            self.ended_at.append((self.frame_at, self.frames))
        super().stop()


@dataclass
class TimedRecognizer:
    inner: Any
    spans: list[tuple[float, float, int]] = field(default_factory=list)
    """(start, end, bytes of PCM) per call."""

    @property
    def name(self) -> str:
        return str(self.inner.name)

    async def transcribe(self, pcm16: bytes, sample_rate: int = 16000) -> str:
        start = time.perf_counter()
        try:
            return str(await self.inner.transcribe(pcm16, sample_rate))
        finally:
            self.spans.append((start, time.perf_counter(), len(pcm16)))


class StampedList(list[Any]):
    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def append(self, item: Any) -> None:
        self.times.append(time.perf_counter())
        super().append(item)


@dataclass
class WindowResult:
    to_transcript: list[float]
    to_request: list[float]
    transcript_to_request: list[float]
    rtf: list[float]
    sphinx_s: list[float]


async def utterance_rows(clips: list[bytes]) -> WindowResult:
    from desktop_agent.testing.scripted_server import text_reply
    from desktop_agent.testing.window_rig import SignalLog, scripted_window
    from desktop_agent.voice.stt import PocketsphinxRecognizer
    from desktop_agent.voice.vad import WebRtcVad

    audio = StampedInput([clips[-1], *clips], speed=4, tail_s=1.5)  # the first is a warm-up
    recognizer = TimedRecognizer(PocketsphinxRecognizer())
    await recognizer.inner.transcribe(clips[0])  # load the model before timing
    voice = {"audio_input": audio, "recognizer": recognizer, "vad": WebRtcVad}
    async with scripted_window(lambda _request: text_reply("OK."), voice=voice) as rig:
        requests = StampedList()
        rig.server.requests = requests
        glue = rig.window.voice
        assert glue is not None
        transcripts = SignalLog(glue.voice.transcript)
        stamps: list[float] = []
        glue.voice.transcript.connect(lambda *_a: stamps.append(time.perf_counter()))
        rig.window.hands_free_button.setChecked(True)
        for _ in range(len(clips) + 1):
            await transcripts.wait_for(timeout=60)
            await rig.turns.wait_for(timeout=60)
        rig.window.hands_free_button.setChecked(False)
    ends = [t for t, _ in audio.ended_at][1:]
    stamps = stamps[1:]
    spans = recognizer.spans[1:]  # after the warm-up (the model load did not go through it)
    to_transcript, to_request, between, rtf, sphinx = [], [], [], [], []
    for i, (start, end, size) in enumerate(spans):
        engine = end - start
        sphinx.append(engine)
        rtf.append(engine / (size / 32000))
        to_transcript.append(stamps[i] - ends[i] - engine)
        first_request = min(t for t in requests.times if t >= stamps[i])
        to_request.append(first_request - ends[i] - engine)
        between.append(first_request - stamps[i])
    return WindowResult(to_transcript, to_request, between, rtf, sphinx)


LEAD_S = 0.6


def onset_s(pcm: bytes, threshold: int = 1000) -> float:
    """Where speech starts in a 16 kHz clip (espeak-ng pads its own silence)."""
    samples = memoryview(pcm).cast("h")
    for i, sample in enumerate(samples):
        if abs(sample) > threshold:
            return i / 16000
    return len(samples) / 16000


async def barge_in_rows(clip: bytes, runs: int) -> tuple[list[float], list[float]]:
    """(VAD's own detection time, detection frame → sink stopped) per run."""
    from desktop_agent.core.agent import AgentClient
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.tool_router import ToolRouter
    from desktop_agent.llm.openai_provider import OpenAIProvider
    from desktop_agent.storage.settings import Settings, SettingsStore
    from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
    from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply
    from desktop_agent.testing.window_rig import SignalLog
    from desktop_agent.tools import builtin_tools
    from desktop_agent.ui.main_window import MainWindow
    from desktop_agent.ui.window_deps import WindowDeps
    from desktop_agent.voice.vad import WebRtcVad

    store = SettingsStore()
    store.save(Settings(barge_in=True, barge_in_ms=300))
    settings = store.load().settings
    detect: list[float] = []
    to_stop: list[float] = []
    reply = "<voice>" + "This answer goes on for a long while, sentence after sentence. " * 6 + "</voice>"
    async with ScriptedLLMServer(lambda _request: text_reply(reply)) as server:
        forms = FormManager()
        provider = OpenAIProvider(base_url=server.base_url, api_key="bench-key", model="scripted")
        conversation = Conversation(
            AgentClient(provider, ToolRouter(builtin_tools(forms))),
            speech_factory=lambda bus: SpeechPipeline(EspeakEngine(), bus),
        )
        sink = StampingSink()  # plays until stopped
        audio = StampedInput([silence16(LEAD_S) + clip], speed=1, tail_s=0.5)
        deps = WindowDeps(
            conversation, forms, store, settings, model_name="scripted", sink=sink,
            audio_input=audio, recognizer=ScriptedRecognizer(), vad=WebRtcVad,
        )  # fmt: skip
        window = MainWindow(tray=False)
        window.attach(deps)
        turns = SignalLog(window.turn_finished)
        try:
            for _ in range(runs):
                sink.stopped_at = None
                audio.ended_at.clear()
                assert window.send_text("tell me a story")
                async with asyncio.timeout(20):
                    await sink.wait_until(lambda: sink.playing)
                window.hands_free_button.setChecked(True)  # busy: only barge-in listens
                await turns.wait_for(timeout=20)
                window.hands_free_button.setChecked(False)
                assert sink.stopped_at is not None and audio.ended_at, "barge-in did not stop the audio"
                frame_at, frames = audio.ended_at[0]
                detect.append(frames * FRAME_MS / 1000 - LEAD_S - onset_s(clip))
                to_stop.append(sink.stopped_at - frame_at)
        finally:
            window.close()
            await window.shutdown()
            forms.cancel_all()
    return detect, to_stop


async def window_rows(runs: int) -> list[tuple[str, list[float], float | None]]:
    home = tempfile.mkdtemp(prefix="bench-voice-home-")
    previous = os.environ.get("DESKTOP_AGENT_HOME")
    os.environ["DESKTOP_AGENT_HOME"] = home
    try:
        clips = await espeak_utterances(UTTERANCES)
        durations = [len(c) / 32000 for c in clips]
        result = await utterance_rows(clips)
        detect, to_stop = await barge_in_rows(clips[7], max(5, runs // 2))
    finally:
        if previous is None:
            os.environ.pop("DESKTOP_AGENT_HOME", None)
        else:
            os.environ["DESKTOP_AGENT_HOME"] = previous
    print(f"(utterances: {len(clips)}, {min(durations):.1f}–{max(durations):.1f} s of espeak-ng speech)")
    return [
        ("5 end of utterance → transcript, beyond pocketsphinx", result.to_transcript, 0.030),
        ("5 end of utterance → first LLM request, beyond pocketsphinx", result.to_request, 0.030),
        ("5 … of which transcript → first LLM request (turn + openai + HTTP)", result.transcript_to_request, None),
        ("5 (pocketsphinx's own recognition time)", result.sphinx_s, None),
        ("6 barge-in: VAD's own detection (audio time, 300 ms setting)", detect, None),
        ("6 barge-in: detection frame → sink stopped", to_stop, 0.150),
        ("7 pocketsphinx real-time factor (×1000, i.e. ms per s)", result.rtf, None),
    ]

