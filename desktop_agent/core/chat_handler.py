"""ChatHandler: drives one turn's agent generator and pushes bus messages
(DESIGN §4, seed 000 §4).

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
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.events import (
    NoticeChunk,
    RoundEndChunk,
    SegmentChunk,
    ToolCallInfo,
)
from desktop_agent.core.ports import SpeechPort
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import BusToolContext

log = logging.getLogger(__name__)

REASON_REJECTED = "The user rejected this tool call."
REASON_TIMEOUT = "The approval timed out, so the tool call was rejected."
REASON_INTERRUPTED = "The tool call was interrupted by the user."


@dataclass(frozen=True, slots=True)
class HandlerOutcome:
    status: str
    """``completed``, ``user``, ``rejected``, ``approval_timeout`` or ``error``."""
    error: str | None = None


class _Interrupt(Exception):
    def __init__(self, reason: str) -> None:
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
    ) -> HandlerOutcome:
        task = asyncio.current_task()
        assert task is not None
        if not self.sessions.is_active(session_id):
            self.sessions.start(session_id)
        phase = "stream"

        def on_cancel(sid: str, _reason: str) -> None:
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
        outcome = HandlerOutcome("completed")

        def context(tool_call_id: str) -> BusToolContext:
            return BusToolContext(bus, tool_call_id, conversation_id)

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
                            segment_ids += 1
                            bus.push(
                                "text",
                                segment_id=segment_ids,
                                text=segment.text,
                                raw_text=segment.raw_text,
                                voice=segment.voice,
                            )
                            if segment.voice and speech is not None:
                                speech.submit(segment_ids, segment.text)
                        elif isinstance(chunk, RoundEndChunk):
                            bus.push("round_end", round=chunk.round, kind=chunk.kind)
                        elif isinstance(chunk, NoticeChunk):
                            bus.push(chunk.level, message=chunk.message, code=chunk.code)
                            if chunk.level == "error":
                                outcome = HandlerOutcome("error", chunk.message)
                        else:
                            call = chunk.call
                            if call.state == "start":
                                self._push_call(bus, call)
                            elif call.state == "approval_required":
                                active, executing = call, False
                                assert call.task_id is not None
                                # Register before pushing, in the same frame.
                                pending_key = self.approvals.register(session_id, call.task_id)
                                self._push_call(bus, call)
                                phase = "approval"
                                approved = await self.approvals.wait(pending_key, approval_timeout_s)
                                phase = "stream"
                                pending_key = None
                                if not approved:
                                    reason = self.sessions.cancel_reason(session_id)
                                    raise _Interrupt(reason or "approval_timeout")
                            elif call.state == "executing":
                                active, executing = call, True
                                bus.tool_output_cache = None
                                self._push_call(bus, call)
                                if call.follow_up is not None:
                                    follow = dict(call.follow_up)
                                    bus.push(follow.pop("type"), **follow)
                            else:
                                self._push_call(bus, call)
                                active, executing = None, False
                except asyncio.CancelledError:
                    task.uncancel()
                    raise _Interrupt(self.sessions.cancel_reason(session_id) or "user") from None
                finally:
                    phase = "done"
        except _Interrupt as interrupt:
            reason = interrupt.reason
            if active is not None:
                self._push_rejected(bus, active, reason, executing)
            bus.push("interrupted", reason=reason)
            outcome = HandlerOutcome(reason)
        except Exception as exc:  # the composition boundary of a turn
            log.exception("turn %s failed", session_id)
            bus.push("error", message=f"internal error: {exc}", code="internal")
            bus.push("interrupted", reason="error")
            outcome = HandlerOutcome("error", str(exc))
        finally:
            if pending_key is not None:
                self.approvals.respond(pending_key, False)
            if speech is not None:
                if outcome.status == "completed" or outcome.status == "error":
                    await speech.drain()
                else:
                    speech.cancel()
            bus.push("turn_end")
        return outcome

    @staticmethod
    def _push_call(bus: SessionMessageBus, call: ToolCallInfo) -> None:
        fields: dict[str, Any] = {
            "state": call.state,
            "tool_call_id": call.id,
            "tool_name": call.name,
            "arguments": call.arguments,
        }
        if call.task_id is not None:
            fields["task_id"] = call.task_id
        if call.result is not None:
            fields["result"] = call.result.text
            fields["is_error"] = call.result.is_error
            bus.push("tool_call", images=call.result.images, **fields)
            return
        bus.push("tool_call", **fields)

    @staticmethod
    def _push_rejected(
        bus: SessionMessageBus, call: ToolCallInfo, reason: str, executing: bool
    ) -> None:
        """Synchronous, so reading the partial output cache cannot interleave
        with a tool's writer."""
        text = {"approval_timeout": REASON_TIMEOUT, "rejected": REASON_REJECTED}.get(
            reason, REASON_INTERRUPTED if executing else REASON_REJECTED
        )
        fields: dict[str, Any] = {
            "tool_call_id": call.id,
            "tool_name": call.name,
            "arguments": call.arguments,
            "reason": text,
        }
        if executing:
            cache = bus.tool_output_cache
            if cache is not None and cache.get("_id") == call.id:
                partial = bus.snapshot_partial()
                if partial is not None:
                    fields["partial_result"] = partial
        bus.push("tool_rejected", **fields)
