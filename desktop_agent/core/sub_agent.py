"""The sub-agent's nested turn (contracts §9): what the chat handler lends a
running ``sub_agent`` call so its agent's tool calls go through the turn's
own machinery.

The ``sub_agent`` tool (``tools/sub_agent.py``) checks its arguments and
builds the sub-agent's restricted router; then it calls
``ctx.sub_agents.run_sub_agent(...)``, which is a :class:`SubAgentRunner`
the handler made for this turn. The runner runs a second
:class:`AgentClient` (same LLM, its own short system prompt, the task as
its only user message, the tool loop alone: no planning round, history,
skills catalogue or hooks) and hands its tool calls to a
:class:`~desktop_agent.core.tool_driver.ToolCallDriver` with the sub_agent
call as parent — the same driver class, and the same
:class:`~desktop_agent.core.tool_driver.TurnScope` (bus, approvals,
session, timeout), as the main agent's calls. What it yields goes on the
same bus:

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
- *Approved nested tool never run, or run twice.* The driver only resumes
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

from collections.abc import Callable
from contextlib import aclosing

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.budget import Budget
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.events import RoundEndChunk, SegmentChunk
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.messages import InterruptReason, ToolProgressMessage
from desktop_agent.core.ports import LLMProvider, SubAgentStopped, ToolContext, ToolResult
from desktop_agent.core.tool_driver import OtherChunk, ToolCallDriver, TurnScope, TurnStopped
from desktop_agent.core.tool_router import ToolRouter

SUB_AGENT = "sub_agent"
"""The tool's name; never allowed inside a sub-agent (depth 1)."""


class SubAgentRunner:
    """Implements :class:`~desktop_agent.core.tool_router.SubAgentHost` for one turn."""

    def __init__(
        self,
        scope: TurnScope,
        *,
        llm: Callable[[], LLMProvider],
        on_waiting: Callable[[bool], None] = lambda waiting: None,
        budget: Callable[[], Budget] = Budget,
    ) -> None:
        """``scope``: the turn's (its bus, approvals, session, timeout).
        ``llm``: the main agent's model at the time of the call.
        ``on_waiting``: told True while a nested approval waits, False after.
        ``budget``: the main agent's request budget (the model's context is
        the same for the sub-agent)."""
        self._scope = scope
        self._llm = llm
        self._on_waiting = on_waiting
        self._budget = budget

    async def run_sub_agent(
        self, parent: ToolContext, task: str, tools: ToolRouter, max_steps: int
    ) -> ToolResult:
        driver = ToolCallDriver(
            self._scope, tools, conversation_id=parent.conversation_id, on_waiting=self._on_waiting, parent=parent
        )
        agent = AgentClient(
            self._llm(), tools, max_steps=max_steps, system_prompt=prompts.SUB_AGENT_PROMPT,
            budget=self._budget(),
        )
        return await _SubAgentRun(driver, parent, self._scope.bus).run(agent, task)


class _SubAgentRun:
    """One sub-agent run: the driver takes its tool calls, this object what
    it says (progress of the parent call, the answer, notices)."""

    def __init__(self, driver: ToolCallDriver, parent: ToolContext, bus: SessionMessageBus) -> None:
        self._driver = driver
        self._parent = parent
        self._pid = parent.tool_call_id
        self._bus = bus
        self._text: list[str] = []
        self._sentences = 0
        self._round_text: list[str] = []
        self._answer = ""
        self._notes: list[str] = []
        self._failed = False

    async def run(self, agent: AgentClient, task: str) -> ToolResult:
        self._parent.set_partial("text", "")
        agen = agent.tool_loop_stream([UserMessage(task)], self._driver.context)
        try:
            async with aclosing(agen):
                try:
                    await self._driver.drive(agen, self._on_chunk)
                except TurnStopped as stopped:
                    raise SubAgentStopped(_turn_reason(stopped.reason)) from None
        finally:
            self._driver.release()
        answer = self._answer or "".join(self._text).strip()
        text = "\n".join([answer, *self._notes]) if self._notes else answer
        return ToolResult(text or "(the sub-agent gave no answer)", is_error=self._failed)

    def _on_chunk(self, chunk: OtherChunk) -> None:
        if isinstance(chunk, SegmentChunk):
            self._round_text.append(chunk.segment.text)
            self._said(chunk.segment.text)
        elif isinstance(chunk, RoundEndChunk):
            self._answer = "".join(self._round_text).strip()
            self._round_text = []
        else:
            self._notes.append(chunk.message)
            self._failed = self._failed or chunk.level == "error"

    def _said(self, text: str) -> None:
        """A sentence of the sub-agent: its progress caption, and the partial result."""
        self._text.append(text)
        self._parent.set_partial("text", "".join(self._text).strip())
        sentence = text.strip()
        if sentence:
            self._sentences += 1
            self._bus.push(ToolProgressMessage(self._pid, self._sentences, None, sentence, None))


def _turn_reason(reason: InterruptReason) -> InterruptReason:
    """How the turn ends when a nested call ended by ``reason``: a rejected
    or timed-out nested call ends it as ``rejected`` (contracts §9; the nested
    call's own ``tool_rejected`` and the partial result say it timed out),
    an interrupt as ``user``."""
    return "rejected" if reason in ("rejected", "approval_timeout") else reason
