"""ToolCallDriver: the same scripted call gives the same state sequence
whether the main agent makes it or a sub-agent does (contracts §7, §9),
and the driver tells the turn when an approval waits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.core.budget import Budget, result_cut
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.events import LLMChunk, ToolCallChunk, ToolCallInfo, TurnOutcome
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.json_types import JSONReadable
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.rejection import REASON_INTERRUPTED, REASON_NOT_RUN, REASON_REJECTED, REASON_TIMEOUT
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_driver import ToolCallDriver, TurnScope, TurnStopped
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.bus_reader import BusReader, unstamped
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.tools.sub_agent import SubAgentTool

SID = "s1"
BIG = "x" * 40_000
"""More than a quarter of a 4096-token request."""

Mode = Literal["ok", "fail", "block", "big"]
Answer = Literal["approve", "reject", "interrupt_waiting", "interrupt_executing", "none"]


@dataclass
class WorkTool:
    """The call under test: answers, fails, blocks with partial output, or
    returns more than its budget, as its ``mode`` argument says."""

    cancelled: bool = False
    runs: list[str] = field(default_factory=list)

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec("work", "Work.", {"type": "object", "properties": {"mode": {"type": "string"}}})

    async def run(self, arguments: Mapping[str, JSONReadable], ctx: ToolContext) -> ToolResult:
        mode = str(arguments["mode"])
        self.runs.append(mode)
        if mode == "fail":
            raise RuntimeError("broken")
        if mode == "big":
            return ToolResult(BIG)
        if mode == "block":
            ctx.output("stdout", "first line\n")
            ctx.set_partial("stdout", "half done")
            ctx.progress(1, 2, "step 1")
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return ToolResult("worked")


def main_script(mode: Mode) -> list[Reply]:
    return [text_reply("Ok.<need_tool>"), tool_reply("work", {"mode": mode}), text_reply("Done.")]


def sub_agent_script(mode: Mode) -> list[Reply]:
    return [
        text_reply("Ok.<need_tool>"), tool_reply("sub_agent", {"task": "Work.", "allowed_tools": ["work"]}),
        tool_reply("work", {"mode": mode}), text_reply("Worked."), text_reply("Done."),
    ]


async def run_turn(
    script: list[Reply], answer: Answer, *, timeout_s: float = 5.0, budget: Budget | None = None
) -> tuple[list[JSONDict], TurnOutcome, WorkTool]:
    """One turn; the ``sub_agent`` call is approved, the ``work`` call is
    answered as ``answer`` says (``none``: its whole timeout passes, on a
    FakeClock). Every bus message, in order."""
    work, sub_agent = WorkTool(), SubAgentTool()
    router = ToolRouter([work, sub_agent])
    sub_agent.bind(router)
    clock = FakeClock()
    approvals, sessions = ApprovalManager(timers=clock), SessionManager()
    expiring: list[asyncio.Future[None]] = []
    handler = ChatHandler(AgentClient(ScriptedLLM(script), router, system_prompt=None, budget=budget),
                          approvals, sessions)
    bus = SessionMessageBus(SID)
    reader = BusReader(bus)
    sessions.start(SID)
    turn = asyncio.create_task(
        handler.handle_chat(SID, bus, [UserMessage("go")], approval_timeout_s=timeout_s)
    )
    async with asyncio.timeout(5):
        while (message := (await reader.get()).message).type != "turn_end":
            if isinstance(message, ToolCallMessage) and message.state == "approval_required":
                assert message.task_id is not None
                key = approval_key(SID, message.task_id)
                if message.tool_name == "sub_agent" or answer in ("approve", "interrupt_executing"):
                    approvals.respond(key, True)
                elif answer == "reject":
                    approvals.respond(key, False)
                    sessions.cancel(SID, "rejected")
                elif answer == "interrupt_waiting":
                    sessions.cancel(SID, "user")
                elif answer == "none":
                    expiring.append(asyncio.ensure_future(_expire(clock, timeout_s)))
            elif message.type == "tool_progress" and answer == "interrupt_executing" and message.total:
                sessions.cancel(SID, "user")
        outcome = await turn
        await asyncio.gather(*expiring)
    assert approvals.pending_keys() == []
    return [unstamped(item) for item in reader.items], outcome, work


async def _expire(clock: FakeClock, seconds: float) -> None:
    """The approval's timeout, once it runs, passes whole."""
    await clock.wait_scheduled()
    clock.advance(seconds)


def work_states(messages: list[JSONDict]) -> list[JSONDict]:
    """The ``work`` call's own messages, without what says who made it
    (ids, the parent, the approval handle)."""
    ids = {m["tool_call_id"] for m in messages if m.get("tool_name") == "work"}
    hidden = {"tool_call_id", "parent_tool_call_id", "task_id", "seq", "session_id"}
    return [{k: v for k, v in m.items() if k not in hidden} for m in messages if m.get("tool_call_id") in ids]


async def both(
    mode: Mode, answer: Answer, *, timeout_s: float = 5.0, budget: Budget | None = None
) -> tuple[list[JSONDict], list[JSONDict]]:
    main, _, main_work = await run_turn(main_script(mode), answer, timeout_s=timeout_s, budget=budget)
    nested, _, nested_work = await run_turn(sub_agent_script(mode), answer, timeout_s=timeout_s, budget=budget)
    assert main_work.runs == nested_work.runs
    assert main_work.cancelled == nested_work.cancelled
    return work_states(main), work_states(nested)


def state(name: str, **more: object) -> JSONDict:
    return {"type": "tool_call", "state": name, "tool_name": "work", **more}


def rejected(reason: str, **more: object) -> JSONDict:
    return {"type": "tool_rejected", "tool_name": "work", "arguments": {"mode": "ok"}, "reason": reason, **more}


async def test_an_approved_call_runs_to_its_result_the_same_way_in_both() -> None:
    main, nested = await both("ok", "approve")
    args = {"arguments": {"mode": "ok"}}
    assert main == nested == [
        state("start", arguments=None), state("approval_required", **args), state("executing", **args),
        state("result", **args, result="worked", is_error=False),
    ]


async def test_a_rejected_call_never_runs_and_is_rejected_the_same_way_in_both() -> None:
    main, nested = await both("ok", "reject")
    assert main == nested == [
        state("start", arguments=None), state("approval_required", arguments={"mode": "ok"}),
        rejected(REASON_REJECTED),
    ]


async def test_an_interrupt_while_waiting_ends_the_call_unrun_in_both() -> None:
    main, nested = await both("ok", "interrupt_waiting")
    assert main == nested == [
        state("start", arguments=None), state("approval_required", arguments={"mode": "ok"}),
        rejected(REASON_NOT_RUN),
    ]


async def test_an_unanswered_approval_times_out_the_same_way_in_both() -> None:
    main, nested = await both("ok", "none")
    assert main == nested == [
        state("start", arguments=None), state("approval_required", arguments={"mode": "ok"}),
        rejected(REASON_TIMEOUT),
    ]


async def test_an_interrupt_while_executing_keeps_the_output_and_partial_result_in_both() -> None:
    main, nested = await both("block", "interrupt_executing")
    args = {"arguments": {"mode": "block"}}
    assert main == nested == [
        state("start", arguments=None), state("approval_required", **args), state("executing", **args),
        {"type": "tool_output", "stream": "stdout", "text": "first line\n"},
        {"type": "tool_progress", "progress": 1, "total": 2, "message": "step 1", "eta_s": None},
        {"type": "tool_rejected", "tool_name": "work", **args, "reason": REASON_INTERRUPTED,
         "partial_result": {"stdout": "half done", "progress": ["1/2 step 1"]}},
    ]


async def test_a_failing_tool_gives_an_error_result_in_both() -> None:
    main, nested = await both("fail", "approve")
    assert main == nested
    assert main[-1]["is_error"] is True and "broken" in str(main[-1]["result"])


async def test_a_result_over_its_budget_is_cut_the_same_way_in_both() -> None:
    main, nested = await both("big", "approve", budget=Budget(4096))
    assert main == nested
    result = str(main[-1]["result"])
    assert result_cut(result) is not None and len(result.encode()) <= Budget(4096).result_bytes


async def test_a_nested_timeout_ends_the_turn_as_rejected_a_main_one_as_approval_timeout() -> None:
    _, main, _ = await run_turn(main_script("ok"), "none")
    _, nested, _ = await run_turn(sub_agent_script("ok"), "none")
    assert (main.status, nested.status) == ("approval_timeout", "rejected")


# ------------------------------------------------------------- the driver alone


async def one_call(*states: ToolCallInfo) -> AsyncIterator[LLMChunk]:
    for info in states:
        yield ToolCallChunk(info)


def driver_for(approvals: ApprovalManager, sessions: SessionManager, waiting: Callable[[bool], None]) -> tuple[
    ToolCallDriver, BusReader
]:
    bus = SessionMessageBus(SID)
    scope = TurnScope(bus, SID, approvals, sessions, approval_timeout_s=5.0, timer_from_shown=False)
    return ToolCallDriver(scope, ToolRouter(), conversation_id="c1", on_waiting=waiting), BusReader(bus)


async def test_the_driver_tells_the_turn_while_an_approval_waits() -> None:
    approvals, sessions = ApprovalManager(), SessionManager()
    sessions.start(SID)
    told: list[bool] = []
    driver, reader = driver_for(approvals, sessions, told.append)
    call = ToolCallInfo("c", "work", "approval_required", {}, task_id="t1")

    async def answer() -> None:
        await reader.get()  # approval_required
        assert told == [True]
        approvals.respond(approval_key(SID, "t1"), True)

    async with asyncio.timeout(5):
        await asyncio.gather(driver.drive(one_call(call), lambda chunk: None), answer())
    assert told == [True, False]


async def test_the_driver_ends_the_call_in_flight_and_stops_the_turn_when_not_approved() -> None:
    approvals, sessions = ApprovalManager(), SessionManager()
    sessions.start(SID)
    driver, reader = driver_for(approvals, sessions, lambda waiting: None)
    call = ToolCallInfo("c", "work", "approval_required", {}, task_id="t1")

    async def reject() -> None:
        await reader.get()  # approval_required
        approvals.respond(approval_key(SID, "t1"), False)
        sessions.cancel(SID, "rejected")

    with pytest.raises(TurnStopped) as stopped:
        async with asyncio.timeout(5):
            await asyncio.gather(driver.drive(one_call(call), lambda chunk: None), reject())
    assert stopped.value.reason == "rejected"
    assert [unstamped(item) for item in reader.items] == [
        {"type": "tool_call", "state": "approval_required", "tool_call_id": "c", "tool_name": "work",
         "arguments": {}, "task_id": "t1"},
        {"type": "tool_rejected", "tool_call_id": "c", "tool_name": "work", "arguments": {},
         "reason": REASON_REJECTED},
    ]
