"""ChatHandler: drives one turn's agent generator and pushes bus messages
(contracts §4, seed 000 §4).

Cancellation: ``SessionManager.cancel`` cancels the task running
:meth:`ChatHandler.handle_chat`. The CancelledError lands wherever the turn
is — streaming, executing a tool (its subprocess group is killed, its MCP
request cancelled), or waiting for approval — and the handler turns it into
``tool_rejected`` (when a tool was active) and ``interrupted``. No task is
created per chunk, so the streaming hot path stays cheap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from contextlib import aclosing
from typing import Any

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.audit import request_for
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.events import (
    NoticeChunk,
    RoundEndChunk,
    SegmentChunk,
    ToolCallChunk,
    ToolCallInfo,
    TurnOutcome,
)
from desktop_agent.core.messages import (
    ErrorMessage,
    InterruptedMessage,
    InterruptReason,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.ports import AnswerTimedOut, SpeechPort, SubAgentStopped
from desktop_agent.core.rejection import (
    REASON_INTERRUPTED,
    REASON_NO_ANSWER,
    REASON_NOT_RUN,
    REASON_REJECTED,
    REASON_TIMEOUT,
    rejection_text,
)
from desktop_agent.core.session import SessionManager
from desktop_agent.core.sub_agent import SubAgentRunner
from desktop_agent.core.tool_context import BusToolContext

log = logging.getLogger(__name__)

__all__ = [
    "REASON_INTERRUPTED",
    "REASON_NOT_RUN",
    "REASON_NO_ANSWER",
    "REASON_REJECTED",
    "REASON_TIMEOUT",
    "ChatHandler",
]


class _Interrupt(Exception):
    def __init__(self, reason: InterruptReason) -> None:
        self.reason = reason


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
        messages: Sequence[Mapping[str, Any]],
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
        phase = "stream"

        def on_cancel(sid: str, _reason: InterruptReason) -> None:
            # An approval wait is woken by cancel_session; only a turn that is
            # streaming or executing needs its task cancelled.
            self.approvals.cancel_session(sid)
            if phase == "stream":
                task.cancel()

        self.sessions.add_callback(session_id, on_cancel)
        # active_tool is private to this coroutine (seed §4): no other
        # coroutine reads or writes it, so it needs no lock.
        active: ToolCallInfo | None = None
        executing = False
        pending_key: str | None = None
        segment_ids = 0
        outcome = TurnOutcome("completed", session_id=session_id)
        contexts: dict[str, BusToolContext] = {}

        def nested_waiting(waiting: bool) -> None:
            # A sub-agent's approval waits like a main one: an interrupt wakes
            # it through cancel_session instead of cancelling the task under it.
            nonlocal phase
            phase = "approval" if waiting else "stream"

        sub_agents = SubAgentRunner(
            bus=bus,
            session_id=session_id,
            approvals=self.approvals,
            sessions=self.sessions,
            llm=lambda: self.agent.llm,
            approval_timeout_s=approval_timeout_s,
            timer_from_shown=timer_from_shown,
            on_waiting=nested_waiting,
            budget=lambda: self.agent.budget,
        )

        def context(tool_call_id: str) -> BusToolContext:
            ctx = contexts[tool_call_id] = BusToolContext(
                bus,
                tool_call_id,
                conversation_id,
                answer_timeout_s=approval_timeout_s,
                sub_agents=sub_agents,
            )
            return ctx

        agen = self.agent.chat_stream(messages, context)
        try:
            async with aclosing(agen):
                try:
                    early = self.sessions.cancel_reason(session_id)
                    if early is not None:
                        raise _Interrupt(early)
                    async for chunk in agen:
                        if isinstance(chunk, SegmentChunk):
                            segment = chunk.segment
                            if not segment.text:
                                continue  # a round of tags only: nothing to show or keep
                            segment_ids += 1
                            bus.push(
                                TextMessage(segment_ids, segment.text, segment.raw_text, segment.voice)
                            )
                            if segment.voice and speech is not None and segment.spoken:
                                speech.submit(segment_ids, segment.spoken)
                        elif isinstance(chunk, RoundEndChunk):
                            bus.push(RoundEndMessage(chunk.round, chunk.kind, chunk.hooks))
                        elif isinstance(chunk, NoticeChunk):
                            if chunk.level == "error":
                                bus.push(ErrorMessage(chunk.message, chunk.code))
                                outcome = TurnOutcome("error", chunk.message, session_id)
                            else:
                                bus.push(WarningMessage(chunk.message, chunk.code))
                        else:
                            assert isinstance(chunk, ToolCallChunk)
                            call = chunk.call
                            if call.state == "start":
                                self._push_call(bus, call)
                            elif call.state == "approval_required":
                                active, executing = call, False
                                assert call.task_id is not None
                                # Register before pushing, in the same frame.
                                routed = self.agent.router.lookup(call.name)
                                pending_key = self.approvals.register(
                                    session_id,
                                    call.task_id,
                                    request_for(
                                        call.id, call.name, call.arguments,
                                        routed,
                                        conversation_id=conversation_id,
                                    ),
                                )
                                self._push_call(bus, call)
                                phase = "approval"
                                approved = await self.approvals.wait(
                                    pending_key, approval_timeout_s, from_shown=timer_from_shown
                                )
                                phase = "stream"
                                pending_key = None
                                if not approved:
                                    reason = self.sessions.cancel_reason(session_id)
                                    raise _Interrupt(reason or "approval_timeout")
                            elif call.state == "executing":
                                active, executing = call, True
                                self._push_call(bus, call)
                                if call.follow_up is not None:
                                    bus.push(call.follow_up)
                            else:
                                done = contexts.pop(call.id, None)
                                if done is not None:
                                    done.flush_output()  # every line before the result
                                self._push_call(bus, call)
                                active, executing = None, False
                except asyncio.CancelledError:
                    task.uncancel()
                    reason = self.sessions.cancel_reason(session_id)
                    raise _Interrupt(reason or "user") from None
                except AnswerTimedOut:
                    raise _Interrupt("approval_timeout") from None
                except SubAgentStopped as stopped:
                    # The nested call's tool_rejected is on the bus already;
                    # the sub_agent call's own follows (active, executing).
                    raise _Interrupt(stopped.reason) from None
                finally:
                    phase = "done"
        except _Interrupt as interrupt:
            reason = interrupt.reason
            if active is not None:
                ctx = contexts.get(active.id) if executing else None
                self._push_rejected(bus, active, reason, ctx)
            bus.push(InterruptedMessage(reason))
            outcome = TurnOutcome(reason, session_id=session_id)
        except Exception as exc:  # the composition boundary of a turn
            log.exception("turn %s failed", session_id)
            bus.push(ErrorMessage(f"internal error: {exc}", "internal"))
            bus.push(InterruptedMessage("error"))
            outcome = TurnOutcome("error", str(exc), session_id)
        finally:
            if pending_key is not None:
                self.approvals.respond(pending_key, False, by="interrupt")
            if speech is not None:
                if outcome.status == "completed" or outcome.status == "error":
                    await speech.drain()
                else:
                    speech.cancel()
            bus.push(TurnEndMessage())
        return outcome

    @staticmethod
    def _push_call(bus: SessionMessageBus, call: ToolCallInfo) -> None:
        result = call.result
        bus.push(
            ToolCallMessage(
                call.state,
                call.id,
                call.name,
                call.arguments,
                task_id=call.task_id,
                result=result.text if result is not None else None,
                is_error=result.is_error if result is not None else None,
                images=result.images if result is not None else (),
            )
        )

    @staticmethod
    def _push_rejected(
        bus: SessionMessageBus,
        call: ToolCallInfo,
        reason: InterruptReason,
        executing: BusToolContext | None,
    ) -> None:
        """``executing``: the context of the call when it was running.
        Synchronous, so reading its partial output cannot interleave with
        the tool's writer."""
        text = rejection_text(reason, executing=executing is not None)
        partial = None
        if executing is not None:
            executing.flush_output()
            partial = executing.partial.snapshot()
        bus.push(ToolRejectedMessage(call.id, call.name, call.arguments, text, partial))
