"""ChatHandler: drives one turn's agent generator and pushes bus messages
(contracts §4).

Tool calls go through a :class:`~desktop_agent.core.tool_driver.ToolCallDriver`
(the same one a sub-agent's calls go through); this module pushes the rest
(text, rounds, notices), hands speech its sentences, and ends the turn.

Cancellation: ``SessionManager.cancel`` cancels the task running
:meth:`ChatHandler.handle_chat` while the turn streams or executes a tool
(:class:`~desktop_agent.core.tool_driver.TurnPhase`). The CancelledError
lands wherever the turn is — streaming, or executing a tool (its subprocess
group is killed, its MCP request cancelled) — and the driver and handler
turn it into ``tool_rejected`` (when a tool was active) and ``interrupted``.
An approval that waits (the main agent's or a sub-agent's) is woken by
``ApprovalManager.cancel_session`` instead, with the same messages. No task
is created per chunk, so the streaming hot path stays cheap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from contextlib import aclosing

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.events import RoundEndChunk, SegmentChunk, TurnOutcome
from desktop_agent.core.messages import (
    ErrorMessage,
    InterruptedMessage,
    InterruptReason,
    RoundEndMessage,
    TextMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.ports import SpeechPort
from desktop_agent.core.rejection import (
    REASON_INTERRUPTED,
    REASON_NO_ANSWER,
    REASON_NOT_RUN,
    REASON_REJECTED,
    REASON_TIMEOUT,
)
from desktop_agent.core.session import SessionManager
from desktop_agent.core.sub_agent import SubAgentRunner
from desktop_agent.core.tool_driver import OtherChunk, ToolCallDriver, TurnPhase, TurnScope, TurnStopped
from desktop_agent.core.working_items import WorkingItem

log = logging.getLogger(__name__)

__all__ = [
    "REASON_INTERRUPTED",
    "REASON_NOT_RUN",
    "REASON_NO_ANSWER",
    "REASON_REJECTED",
    "REASON_TIMEOUT",
    "ChatHandler",
]


class ChatHandler:
    def __init__(
        self, agent: AgentClient, approvals: ApprovalManager, sessions: SessionManager
    ) -> None:
        self.agent = agent
        self.approvals = approvals
        self.sessions = sessions

    async def handle_chat(
        self,
        session_id: str,
        bus: SessionMessageBus,
        messages: Sequence[WorkingItem],
        *,
        conversation_id: str = "",
        speech: SpeechPort | None = None,
        approval_timeout_s: float = 300.0,
        timer_from_shown: bool = False,
    ) -> TurnOutcome:
        """``timer_from_shown``: an approval's timeout starts when the front
        end shows it (``ApprovalManager.shown``), not when it is pushed."""
        task = asyncio.current_task()
        assert task is not None
        if not self.sessions.is_active(session_id):
            self.sessions.start(session_id)
        scope = TurnScope(bus, session_id, self.approvals, self.sessions, approval_timeout_s, timer_from_shown)
        turn = _MainTurn(self.agent, scope, task, conversation_id, speech)
        self.sessions.add_callback(session_id, turn.on_cancel)
        return await turn.run(messages)


class _MainTurn:
    """One turn of the main agent; its state is private to :meth:`run`'s
    coroutine (no other coroutine reads or writes it, so it needs no lock)."""

    def __init__(
        self,
        agent: AgentClient,
        scope: TurnScope,
        task: asyncio.Task[TurnOutcome],
        conversation_id: str,
        speech: SpeechPort | None,
    ) -> None:
        self._agent = agent
        self._scope = scope
        self._task = task
        self._speech = speech
        self.phase = TurnPhase.STREAMING
        sub_agents = SubAgentRunner(
            scope, llm=lambda: agent.llm, on_waiting=self._waiting, budget=lambda: agent.budget
        )
        self._driver = ToolCallDriver(
            scope, agent.router, conversation_id=conversation_id, on_waiting=self._waiting,
            sub_agents=sub_agents,
        )
        self._segment_ids = 0
        self._outcome = TurnOutcome("completed", session_id=scope.session_id)

    def on_cancel(self, session_id: str, _reason: InterruptReason) -> None:
        # An approval wait is woken by cancel_session; only a turn that is
        # streaming or executing needs its task cancelled.
        self._scope.approvals.cancel_session(session_id)
        if self.phase is TurnPhase.STREAMING:
            self._task.cancel()

    def _waiting(self, waiting: bool) -> None:
        self.phase = TurnPhase.AWAITING_APPROVAL if waiting else TurnPhase.STREAMING

    async def run(self, messages: Sequence[WorkingItem]) -> TurnOutcome:
        scope = self._scope
        agen = self._agent.chat_stream(messages, self._driver.context)
        try:
            async with aclosing(agen):
                try:
                    early = scope.sessions.cancel_reason(scope.session_id)
                    if early is not None:
                        raise TurnStopped(early)
                    await self._driver.drive(agen, self._on_chunk)
                except asyncio.CancelledError:
                    self._task.uncancel()
                    reason = scope.sessions.cancel_reason(scope.session_id)
                    raise TurnStopped(reason or "user") from None
                finally:
                    self.phase = TurnPhase.DONE
        except TurnStopped as stopped:
            scope.bus.push(InterruptedMessage(stopped.reason))
            self._outcome = TurnOutcome(stopped.reason, session_id=scope.session_id)
        except Exception as exc:  # the composition boundary of a turn
            log.exception("turn %s failed", scope.session_id)
            scope.bus.push(ErrorMessage(f"internal error: {exc}", "internal"))
            scope.bus.push(InterruptedMessage("error"))
            self._outcome = TurnOutcome("error", str(exc), scope.session_id)
        finally:
            self._driver.release()
            if self._speech is not None:
                if self._outcome.status == "completed" or self._outcome.status == "error":
                    await self._speech.drain()
                else:
                    self._speech.cancel()
            scope.bus.push(TurnEndMessage())
        return self._outcome

    def _on_chunk(self, chunk: OtherChunk) -> None:
        bus = self._scope.bus
        if isinstance(chunk, SegmentChunk):
            segment = chunk.segment
            if not segment.text:
                return  # a round of tags only: nothing to show or keep
            self._segment_ids += 1
            bus.push(TextMessage(self._segment_ids, segment.text, segment.raw_text, segment.voice))
            if segment.voice and self._speech is not None and segment.spoken:
                self._speech.submit(self._segment_ids, segment.spoken)
        elif isinstance(chunk, RoundEndChunk):
            bus.push(RoundEndMessage(chunk.round, chunk.kind, chunk.hooks))
        elif chunk.level == "error":
            bus.push(ErrorMessage(chunk.message, chunk.code))
            self._outcome = TurnOutcome("error", chunk.message, self._scope.session_id)
        else:
            bus.push(WarningMessage(chunk.message, chunk.code))
