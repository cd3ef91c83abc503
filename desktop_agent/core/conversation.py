"""Conversation: one chat thread. Runs turns (handler + playback queue on one
bus), keeps the history built from what was consumed, and is what the
window and the terminal call to interrupt and to answer approvals.

A turn that starts ``muted`` (the user's mute, or no audio device) is not
synthesised at all: nobody would hear it, and its text then never waits for
speech. Muting later goes to the running queue
(:meth:`PlaybackQueue.set_muted`); unmuting during a turn that started muted
leaves that turn silent (its speech was never made) and speaks from the next.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.history import HistoryError, check_history, repair_history, truncate_for_send
from desktop_agent.core.hooks import ONCE_KEY, hook_messages, kept
from desktop_agent.core.json_types import JSONDict
from desktop_agent.core.playback import PlaybackQueue, PlaybackView
from desktop_agent.core.ports import AudioSink, SpeechPort
from desktop_agent.core.session import SessionManager

log = logging.getLogger(__name__)

SpeechFactory = Callable[[SessionMessageBus], SpeechPort | None]

__all__ = ["Conversation", "SpeechFactory", "TurnOutcome"]


class Conversation:
    def __init__(
        self,
        agent: AgentClient,
        *,
        approvals: ApprovalManager | None = None,
        sessions: SessionManager | None = None,
        conversation_id: str | None = None,
        speech_factory: SpeechFactory | None = None,
        approval_timeout_s: float = 300.0,
        history: list[JSONDict] | None = None,
    ) -> None:
        self.agent = agent
        self.approvals = approvals or ApprovalManager()
        self.sessions = sessions or SessionManager()
        self.conversation_id = conversation_id or uuid.uuid4().hex
        self.speech_factory = speech_factory
        self.approval_timeout_s = approval_timeout_s
        self.history: list[JSONDict] = list(history or [])
        self._handler = ChatHandler(agent, self.approvals, self.sessions)
        self._session_id: str | None = None
        self._handler_task: asyncio.Task[TurnOutcome] | None = None
        self._queue: PlaybackQueue | None = None
        self._carried: list[JSONDict] = []
        """Non-persistent ``after_rejection``/``turn_end`` hook messages of
        the last turn: sent with the next turn's first request only."""

    @property
    def busy(self) -> bool:
        return self._session_id is not None

    @property
    def session_id(self) -> str | None:
        return self._session_id

    @property
    def replying(self) -> bool:
        """The model's side of the running turn is still going; False once
        only its tail plays (the last sentences' speech)."""
        return self._handler_task is not None and not self._handler_task.done()

    @property
    def queue(self) -> PlaybackQueue | None:
        return self._queue

    def messages_for(self, user_text: str) -> list[JSONDict]:
        """What the next turn sends: earlier turns truncated, then the user."""
        return [*truncate_for_send(self.history), *self._carried, {"role": "user", "content": user_text}]

    async def run_turn(
        self,
        user_text: str,
        view: PlaybackView,
        *,
        sink: AudioSink | None = None,
        auto_approve: Callable[[str], bool] = lambda name: False,
        on_bus: Callable[[SessionMessageBus], None] | None = None,
        muted: bool = False,
    ) -> TurnOutcome:
        if self._session_id is not None:
            raise RuntimeError("a turn is already running in this conversation")
        session_id = uuid.uuid4().hex[:12]
        bus = SessionMessageBus(session_id)
        start = hook_messages(self.agent.hooks, "turn_start")  # after the user's message
        if on_bus is not None:
            on_bus(bus)
        speech = self.speech_factory(bus) if self.speech_factory and not muted else None
        queue = PlaybackQueue(
            view,
            approver=self._approve,
            on_shown=self._approval_shown,
            auto_approve=auto_approve,
            sink=sink,
            expect_audio=speech is not None,
            muted=muted,
        )
        queue.attach(bus)
        self._session_id, self._queue = session_id, queue
        self.sessions.start(session_id)
        handler = self._handler_task = asyncio.create_task(
            self._handler.handle_chat(
                session_id,
                bus,
                [*self.messages_for(user_text), *start],
                conversation_id=self.conversation_id,
                speech=speech,
                approval_timeout_s=self.approval_timeout_s,
                timer_from_shown=True,  # the queue says when the card shows
            )
        )
        try:
            await queue.run(bus)
            outcome = await handler
        finally:
            try:
                if not handler.done():
                    self.sessions.cancel(session_id, "user")
                    await asyncio.gather(handler, return_exceptions=True)
            finally:
                self._session_id, self._queue, self._handler_task = None, None, None
                self.sessions.finish(session_id)
                # Whatever ended the turn (a cancelled task, a view that
                # raised), what the user saw is kept.
                self._keep(user_text, queue, start)
        return outcome

    def _keep(self, user_text: str, queue: PlaybackQueue, start: list[JSONDict]) -> None:
        """Add the turn to the history: the user's text, its persistent
        ``turn_start`` hooks, what the queue consumed (its last unflushed
        text included), then its persistent ``after_rejection`` (when a call
        was rejected or interrupted) and ``turn_end`` hooks; their
        non-persistent ones wait for the next turn's first request. A turn
        that fails the history check is repaired (and the reason logged),
        never dropped."""
        queue.history.flush()
        turn = [{"role": "user", "content": user_text}, *kept(start), *queue.history.messages]
        try:
            check_history(turn)
        except HistoryError as exc:
            log.warning("conversation %s: the turn's history was repaired: %s", self.conversation_id, exc)
            turn = repair_history(turn)
        hooks = self.agent.hooks
        end = hook_messages(hooks, "after_rejection") if queue.history.rejected else []
        end += hook_messages(hooks, "turn_end")
        turn.extend(kept(end))
        self._carried = [m for m in end if ONCE_KEY in m]
        self.history.extend(turn)

    def interrupt(self) -> bool:
        """The interrupt button: False when no turn is running."""
        session_id, queue = self._session_id, self._queue
        if session_id is None:
            return False
        if queue is not None:
            queue.stop_now()
        self.sessions.cancel(session_id, "user")
        return True

    def answer_approval(self, task_id: str, approved: bool) -> bool:
        """Answer through the queue so it unblocks; False when not pending."""
        queue = self._queue
        if queue is None:
            return False
        return queue.answer(task_id, approved)

    def _approval_shown(self, task_id: str) -> None:
        session_id = self._session_id
        if session_id is not None:
            self.approvals.shown(approval_key(session_id, task_id))

    def _approve(self, task_id: str, approved: bool) -> bool:
        session_id = self._session_id
        if session_id is None:
            return False
        ok = self.approvals.respond(approval_key(session_id, task_id), approved)
        if not approved:
            self.sessions.cancel(session_id, "rejected")
        return ok
