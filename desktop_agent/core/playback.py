"""PlaybackQueue: the one ordered consumer of a turn's bus (contracts §6):
text, audio and tool events share it, so the user sees the bus order.

Policy only; a :class:`PlaybackView` renders and an :class:`AudioSink` plays.

- A voice ``text`` waits for its ``audio`` (or its error, or a timeout) and is
  shown as its audio starts; other text shows at once. Streamed audio (a
  ``SpeechStream``: its first chunk exists, more is coming) goes to the
  sink's ``play_stream`` and the text shows as it starts, as for a clip.
- Muted (the user's mute, or no audio device: the front end says which turn
  is, and :meth:`PlaybackQueue.set_muted` when it changes) the queue neither
  waits for audio nor plays it: a voice text shows at once, as if it were
  plain. Muting mid-reply releases a text waiting for its audio and stops the
  clip playing, at once; the text still enters history (it was shown).
  Unmuting lets later voice texts wait for their audio again.
- Tool events are handled at once and in order; ``approval_required`` blocks
  the queue until answered (by the user, or the always-allow list).
- ``interrupted`` drops every text not yet shown; tool events still pass so
  the history keeps the rejection.
- :meth:`PlaybackQueue.skip_current` stops only the clip playing: the queue
  goes on with the next segment (the user skips a sentence, not the turn).
- The view is shown exactly what was consumed; the conversation records
  that (``core/transcript.py``: :class:`TranscriptRecorder` wraps the view)
  and derives history from it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Protocol, TypeVar, assert_never

from desktop_agent.core.audit import Decider
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import (
    AudioEndMessage,
    AudioMessage,
    BusItem,
    BusMessage,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
    TranscriptMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.nested_call import approval_subject
from desktop_agent.core.ports import AudioSink
from desktop_agent.core.risk import AutoDecider

log = logging.getLogger(__name__)
_T = TypeVar("_T")

ToolEvent = (
    ToolCallMessage
    | ToolProgressMessage
    | ToolOutputMessage
    | FormRequestMessage
    | CardMessage
    | ToolRejectedMessage
)
"""What a view shows as tool activity, at once and in order."""


class PlaybackView(Protocol):
    """What the queue drives: the Qt window or the terminal."""

    def show_text(self, message: TextMessage) -> None:
        """A ``text`` message, shown now (for voice text: as its audio starts)."""

    def round_ended(self, message: RoundEndMessage) -> None:
        """An agent round ended: the next text starts a new paragraph."""

    def tool_event(self, message: ToolEvent) -> None:
        """A ``tool_call`` (any state but a blocking approval),
        ``tool_progress``, ``tool_output``, ``form_request``, ``card`` or
        ``tool_rejected``."""

    def approval_needed(self, message: ToolCallMessage) -> None:
        """A ``tool_call[approval_required]`` the user must answer; answer
        with :meth:`PlaybackQueue.answer`. The queue waits meanwhile."""

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        """A ``tool_call[approval_required]`` approved without asking: by the
        always-allow list, the trusted read-only setting or a headless flag."""

    def notice(self, message: WarningMessage | ErrorMessage) -> None:
        """A ``warning`` or ``error``."""

    def interrupted(self, message: InterruptedMessage) -> None:
        """The turn was interrupted: pending cards become invalid."""

    def turn_ended(self, message: TurnEndMessage) -> None:
        """The handler finished the turn."""


Approver = Callable[[str, bool, Decider], bool]
"""Answers an approval by ``task_id`` (who answered: the audit); False when
it was no longer pending."""
AutoApprove = Callable[[str], "AutoDecider | bool | None"]
"""Who approves a tool (by name; a server's request by its entry,
``core.nested_call.approval_subject``) without asking, if anyone: True
stands for the always-allow list; False or None: ask."""
CallApprove = Callable[[ToolCallMessage], "AutoDecider | None"]
"""Who approves one call, read from its arguments (a user's rule for a
command, ``core/command_rules.py``), when :data:`AutoApprove` does not; None: ask."""


class PlaybackQueue:
    def __init__(
        self,
        view: PlaybackView,
        *,
        approver: Approver,
        auto_approve: AutoApprove = lambda name: None,
        approve_call: CallApprove = lambda message: None,
        sink: AudioSink | None = None,
        expect_audio: bool = False,
        audio_timeout_s: float = 20.0,
        muted: bool = False,
        on_shown: Callable[[str], None] = lambda task_id: None,
    ) -> None:
        self._view = view
        self._approver = approver
        self._on_shown = on_shown
        """Told the task_id of each approval once the view shows it (its
        timeout starts then)."""
        self._auto_approve = auto_approve
        self._approve_call = approve_call
        self._sink = sink
        self._expect_audio = expect_audio
        self._audio_timeout_s = audio_timeout_s
        self._items: deque[BusMessage] = deque()
        self._audio: dict[int, AudioMessage] = {}
        self._arrived = asyncio.Event()
        self._interrupt = asyncio.Event()
        self._answered: asyncio.Event | None = None
        self._waiting_task_id: str | None = None
        self._waiting_call: tuple[str, str | None] | None = None
        """The call whose approval the queue waits on (its id, its parent's)."""
        self._waiting_audio: int | None = None
        self._muted = muted
        self._playing = False
        self._bus: SessionMessageBus | None = None

    # ------------------------------------------------------------- control

    def answer(self, task_id: str, approved: bool, by: Decider = "user") -> bool:
        """The user (``by``: a click, a spoken answer, a headless flag)
        answered an approval."""
        ok = self._approver(task_id, approved, by)
        if task_id == self._waiting_task_id and self._answered is not None:
            self._answered.set()
        return ok

    def stop_now(self) -> None:
        """Local interrupt: silence at once and drop all unshown text."""
        self._interrupt.set()
        if self._sink is not None:
            self._sink.stop()

    def skip_current(self) -> bool:
        """Skip the sentence being spoken: its clip stops and the queue goes
        on with the next segment. Unlike :meth:`stop_now` (an interrupt),
        nothing is dropped: the skipped text was shown when its audio
        started and stays in the history, and the next voice text still
        waits for its own audio. False when no clip plays (a text still
        waiting for its audio is not being spoken yet)."""
        if not self._playing or self._sink is None:
            return False
        self._sink.stop()
        return True

    @property
    def speaking(self) -> bool:
        """A voice segment's clip is playing now."""
        return self._playing

    def set_muted(self, muted: bool) -> None:
        """Speech cannot (or can again) be heard. Muting releases a text
        waiting for its audio and silences the clip playing, at once."""
        self._muted = muted
        if muted:
            self._arrived.set()  # wakes a wait for audio, which sees the mute
            if self._playing and self._sink is not None:
                self._sink.stop()

    @property
    def muted(self) -> bool:
        return self._muted

    @property
    def waiting_approval(self) -> str | None:
        """The task_id the queue is blocked on, if any."""
        return self._waiting_task_id

    @property
    def waiting_audio(self) -> int | None:
        """The voice segment whose audio the queue is waiting for, if any."""
        return self._waiting_audio

    # ---------------------------------------------------------------- run

    def attach(self, bus: SessionMessageBus) -> None:
        """Start taking the bus's messages (before the turn's first push:
        the bus does not keep what nobody listened to)."""
        if self._bus is None:
            self._bus = bus
            bus.add_listener(self._take)

    async def run(self, bus: SessionMessageBus) -> None:
        """Consume the bus until ``turn_end`` (attaching first if
        :meth:`attach` was not called).

        Items arrive through a synchronous bus listener rather than a reader
        task: one wake-up per message instead of two, on the streaming path.
        """
        self.attach(bus)
        try:
            while True:
                message = await self._next()
                if not await self._consume(message):
                    return
        finally:
            bus.remove_listener(self._take)

    def _take(self, item: BusItem) -> None:
        message = item.message
        if isinstance(message, AudioMessage):
            self._audio[message.segment_id] = message
        else:
            if isinstance(message, InterruptedMessage):
                self.stop_now()
            elif self._answered is not None and self._ends_waiting(message):
                # Its approval ended unanswered while the turn goes on (a
                # server's request that timed out): the queue moves on to it.
                self._answered.set()
            self._items.append(message)
        self._arrived.set()

    def _ends_waiting(self, message: BusMessage) -> bool:
        """``message`` ends the call whose approval the queue waits on."""
        return isinstance(message, ToolRejectedMessage) and self._waiting_call == (
            message.tool_call_id, message.parent_tool_call_id
        )

    async def _next(self) -> BusMessage:
        while not self._items:
            self._arrived.clear()
            await self._arrived.wait()
        return self._items.popleft()

    async def _consume(self, message: BusMessage) -> bool:
        """Handle one message; False once the turn is over."""
        match message:
            case TextMessage():
                if not self._interrupt.is_set():
                    await self._play_text(message)
            case ToolCallMessage(state="approval_required"):
                await self._approval(message)
            case (
                ToolCallMessage()
                | ToolProgressMessage()
                | ToolOutputMessage()
                | FormRequestMessage()
                | CardMessage()
                | ToolRejectedMessage()
            ):
                self._view.tool_event(message)
            case RoundEndMessage():
                if not self._interrupt.is_set():
                    self._view.round_ended(message)
            case WarningMessage() | ErrorMessage():
                self._view.notice(message)
            case InterruptedMessage():
                self._view.interrupted(message)
            case TurnEndMessage():
                self._view.turn_ended(message)
                return False
            case AudioMessage() | AudioEndMessage() | TranscriptMessage():
                # Audio is kept aside by _take (a stream's end is the sink's to
                # hear, not the queue's); speech input is shown by the front end
                # that captured it.
                pass
            case _:
                assert_never(message)
        return True

    async def _play_text(self, message: TextMessage) -> None:
        audio: AudioMessage | None = None
        if message.voice and self._expect_audio:
            if self._muted:
                self._audio.pop(message.segment_id, None)
            else:
                audio = await self._wait_audio(message.segment_id)
                if self._interrupt.is_set():
                    return
        self._view.show_text(message)
        if audio is not None and self._sink is not None and not self._muted:
            if audio.stream is not None:
                play = asyncio.ensure_future(self._sink.play_stream(audio.stream))
            elif audio.audio:
                play = asyncio.ensure_future(self._sink.play(audio.audio, audio.mime or ""))
            else:
                return
            self._playing = True
            try:
                await self._until(play)
            finally:
                self._playing = False

    async def _wait_audio(self, segment_id: int) -> AudioMessage | None:
        async def arrived() -> AudioMessage | None:
            while segment_id not in self._audio:
                if self._muted:
                    return None
                self._arrived.clear()
                await self._arrived.wait()
            return self._audio.pop(segment_id)

        waiter = asyncio.ensure_future(arrived())
        self._waiting_audio = segment_id
        try:
            async with asyncio.timeout(self._audio_timeout_s):
                await self._until(waiter)
        except TimeoutError:
            log.warning("no audio for segment %s after %ss", segment_id, self._audio_timeout_s)
            return None
        finally:
            self._waiting_audio = None
        return waiter.result() if waiter.done() and not waiter.cancelled() else None

    async def _approval(self, message: ToolCallMessage) -> None:
        task_id = message.task_id
        assert task_id is not None, "approval_required always carries a task_id"
        if self._interrupt.is_set():
            return
        auto = self._auto_approve(approval_subject(message)) or self._approve_call(message)  # a server's request: its own entry
        if auto:
            by: AutoDecider = "always_allow" if auto is True else auto
            self._view.auto_approved(message, by)
            self._approver(task_id, True, by)
            return
        self._answered = asyncio.Event()
        self._waiting_task_id = task_id
        self._waiting_call = (message.tool_call_id, message.parent_tool_call_id)
        self._view.approval_needed(message)
        self._on_shown(task_id)
        if any(self._ends_waiting(m) for m in self._items):
            self._answered.set()  # it ended before the queue reached it
        try:
            await self._until(asyncio.ensure_future(self._answered.wait()))
        finally:
            self._waiting_task_id = None
            self._waiting_call = None
            self._answered = None

    async def _until(self, fut: asyncio.Future[_T]) -> None:
        """Wait for ``fut`` unless an interrupt comes first (then cancel it)."""
        stop: asyncio.Future[bool] = asyncio.ensure_future(self._interrupt.wait())
        either: set[asyncio.Future[_T] | asyncio.Future[bool]] = {fut, stop}
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not fut.done():
                fut.cancel()
                await asyncio.gather(fut, return_exceptions=True)
