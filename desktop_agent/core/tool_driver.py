"""One tool-call driver for the main agent and its sub-agents (contracts §7,
the tool-call states; §9, sub-agents).

An agent generator yields each tool call at each state (``start``,
``approval_required``, ``executing``, ``result``); the driver turns them
into bus messages and does what each state asks of the turn: register the
approval before its ``approval_required`` is pushed (same frame) and wait
for it, flush a call's live output before its ``result``, and, when the turn
stops (rejected, unanswered, interrupted, a sub-agent stopped), push the
call in flight's ``tool_rejected`` with what it had produced.

The main agent and a sub-agent are driven by the same class; a sub-agent's
driver is one with a parent (the ``sub_agent`` call's context): its
messages carry ``parent_tool_call_id``, its task ids are
``<parent>.<tN>``, its approvals record the parent, its contexts cannot
start another sub-agent, and a call it stops is recorded in the parent's
partial output (``stopped_call``). Why one class: the two copies of this
loop drifted apart once already (each had its own rejection and flush
order), and every contract rule here holds for both.

The driver knows nothing of text, rounds or speech: what is not a tool call
goes to the caller's ``on_other``.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import assert_never

from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.audit import request_for
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.events import (
    LLMChunk,
    NoticeChunk,
    RoundEndChunk,
    SegmentChunk,
    ToolCallChunk,
    ToolCallInfo,
)
from desktop_agent.core.messages import InterruptReason, ToolCallMessage, ToolRejectedMessage
from desktop_agent.core.ports import AnswerTimedOut, SubAgentStopped, ToolContext
from desktop_agent.core.rejection import rejection_text
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import SubAgentHost, ToolRouter

OtherChunk = SegmentChunk | RoundEndChunk | NoticeChunk
"""What the driver hands back to its caller: everything but tool calls."""


class TurnPhase(enum.Enum):
    """Where a turn is, for deciding how an interrupt reaches it."""

    STREAMING = "streaming"
    """The agent generator runs (the model streams, a tool executes): an
    interrupt cancels the turn's task."""
    AWAITING_APPROVAL = "awaiting_approval"
    """An approval (the main agent's or a sub-agent's) waits: an interrupt
    wakes the wait (``ApprovalManager.cancel_session``) instead of
    cancelling the task under it."""
    DONE = "done"
    """The turn is ending: an interrupt has nothing left to stop."""


@dataclass(frozen=True, slots=True)
class TurnScope:
    """What every driver of one turn shares: where messages go, who answers
    approvals, and how long they wait."""

    bus: SessionMessageBus
    session_id: str
    approvals: ApprovalManager
    sessions: SessionManager
    approval_timeout_s: float
    timer_from_shown: bool
    """An approval's timeout starts when the front end shows it
    (``ApprovalManager.shown``), not when it is pushed."""


class TurnStopped(Exception):
    """The turn must end with ``reason``; the driver has already pushed the
    ``tool_rejected`` of the call in flight (if any)."""

    def __init__(self, reason: InterruptReason) -> None:
        super().__init__(reason)
        self.reason: InterruptReason = reason


class _NotApproved(Exception):
    def __init__(self, reason: InterruptReason) -> None:
        self.reason: InterruptReason = reason


class ToolCallDriver:
    """Drives the tool calls of one agent run (the main agent's turn, or one
    sub-agent run); its state is private to the coroutine in :meth:`drive`."""

    def __init__(
        self,
        scope: TurnScope,
        router: ToolRouter,
        *,
        conversation_id: str,
        on_waiting: Callable[[bool], None],
        parent: ToolContext | None = None,
        sub_agents: SubAgentHost | None = None,
    ) -> None:
        """``router``: the agent's own (an approval records the tool it
        leads to). ``on_waiting``: told True while an approval waits, False
        after. ``parent``: the ``sub_agent`` call's context, for a
        sub-agent's driver. ``sub_agents``: lent to the calls' contexts (None
        where nesting is not allowed: inside a sub-agent)."""
        self._scope = scope
        self._router = router
        self._conversation_id = conversation_id
        self._on_waiting = on_waiting
        self._parent = parent
        self._parent_id = parent.tool_call_id if parent is not None else None
        self._sub_agents = sub_agents
        self._contexts: dict[str, BusToolContext] = {}
        self._active: ToolCallInfo | None = None
        self._executing = False
        self._pending: str | None = None
        """The approval key being waited on, answered False by :meth:`release`."""

    def context(self, call_id: str) -> BusToolContext:
        """The context a call of this agent runs with (the agent's
        ``ContextFactory``); kept, to flush and read its output."""
        ctx = self._contexts[call_id] = BusToolContext(
            self._scope.bus,
            call_id,
            self._conversation_id,
            answer_timeout_s=self._scope.approval_timeout_s,
            parent_tool_call_id=self._parent_id,
            sub_agents=self._sub_agents,
        )
        return ctx

    async def drive(self, chunks: AsyncIterator[LLMChunk], on_other: Callable[[OtherChunk], None]) -> None:
        """Every chunk of ``chunks``: tool calls here, the rest to
        ``on_other``, in order. A call not approved, a form nobody answered
        or a sub-agent stopped ends the call in flight and raises
        :class:`TurnStopped`; a cancel ends it and goes on up."""
        try:
            async for chunk in chunks:
                if isinstance(chunk, ToolCallChunk):
                    await self._step(chunk.call)
                else:
                    on_other(chunk)
        except _NotApproved as refused:
            reason = refused.reason
        except AnswerTimedOut:
            reason = "approval_timeout"
        except SubAgentStopped as stopped:
            # A nested call's tool_rejected is on the bus already; the
            # sub_agent call's own follows (it is active, executing).
            reason = stopped.reason
        except asyncio.CancelledError:
            self.end_active(self._scope.sessions.cancel_reason(self._scope.session_id) or "user")
            raise
        else:
            return
        self.end_active(reason)
        raise TurnStopped(reason) from None

    async def _step(self, call: ToolCallInfo) -> None:
        match call.state:
            case "start":
                self._push(call, call.task_id)
            case "approval_required":
                self._active, self._executing = call, False
                await self._approve(call)
            case "executing":
                self._active, self._executing = call, True
                self._push(call, call.task_id)
                if call.follow_up is not None:
                    self._scope.bus.push(call.follow_up)
            case "result":
                done = self._contexts.pop(call.id, None)
                if done is not None:
                    done.flush_output()  # every line before the result
                    done.close()
                self._push(call, call.task_id)
                self._active, self._executing = None, False
            case _:
                assert_never(call.state)

    async def _approve(self, call: ToolCallInfo) -> None:
        """Register before pushing, in the same frame; wait; raise
        :class:`_NotApproved` unless approved."""
        assert call.task_id is not None
        scope = self._scope
        task_id = call.task_id if self._parent_id is None else f"{self._parent_id}.{call.task_id}"
        self._pending = scope.approvals.register(
            scope.session_id,
            task_id,
            request_for(
                call.id, call.name, call.arguments,
                self._router.lookup(call.name),
                conversation_id=self._conversation_id,
                parents=() if self._parent_id is None else (self._parent_id,),
            ),
        )
        self._push(call, task_id)
        self._on_waiting(True)
        try:
            approved = await scope.approvals.wait(
                self._pending, scope.approval_timeout_s, from_shown=scope.timer_from_shown
            )
        finally:
            self._on_waiting(False)
        self._pending = None
        if not approved:
            raise _NotApproved(scope.sessions.cancel_reason(scope.session_id) or "approval_timeout")

    def release(self) -> None:
        """An approval still registered (its wait was cancelled) is answered
        False, so none outlives the run."""
        if self._pending is not None:
            self._scope.approvals.respond(self._pending, False, by="interrupt")

    def end_active(self, reason: InterruptReason) -> None:
        """The call in flight ends: its ``tool_rejected``, with its partial
        output when it ran (flushed first, synchronously, so no tool writer
        interleaves); a sub-agent's parent learns which call it was."""
        call, self._active = self._active, None
        if call is None:
            return
        ctx = self._contexts.get(call.id) if self._executing else None
        partial = None
        if ctx is not None:
            ctx.flush_output()
            ctx.close()  # a form it still asks is cancelled
            partial = ctx.partial.snapshot()
        self._scope.bus.push(
            ToolRejectedMessage(
                call.id,
                call.name,
                call.arguments,
                rejection_text(reason, executing=ctx is not None),
                partial,
                parent_tool_call_id=self._parent_id,
            )
        )
        if self._parent is not None:
            self._parent.set_partial(
                "stopped_call",
                {"tool_call_id": call.id, "tool_name": call.name, "arguments": dict(call.arguments or {}),
                 "reason": reason},
            )

    def _push(self, call: ToolCallInfo, task_id: str | None) -> None:
        result = call.result
        self._scope.bus.push(
            ToolCallMessage(
                call.state,
                call.id,
                call.name,
                call.arguments,
                task_id=task_id,
                result=result.text if result is not None else None,
                is_error=result.is_error if result is not None else None,
                parent_tool_call_id=self._parent_id,
                structured_content=result.structured if result is not None else None,
                images=result.images if result is not None else (),
                resources=result.resources if result is not None else (),
            )
        )
