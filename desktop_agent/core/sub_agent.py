"""The sub-agent's nested turn (contracts §9): what the chat handler lends a
running ``sub_agent`` call so its agent's tool calls go through the turn's
own machinery.

The ``sub_agent`` tool (``tools/sub_agent.py``) checks its arguments and
builds the sub-agent's restricted router; then it calls
``ctx.sub_agents.run_sub_agent(...)``, which is a :class:`SubAgentRunner`
the handler made for this turn. The runner drives a second
:class:`AgentClient` (same LLM, its own short system prompt, the task as
its only user message, the tool loop alone: no planning round, history,
skills catalogue or hooks) exactly the way the handler drives the main one,
and pushes what it yields on the same bus:

- nested ``tool_call`` / ``tool_progress`` / ``tool_output`` /
  ``tool_rejected`` carry ``parent_tool_call_id`` = the sub_agent call's id
  (their contexts are made with it);
- the sub-agent's text is never a ``text`` message (not spoken, not in the
  main stream, not in history): each sentence is a ``tool_progress`` of the
  sub_agent call, ``message`` = the sentence, ``total`` null; its final
  round's text is the sub_agent call's result.

Nesting bugs designed out:

- *Nested approval lost or stuck.* A nested approval is registered in the
  turn's own :class:`ApprovalManager` under the turn's session id, before
  its ``approval_required`` is pushed (same frame), and waited on with the
  turn's timeout, counted from when it is shown. So the same playback queue
  blocks on it, the same always-allow list answers it, the same reject
  (``respond`` + ``SessionManager.cancel``) and ``cancel_session`` wake it;
  its key is answered False in a ``finally``, so none outlives the
  sub-agent. While it waits the handler is told (``on_waiting``) so an
  interrupt wakes the wait instead of cancelling the task under it — the
  same rule as a main approval; either way (False or CancelledError) the
  same messages end the turn.
- *Approved nested tool never run, or run twice.* The runner only resumes
  the nested agent generator after ``approved``; the generator runs the
  tool once, and is closed (never resumed) on any other answer.
- *Escalation.* The nested router holds only the allowed tools that the
  main agent itself sees, never ``sub_agent`` (and nested contexts have no
  ``sub_agents``: depth 1 twice over); ``skip_approval`` follows the
  router's rule (built-in tools that declare it; MCP tools never).
- *Ending.* A nested call not approved (rejected, timed out, interrupted)
  gets its ``tool_rejected``; the parent's partial output gets the
  sub-agent's text so far and which call ended it (and why); then
  :class:`SubAgentStopped` (or the CancelledError) goes up through the main
  agent (which lets it through) to the handler, which pushes the sub_agent
  call's ``tool_rejected`` with that partial result, then ``interrupted``.
  No LLM request of either agent follows: both generators are closed.
  A rejected or timed-out nested call ends the turn as ``rejected`` (the
  sub_agent call's reason is the rejection's), an interrupt as ``user``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import aclosing

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.audit import request_for
from desktop_agent.core.budget import Budget
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.events import (
    NoticeChunk,
    RoundEndChunk,
    SegmentChunk,
    ToolCallChunk,
    ToolCallInfo,
)
from desktop_agent.core.messages import (
    InterruptReason,
    ToolCallMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
)
from desktop_agent.core.ports import (
    AnswerTimedOut,
    LLMProvider,
    SubAgentStopped,
    ToolContext,
    ToolResult,
)
from desktop_agent.core.rejection import rejection_text
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter

SUB_AGENT = "sub_agent"
"""The tool's name; never allowed inside a sub-agent (depth 1)."""


class SubAgentRunner:
    """Implements :class:`~desktop_agent.core.tool_router.SubAgentHost` for one turn."""

    def __init__(
        self,
        *,
        bus: SessionMessageBus,
        session_id: str,
        approvals: ApprovalManager,
        sessions: SessionManager,
        llm: Callable[[], LLMProvider],
        approval_timeout_s: float,
        timer_from_shown: bool,
        on_waiting: Callable[[bool], None] = lambda waiting: None,
        budget: Callable[[], Budget] = Budget,
    ) -> None:
        """``llm``: the main agent's model at the time of the call.
        ``on_waiting``: told True while a nested approval waits, False after.
        ``budget``: the main agent's request budget (the model's context is
        the same for the sub-agent)."""
        self._bus = bus
        self._session_id = session_id
        self._approvals = approvals
        self._sessions = sessions
        self._llm = llm
        self._timeout_s = approval_timeout_s
        self._from_shown = timer_from_shown
        self._on_waiting = on_waiting
        self._budget = budget

    async def run_sub_agent(
        self, parent: ToolContext, task: str, tools: ToolRouter, max_steps: int
    ) -> ToolResult:
        return await _NestedTurn(self, parent).run(task, tools, max_steps)


class _NestedTurn:
    """One sub-agent run; its state is private to this object's coroutine."""

    def __init__(self, runner: SubAgentRunner, parent: ToolContext) -> None:
        self._r = runner
        self._parent = parent
        self._pid = parent.tool_call_id
        self._contexts: dict[str, BusToolContext] = {}
        self._active: ToolCallInfo | None = None
        self._executing = False
        self._text: list[str] = []
        self._sentences = 0

    def _context(self, call_id: str) -> BusToolContext:
        ctx = self._contexts[call_id] = BusToolContext(
            self._r._bus,
            call_id,
            self._parent.conversation_id,
            answer_timeout_s=self._r._timeout_s,
            parent_tool_call_id=self._pid,
        )
        return ctx

    async def run(self, task: str, tools: ToolRouter, max_steps: int) -> ToolResult:
        agent = AgentClient(
            self._r._llm(), tools, max_steps=max_steps, system_prompt=prompts.SUB_AGENT_PROMPT,
            budget=self._r._budget(),
        )
        self._parent.set_partial("text", "")
        round_text: list[str] = []
        answer = ""
        notes: list[str] = []
        failed = False
        pending_key: str | None = None
        agen = agent.tool_loop_stream([{"role": "user", "content": task}], self._context)
        try:
            async with aclosing(agen):
                try:
                    async for chunk in agen:
                        if isinstance(chunk, SegmentChunk):
                            round_text.append(chunk.segment.text)
                            self._said(chunk.segment.text)
                        elif isinstance(chunk, RoundEndChunk):
                            answer = "".join(round_text).strip()
                            round_text = []
                        elif isinstance(chunk, NoticeChunk):
                            notes.append(chunk.message)
                            failed = failed or chunk.level == "error"
                        else:
                            assert isinstance(chunk, ToolCallChunk)
                            call = chunk.call
                            if call.state == "approval_required":
                                self._active, self._executing = call, False
                                assert call.task_id is not None
                                task_id = f"{self._pid}.{call.task_id}"
                                routed = tools.lookup(call.name)
                                pending_key = self._r._approvals.register(
                                    self._r._session_id,
                                    task_id,
                                    request_for(
                                        call.id, call.name, call.arguments,
                                        routed,
                                        conversation_id=self._parent.conversation_id,
                                        parents=(self._pid,),
                                    ),
                                )
                                self._push(call, task_id=task_id)
                                self._r._on_waiting(True)
                                try:
                                    approved = await self._r._approvals.wait(
                                        pending_key, self._r._timeout_s, from_shown=self._r._from_shown
                                    )
                                finally:
                                    self._r._on_waiting(False)
                                pending_key = None
                                if not approved:
                                    reason = self._r._sessions.cancel_reason(self._r._session_id)
                                    raise SubAgentStopped(reason or "approval_timeout")
                            elif call.state == "executing":
                                self._active, self._executing = call, True
                                self._push(call)
                                if call.follow_up is not None:
                                    self._r._bus.push(call.follow_up)
                            elif call.state == "result":
                                done = self._contexts.pop(call.id, None)
                                if done is not None:
                                    done.flush_output()
                                self._push(call)
                                self._active, self._executing = None, False
                            else:
                                self._push(call)
                except SubAgentStopped as stopped:
                    self._end_active(stopped.reason)
                    raise SubAgentStopped(_turn_reason(stopped.reason)) from None
                except AnswerTimedOut:
                    self._end_active("approval_timeout")
                    raise SubAgentStopped(_turn_reason("approval_timeout")) from None
                except asyncio.CancelledError:
                    self._end_active(self._r._sessions.cancel_reason(self._r._session_id) or "user")
                    raise
        finally:
            if pending_key is not None:
                self._r._approvals.respond(pending_key, False, by="interrupt")
        if not answer:
            answer = "".join(self._text).strip()
        text = "\n".join([answer, *notes]) if notes else answer
        return ToolResult(text or "(the sub-agent gave no answer)", is_error=failed)

    def _said(self, text: str) -> None:
        """A sentence of the sub-agent: its progress caption, and the partial result."""
        self._text.append(text)
        self._parent.set_partial("text", "".join(self._text).strip())
        sentence = text.strip()
        if sentence:
            self._sentences += 1
            self._r._bus.push(ToolProgressMessage(self._pid, self._sentences, None, sentence, None))

    def _push(self, call: ToolCallInfo, *, task_id: str | None = None) -> None:
        result = call.result
        self._r._bus.push(
            ToolCallMessage(
                call.state,
                call.id,
                call.name,
                call.arguments,
                task_id=task_id,
                result=result.text if result is not None else None,
                is_error=result.is_error if result is not None else None,
                parent_tool_call_id=self._pid,
                images=result.images if result is not None else (),
            )
        )

    def _end_active(self, reason: InterruptReason) -> None:
        """The nested call in flight ends: its ``tool_rejected`` (partial
        output first when it ran), and the parent learns which call it was."""
        call, self._active = self._active, None
        if call is None:
            return
        ctx = self._contexts.get(call.id) if self._executing else None
        partial = None
        if ctx is not None:
            ctx.flush_output()
            partial = ctx.partial.snapshot()
        self._r._bus.push(
            ToolRejectedMessage(
                call.id,
                call.name,
                call.arguments,
                rejection_text(reason, executing=ctx is not None),
                partial,
                parent_tool_call_id=self._pid,
            )
        )
        self._parent.set_partial(
            "stopped_call",
            {"tool_call_id": call.id, "tool_name": call.name, "arguments": dict(call.arguments or {}), "reason": reason},
        )


def _turn_reason(reason: InterruptReason) -> InterruptReason:
    """How the turn ends when a nested call ended by ``reason``: a rejected
    or timed-out nested call ends it as ``rejected`` (contracts §9; the nested
    call's own ``tool_rejected`` and the partial result say it timed out),
    an interrupt as ``user``."""
    return "rejected" if reason in ("rejected", "approval_timeout") else reason
