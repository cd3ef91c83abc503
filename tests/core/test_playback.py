"""PlaybackQueue: ordered consumption, voice waits for audio, approval blocks,
interrupt clears what is left (contracts §6)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from desktop_agent.core.audit import Decider
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.history import history_of
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import (
    AudioMessage,
    BusMessage,
    ErrorMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.playback import Approver, PlaybackQueue, ToolEvent
from desktop_agent.core.risk import AutoDecider
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.core.transcript import Shown
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.fake_sink import FakeAudioSink


class RecordingView:
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.shown: list[BusMessage] = []
        """Every message shown, as the conversation's transcript records it."""
        self.changed = asyncio.Event()

    def _add(self, kind: str, value: Any, message: BusMessage) -> None:
        self.events.append((kind, value))
        self.shown.append(message)
        self.changed.set()

    def show_text(self, message: TextMessage) -> None:
        self._add("text", message.text, message)

    def round_ended(self, message: RoundEndMessage) -> None:
        self._add("round_end", message.round, message)

    def tool_event(self, message: ToolEvent) -> None:
        self._add("tool", message.state if isinstance(message, ToolCallMessage) else message.type, message)

    def approval_needed(self, message: ToolCallMessage) -> None:
        self._add("approval", message.task_id, message)

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        self._add("auto_approved", message.task_id, message)

    def notice(self, message: WarningMessage | ErrorMessage) -> None:
        self._add("notice", message.message, message)

    def interrupted(self, message: InterruptedMessage) -> None:
        self._add("interrupted", message.reason, message)

    def turn_ended(self, message: TurnEndMessage) -> None:
        self._add("turn_end", None, message)

    def history(self) -> list[JSONObject]:
        """The history derived from what was shown (``core/history.history_of``), as saved."""
        return history_json(history_of(Shown(message, 0) for message in self.shown).messages)

    async def wait_for(self, kind: str) -> None:
        while not any(k == kind for k, _ in self.events):
            self.changed.clear()
            await self.changed.wait()


async def until(condition: Callable[[], bool]) -> None:
    """Let the loop run until ``condition`` holds (callers bound the wait)."""
    while not condition():
        await asyncio.sleep(0)


def push_text(bus: SessionMessageBus, seg: int, text: str, voice: bool = False) -> None:
    bus.push(TextMessage(seg, text, text, voice))


def push_audio(bus: SessionMessageBus, seg: int, data: bytes = b"RIFF") -> None:
    bus.push(AudioMessage(seg, mime="audio/wav", bytes=len(data), engine="fake", audio=data))


def recorder(answers: list[tuple[str, bool]]) -> Approver:
    """An approver that records each answer and says it was pending."""

    def approve(task_id: str, approved: bool, by: Decider) -> bool:
        answers.append((task_id, approved))
        return True

    return approve


def approval(task_id: str = "t1", name: str = "x") -> ToolCallMessage:
    return ToolCallMessage("approval_required", "c", name, {}, task_id=task_id)


def speaking_queue(
    *, muted: bool = False
) -> tuple[SessionMessageBus, RecordingView, FakeAudioSink, PlaybackQueue, asyncio.Task[None]]:
    """A running queue that expects audio for voice text, with a fake
    speaker: the bus, the view, the speaker, the queue and its task."""
    bus = SessionMessageBus("s")
    view, sink = RecordingView(), FakeAudioSink()
    queue = PlaybackQueue(view, approver=lambda t, a, by: True, sink=sink, expect_audio=True, muted=muted)
    queue.attach(bus)
    return bus, view, sink, queue, asyncio.create_task(queue.run(bus))


async def test_voice_text_waits_for_its_audio_and_plays_in_order() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    async with asyncio.timeout(5):
        push_text(bus, 1, "one", voice=True)
        push_text(bus, 2, "plain")
        push_text(bus, 3, "three", voice=True)
        push_audio(bus, 3, b"c3")  # finishes first
        await until(lambda: queue.waiting_audio == 1)
        assert view.events == []  # segment 1 still waits for its audio
        push_audio(bus, 1, b"c1")
        await sink.wait_for_plays(1)
        assert view.events == [("text", "one")]
        sink.finish()
        await sink.wait_for_plays(2)
        sink.finish()
        bus.push(TurnEndMessage())
        await runner
    assert [p[0] for p in sink.plays] == [b"c1", b"c3"]
    assert view.events == [("text", "one"), ("text", "plain"), ("text", "three"), ("turn_end", None)]
    assert [m["role"] for m in view.history()] == ["assistant"]


async def test_failed_audio_still_shows_text_and_queue_goes_on() -> None:
    bus = SessionMessageBus("s")
    view, sink = RecordingView(), FakeAudioSink()
    queue = PlaybackQueue(view, approver=lambda t, a, by: True, sink=sink, expect_audio=True)
    queue.attach(bus)
    push_text(bus, 1, "broken", voice=True)
    bus.push(AudioMessage(1, error="offline", engine="fake"))
    bus.push(TurnEndMessage())
    async with asyncio.timeout(5):
        await queue.run(bus)
    assert view.events == [("text", "broken"), ("turn_end", None)]
    assert sink.plays == []


async def test_approval_blocks_the_queue_until_answered() -> None:
    bus = SessionMessageBus("s")
    view = RecordingView()
    answers: list[tuple[str, bool]] = []
    queue = PlaybackQueue(view, approver=recorder(answers))
    queue.attach(bus)
    runner = asyncio.create_task(queue.run(bus))
    bus.push(approval())
    push_text(bus, 1, "after")
    async with asyncio.timeout(5):
        await view.wait_for("approval")
        await asyncio.sleep(0)
        assert view.events == [("approval", "t1")]
        assert queue.waiting_approval == "t1"
        assert queue.answer("t1", True)
        await view.wait_for("text")
        bus.push(TurnEndMessage())
        await runner
    assert answers == [("t1", True)]
    assert view.events == [("approval", "t1"), ("text", "after"), ("turn_end", None)]


async def test_a_nested_request_whose_approval_ended_unanswered_releases_the_queue() -> None:
    bus = SessionMessageBus("s")
    view = RecordingView()
    queue = PlaybackQueue(view, approver=recorder([]))
    queue.attach(bus)
    asking = ToolCallMessage(
        "approval_required", "c-sampling-1", "sampling", {"server": "x"}, task_id="c.sampling1",
        parent_tool_call_id="c",
    )
    bus.push(asking)
    bus.push(ToolRejectedMessage("c-sampling-1", "sampling", {"server": "x"}, "timed out", None,
                                 parent_tool_call_id="c"))
    push_text(bus, 1, "after")
    bus.push(TurnEndMessage())
    async with asyncio.timeout(5):
        await queue.run(bus)
    assert view.events == [
        ("approval", "c.sampling1"), ("tool", "tool_rejected"), ("text", "after"), ("turn_end", None),
    ]


async def test_always_allowed_tool_is_answered_without_asking() -> None:
    bus = SessionMessageBus("s")
    view = RecordingView()
    answers: list[tuple[str, bool]] = []
    queue = PlaybackQueue(view, approver=recorder(answers),
                          auto_approve=lambda name: name == "x")
    queue.attach(bus)
    bus.push(approval())
    bus.push(TurnEndMessage())
    async with asyncio.timeout(5):
        await queue.run(bus)
    assert answers == [("t1", True)]
    assert view.events == [("auto_approved", "t1"), ("turn_end", None)]


async def test_interrupted_drops_unshown_text_and_stops_playback() -> None:
    bus, view, sink, _queue, runner = speaking_queue()
    push_text(bus, 1, "playing", voice=True)
    push_audio(bus, 1)
    push_text(bus, 2, "never shown", voice=True)
    push_text(bus, 3, "never shown either")
    async with asyncio.timeout(5):
        await sink.wait_for_plays(1)
        bus.push(InterruptedMessage("user"))
        bus.push(TurnEndMessage())
        await runner
    assert ("stop",) in sink.log
    assert view.events == [("text", "playing"), ("interrupted", "user"), ("turn_end", None)]
    assert view.history() == [{"role": "assistant", "content": "playing"}]


async def test_interrupt_unblocks_a_pending_approval() -> None:
    bus = SessionMessageBus("s")
    view = RecordingView()
    queue = PlaybackQueue(view, approver=lambda t, a, by: True)
    queue.attach(bus)
    runner = asyncio.create_task(queue.run(bus))
    bus.push(approval())
    async with asyncio.timeout(5):
        await view.wait_for("approval")
        bus.push(ToolRejectedMessage("c", "x", {}, "timed out"))
        bus.push(InterruptedMessage("approval_timeout"))
        bus.push(TurnEndMessage())
        await runner
    assert view.events == [("approval", "t1"), ("tool", "tool_rejected"),
                           ("interrupted", "approval_timeout"), ("turn_end", None)]
    assert view.history()[-1] == {"role": "tool", "tool_call_id": "c", "content": "timed out"}


async def test_a_muted_queue_shows_voice_text_at_once_and_plays_nothing() -> None:
    bus, view, sink, queue, runner = speaking_queue(muted=True)
    async with asyncio.timeout(5):
        push_text(bus, 1, "One. ", voice=True)
        push_text(bus, 2, "Two.", voice=True)
        await until(lambda: len(view.events) == 2)  # neither audio has come
        assert queue.waiting_audio is None
        push_audio(bus, 1, b"c1")  # late audio is never played
        push_audio(bus, 2, b"c2")
        bus.push(TurnEndMessage())
        await runner
    assert view.events == [("text", "One. "), ("text", "Two."), ("turn_end", None)]
    assert sink.log == []
    assert view.history() == [{"role": "assistant", "content": "One. Two."}]


async def test_muting_releases_the_text_waiting_for_its_audio_and_unmuting_waits_again() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    async with asyncio.timeout(5):
        push_text(bus, 1, "One. ", voice=True)
        await until(lambda: queue.waiting_audio == 1)
        queue.set_muted(True)
        await view.wait_for("text")
        assert (queue.muted, queue.waiting_audio) == (True, None)
        push_audio(bus, 1, b"c1")  # too late, and muted: not played
        queue.set_muted(False)
        push_text(bus, 2, "Two.", voice=True)
        await until(lambda: queue.waiting_audio == 2)
        assert view.events == [("text", "One. ")]
        push_audio(bus, 2, b"c2")
        await sink.wait_for_plays(1)
        sink.finish()
        bus.push(TurnEndMessage())
        await runner
    assert sink.plays == [(b"c2", "audio/wav")]
    assert view.events == [("text", "One. "), ("text", "Two."), ("turn_end", None)]
    assert view.history() == [{"role": "assistant", "content": "One. Two."}]


async def test_muting_mid_reply_silences_the_clip_and_the_rest_shows_at_once() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    async with asyncio.timeout(5):
        push_text(bus, 1, "One. ", voice=True)
        push_audio(bus, 1, b"c1")
        push_text(bus, 2, "Two. ", voice=True)
        push_audio(bus, 2, b"c2")  # ready, but muted before its turn
        push_text(bus, 3, "Three.", voice=True)  # its audio never comes
        await sink.wait_for_plays(1)
        assert view.events == [("text", "One. ")]
        queue.set_muted(True)
        await until(lambda: len(view.events) == 3)
        bus.push(TurnEndMessage())
        await runner
    assert sink.log == [("play", b"c1", "audio/wav"), ("stop",), ("stopped", 0)]
    assert view.events == [("text", "One. "), ("text", "Two. "), ("text", "Three."), ("turn_end", None)]
    assert view.history() == [{"role": "assistant", "content": "One. Two. Three."}]


def push_stream(bus: SessionMessageBus, seg: int, stream: SpeechStream) -> None:
    bus.push(AudioMessage(seg, mime=stream.mime, engine="fake", stream=stream))


async def test_streamed_audio_shows_its_text_as_the_first_chunk_plays_and_keeps_order() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    first, second = SpeechStream(sample_rate=22050, engine="fake"), SpeechStream(sample_rate=22050, engine="fake")
    async with asyncio.timeout(5):
        push_text(bus, 1, "one", voice=True)
        push_text(bus, 2, "two", voice=True)
        second.feed(b"B1")
        push_stream(bus, 2, second)  # ready first, still waits its turn
        await until(lambda: queue.waiting_audio == 1)
        first.feed(b"A1")
        push_stream(bus, 1, first)
        await sink.wait_until(lambda: sink.plays[:1] == [(b"A1", first.mime)])
        assert view.events == [("text", "one")]  # shown while synthesis goes on
        first.feed(b"A2")
        await sink.wait_until(lambda: sink.plays[0][0] == b"A1A2")
        first.finish()
        sink.finish()
        await sink.wait_until(lambda: len(sink.plays) == 2 and sink.plays[1][0] == b"B1")
        second.finish()
        sink.finish()
        bus.push(TurnEndMessage())
        await runner
    assert sink.log == [("stream", first.mime), ("end", 0), ("stream", second.mime), ("end", 1)]
    assert view.events == [("text", "one"), ("text", "two"), ("turn_end", None)]
    assert view.history() == [{"role": "assistant", "content": "onetwo"}]


async def test_interrupt_silences_a_stream_still_being_produced() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    stream = SpeechStream(sample_rate=22050, engine="fake")
    stream.feed(b"A1")
    push_text(bus, 1, "speaking", voice=True)
    push_stream(bus, 1, stream)
    push_text(bus, 2, "never shown", voice=True)
    async with asyncio.timeout(5):
        await sink.wait_for_plays(1)
        queue.stop_now()
        await sink.wait_idle()
        stream.feed(b"A2")  # produced after the stop: never reaches the sink
        bus.push(TurnEndMessage())
        await runner
    assert sink.log == [("stream", stream.mime), ("stop",), ("stopped", 0)]
    assert sink.plays == [(b"A1", stream.mime)]
    assert view.events == [("text", "speaking"), ("turn_end", None)]


async def test_a_muted_queue_shows_streamed_voice_text_at_once_and_plays_nothing() -> None:
    bus, view, sink, _queue, runner = speaking_queue(muted=True)
    stream = SpeechStream(sample_rate=22050, engine="fake")
    stream.feed(b"A1")
    push_text(bus, 1, "quiet", voice=True)
    push_stream(bus, 1, stream)
    bus.push(TurnEndMessage())
    async with asyncio.timeout(5):
        await runner
    assert sink.log == []
    assert view.events == [("text", "quiet"), ("turn_end", None)]


async def test_skipping_stops_only_the_sentence_spoken_and_the_next_one_plays() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    async with asyncio.timeout(5):
        push_text(bus, 1, "One. ", voice=True)
        push_audio(bus, 1, b"c1")
        push_text(bus, 2, "Two. ", voice=True)
        push_audio(bus, 2, b"c2")
        push_text(bus, 3, "Three.")
        await sink.wait_for_plays(1)
        assert queue.speaking
        assert queue.skip_current()
        await sink.wait_for_plays(2)
        assert view.events == [("text", "One. "), ("text", "Two. ")]
        sink.finish()
        bus.push(TurnEndMessage())
        await runner
    assert sink.log == [("play", b"c1", "audio/wav"), ("stop",), ("stopped", 0),
                        ("play", b"c2", "audio/wav"), ("end", 1)]
    assert view.events == [("text", "One. "), ("text", "Two. "), ("text", "Three."), ("turn_end", None)]
    assert view.history() == [{"role": "assistant", "content": "One. Two. Three."}]
    assert not queue.speaking


async def test_skipping_with_no_clip_playing_changes_nothing() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    async with asyncio.timeout(5):
        assert not queue.skip_current()  # nothing yet
        push_text(bus, 1, "One.", voice=True)
        await until(lambda: queue.waiting_audio == 1)
        assert not queue.skip_current()  # waiting for its audio is not speaking
        assert (queue.waiting_audio, view.events, sink.log) == (1, [], [])
        push_audio(bus, 1, b"c1")
        await sink.wait_for_plays(1)
        sink.finish()
        bus.push(TurnEndMessage())
        await runner
    assert sink.log == [("play", b"c1", "audio/wav"), ("end", 0)]
    assert view.events == [("text", "One."), ("turn_end", None)]


async def test_skipping_the_narration_reaches_the_approval_behind_it_without_interrupting() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    async with asyncio.timeout(5):
        push_text(bus, 1, "I will now explain at length what this command does. ", voice=True)
        push_audio(bus, 1, b"long")
        bus.push(approval())
        await sink.wait_for_plays(1)
        assert queue.waiting_approval is None  # held back by the speech
        assert queue.skip_current()
        await view.wait_for("approval")
        assert queue.waiting_approval == "t1"
        queue.answer("t1", True)
        bus.push(TurnEndMessage())
        await runner
    assert [kind for kind, _ in view.events] == ["text", "approval", "turn_end"]
    assert sink.log == [("play", b"long", "audio/wav"), ("stop",), ("stopped", 0)]


async def test_skipping_a_stream_goes_on_to_the_next_segment() -> None:
    bus, view, sink, queue, runner = speaking_queue()
    first, second = SpeechStream(sample_rate=22050, engine="fake"), SpeechStream(sample_rate=22050, engine="fake")
    first.feed(b"A1")
    second.feed(b"B1")
    async with asyncio.timeout(5):
        push_text(bus, 1, "one", voice=True)
        push_stream(bus, 1, first)
        push_text(bus, 2, "two", voice=True)
        push_stream(bus, 2, second)
        await sink.wait_for_plays(1)
        assert queue.skip_current()
        await sink.wait_for_plays(2)
        first.feed(b"A2")  # still being produced: never reaches the sink
        first.finish()
        second.finish()
        sink.finish()
        bus.push(TurnEndMessage())
        await runner
    assert sink.log == [("stream", first.mime), ("stop",), ("stopped", 0), ("stream", second.mime), ("end", 1)]
    assert sink.plays[0] == (b"A1", first.mime)
    assert view.events == [("text", "one"), ("text", "two"), ("turn_end", None)]
