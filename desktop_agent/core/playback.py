"""PlaybackQueue: the one ordered consumer of a turn's bus (the seed's
audioQueue, DESIGN §6).

Policy only; a :class:`PlaybackView` renders and an :class:`AudioSink` plays.

- A voice ``text`` waits for its ``audio`` (or its error, or a timeout) and is
  shown as its audio starts; other text shows at once.
- Tool events are handled at once and in order; ``approval_required`` blocks
  the queue until answered (by the user, or the always-allow list).
- ``interrupted`` drops every text not yet shown; tool events still pass so
  the history keeps the rejection.
- What was consumed feeds the :class:`HistoryRecorder`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from desktop_agent.core.bus import BusItem, SessionMessageBus
from desktop_agent.core.history import HistoryRecorder
from desktop_agent.core.ports import AudioSink

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]


class PlaybackView(Protocol):
    """What the queue drives: the Qt window or the terminal."""

    def show_text(self, message: JSONDict) -> None:
        """A ``text`` message, shown now (for voice text: as its audio starts)."""

    def tool_event(self, item: BusItem) -> None:
        """``tool_call`` (any state but a blocking approval), ``tool_progress``,
        ``form_request``, ``card``, ``tool_rejected``. ``item.images`` holds a
        result's images."""

    def approval_needed(self, message: JSONDict) -> None:
        """A ``tool_call[approval_required]`` the user must answer; answer
        with :meth:`PlaybackQueue.answer`. The queue waits meanwhile."""

    def notice(self, message: JSONDict) -> None:
        """A ``warning`` or ``error``."""

    def interrupted(self, message: JSONDict) -> None:
        """The turn was interrupted: pending cards become invalid."""

    def turn_ended(self, message: JSONDict) -> None:
        """The handler finished the turn."""


Approver = Callable[[str, bool], bool]
"""Answers an approval by ``task_id``; False when it was no longer pending."""


class PlaybackQueue:
    def __init__(
        self,
        view: PlaybackView,
        *,
        approver: Approver,
        auto_approve: Callable[[str], bool] = lambda name: False,
        sink: AudioSink | None = None,
        expect_audio: bool = False,
        audio_timeout_s: float = 20.0,
        history: HistoryRecorder | None = None,
    ) -> None:
        self._view = view
        self._approver = approver
        self._auto_approve = auto_approve
        self._sink = sink
        self._expect_audio = expect_audio
        self._audio_timeout_s = audio_timeout_s
        self.history = history or HistoryRecorder()
        self._items: deque[BusItem] = deque()
        self._audio: dict[int, BusItem] = {}
        self._arrived = asyncio.Event()
        self._interrupt = asyncio.Event()
        self._answered: asyncio.Event | None = None
        self._waiting_task_id: str | None = None

    # ------------------------------------------------------------- control

    def answer(self, task_id: str, approved: bool) -> bool:
        """The user (or the always-allow list) answered an approval."""
        ok = self._approver(task_id, approved)
        if task_id == self._waiting_task_id and self._answered is not None:
            self._answered.set()
        return ok

    def stop_now(self) -> None:
        """Local interrupt: silence at once and drop all unshown text."""
        self._interrupt.set()
        if self._sink is not None:
            self._sink.stop()

    @property
    def waiting_approval(self) -> str | None:
        """The task_id the queue is blocked on, if any."""
        return self._waiting_task_id

    # ---------------------------------------------------------------- run

    async def run(self, bus: SessionMessageBus) -> None:
        """Consume the bus until ``turn_end``.

        Items arrive through a synchronous bus listener rather than a reader
        task: one wake-up per message instead of two, on the streaming path.
        """
        while (early := bus.get_nowait()) is not None:  # pushed before we listened
            self._take(early)
        bus.add_listener(self._take)
        try:
            while True:
                item = await self._next()
                if not await self._consume(item):
                    return
        finally:
            bus.remove_listener(self._take)

    def _take(self, item: BusItem) -> None:
        kind = item.type
        if kind == "audio":
            self._audio[int(item.message["segment_id"])] = item
        else:
            if kind == "interrupted":
                self.stop_now()
            self._items.append(item)
        self._arrived.set()

    async def _next(self) -> BusItem:
        while not self._items:
            self._arrived.clear()
            await self._arrived.wait()
        return self._items.popleft()

    async def _consume(self, item: BusItem) -> bool:
        """Handle one item; False once the turn is over."""
        message = item.message
        kind = item.type
        if kind == "text":
            if not self._interrupt.is_set():
                await self._play_text(message)
        elif kind == "tool_call" and message.get("state") == "approval_required":
            self.history.consume(message)
            await self._approval(message)
        elif kind in ("tool_call", "tool_progress", "form_request", "card", "tool_rejected"):
            self.history.consume(message)
            self._view.tool_event(item)
        elif kind == "round_end":
            if not self._interrupt.is_set():
                self.history.consume(message)
        elif kind in ("warning", "error"):
            self._view.notice(message)
        elif kind == "interrupted":
            self.history.consume(message)
            self._view.interrupted(message)
        elif kind == "turn_end":
            self.history.consume(message)
            self._view.turn_ended(message)
            return False
        return True

    async def _play_text(self, message: JSONDict) -> None:
        audio: BusItem | None = None
        if message.get("voice") and self._expect_audio:
            audio = await self._wait_audio(int(message["segment_id"]))
            if self._interrupt.is_set():
                return
        self.history.consume(message)
        self._view.show_text(message)
        if audio is not None and audio.audio and self._sink is not None:
            play = asyncio.ensure_future(
                self._sink.play(audio.audio, str(audio.message.get("mime", "")))
            )
            await self._until(play)

    async def _wait_audio(self, segment_id: int) -> BusItem | None:
        async def arrived() -> BusItem:
            while segment_id not in self._audio:
                self._arrived.clear()
                await self._arrived.wait()
            return self._audio.pop(segment_id)

        waiter = asyncio.ensure_future(arrived())
        try:
            async with asyncio.timeout(self._audio_timeout_s):
                await self._until(waiter)
        except TimeoutError:
            log.warning("no audio for segment %s after %ss", segment_id, self._audio_timeout_s)
            return None
        return waiter.result() if waiter.done() and not waiter.cancelled() else None

    async def _approval(self, message: JSONDict) -> None:
        task_id = str(message["task_id"])
        if self._interrupt.is_set():
            return
        if self._auto_approve(str(message["tool_name"])):
            self._view.tool_event(BusItem({**message, "auto_approved": True}))
            self._approver(task_id, True)
            return
        self._answered = asyncio.Event()
        self._waiting_task_id = task_id
        self._view.approval_needed(message)
        try:
            await self._until(asyncio.ensure_future(self._answered.wait()))
        finally:
            self._waiting_task_id = None
            self._answered = None

    async def _until(self, fut: asyncio.Future[Any]) -> None:
        """Wait for ``fut`` unless an interrupt comes first (then cancel it)."""
        stop = asyncio.ensure_future(self._interrupt.wait())
        try:
            await asyncio.wait({fut, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not fut.done():
                fut.cancel()
                await asyncio.gather(fut, return_exceptions=True)
