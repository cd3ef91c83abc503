"""sub_agent (contracts §9) at depth 1, through a whole Conversation: the same
playback queue, approval manager, always-allow list and interrupt as the
main agent's calls."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.chat_handler import (
    REASON_INTERRUPTED,
    REASON_NOT_RUN,
    REASON_REJECTED,
    REASON_TIMEOUT,
)
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.history import check_history
from desktop_agent.core.json_types import as_list, as_object
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.core.playback import ToolEvent
from desktop_agent.core.ports import Tool
from desktop_agent.core.risk import AutoDecider
from desktop_agent.core.timers import Timers
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.bus_reader import BusReader, unstamped
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.testing.views import NullView
from desktop_agent.tools.run_command import RunCommandTool
from desktop_agent.tools.sub_agent import SubAgentTool

TASK = "Echo x and say what came back."


class Rig:
    """A conversation whose router has ``tools`` and sub_agent; the view
    answers approvals with ``answer(message)`` (None: leave it pending)."""

    def __init__(
        self, script: Sequence[Reply], tools: Sequence[Tool] = (), timeout_s: float = 5.0, timers: Timers | None = None
    ) -> None:
        self.llm = ScriptedLLM(script)
        sub_agent = SubAgentTool()
        router = ToolRouter([*tools, sub_agent])
        sub_agent.bind(router)
        self.conv = Conversation(
            AgentClient(self.llm, router, system_prompt=None), approval_timeout_s=timeout_s,
            approvals=ApprovalManager(timers=timers),
        )
        self.readers: list[BusReader] = []

    def messages(self) -> list[JSONDict]:
        return [unstamped(item) for item in self.readers[-1].items]

    async def run(self, view: NullView, auto_approve: Callable[[str], bool] = lambda n: False) -> TurnOutcome:
        async with asyncio.timeout(10):
            outcome = await self.conv.run_turn(
                "delegate it", view, auto_approve=auto_approve, on_bus=lambda bus: self.readers.append(BusReader(bus))
            )
        await _settled()
        assert self.conv.approvals.pending_keys() == []
        check_history(self.conv.history)
        return outcome


class AnsweringView(NullView):
    def __init__(self, rig: Rig, answer: Callable[[ToolCallMessage], bool | None]) -> None:
        self.rig = rig
        self.answer = answer
        self.asked: list[ToolCallMessage] = []
        self.auto: list[ToolCallMessage] = []
        self.events: list[ToolEvent] = []
        self.on_event: Callable[[ToolEvent], None] = lambda m: None

    def approval_needed(self, message: ToolCallMessage) -> None:
        self.asked.append(message)
        answer = self.answer(message)
        if answer is not None:
            assert message.task_id is not None
            assert self.rig.conv.answer_approval(message.task_id, answer)

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        self.auto.append(message)

    def tool_event(self, message: ToolEvent) -> None:
        self.events.append(message)
        self.on_event(message)


async def _settled() -> None:
    """No task of the turn is left (the test's own aside)."""
    async with asyncio.timeout(5):
        while len(asyncio.all_tasks()) > 1:
            await asyncio.sleep(0.01)


def delegate(allowed: Sequence[str], task: str = TASK) -> Reply:
    return tool_reply("sub_agent", {"task": task, "allowed_tools": list(allowed)}, text="I'll delegate.")


PLAN = text_reply("Sure.<need_tool>")


def approve_all(message: ToolCallMessage) -> bool:
    return True


def approve_main_only(message: ToolCallMessage) -> bool | None:
    return True if message.parent_tool_call_id is None else None


def reject_nested(message: ToolCallMessage) -> bool:
    return message.parent_tool_call_id is None


def shape(messages: list[JSONDict]) -> list[tuple[Any, ...]]:
    """Each tool message as (type/state, id, parent)."""
    out: list[tuple[Any, ...]] = []
    for m in messages:
        if m["type"] in ("tool_call", "tool_rejected", "tool_progress"):
            label = f"tool_call:{m['state']}" if m["type"] == "tool_call" else m["type"]
            out.append((label, m["tool_call_id"], m.get("parent_tool_call_id")))
        elif m["type"] in ("interrupted", "turn_end"):
            out.append((m["type"], m.get("reason")))
    return out


async def test_an_approved_nested_call_runs_once_and_the_answer_is_the_result() -> None:
    echo = EchoTool()
    rig = Rig(
        [PLAN, delegate(["echo"]), tool_reply("echo", {"text": "x"}, text="Let me echo x."),
         text_reply("The echo said x."), text_reply("Done.")],
        [echo],
    )
    view = AnsweringView(rig, approve_all)

    outcome = await rig.run(view)

    assert outcome.status == "completed"
    assert echo.calls == [{"text": "x"}]
    assert shape(rig.messages()) == [
        ("tool_call:start", "call_1", None),
        ("tool_call:approval_required", "call_1", None),
        ("tool_call:executing", "call_1", None),
        ("tool_progress", "call_1", None),
        ("tool_call:start", "call_2", "call_1"),
        ("tool_call:approval_required", "call_2", "call_1"),
        ("tool_call:executing", "call_2", "call_1"),
        ("tool_call:result", "call_2", "call_1"),
        ("tool_progress", "call_1", None),
        ("tool_call:result", "call_1", None),
        ("turn_end", None),
    ]
    progress = [m for m in rig.messages() if m["type"] == "tool_progress"]
    assert [(m["message"], m["total"]) for m in progress] == [("Let me echo x.", None), ("The echo said x.", None)]
    texts = [m["text"] for m in rig.messages() if m["type"] == "text"]
    assert texts == ["Sure.", "I'll delegate.", "Done."]  # none of the sub-agent's
    result = next(m for m in rig.messages() if m.get("state") == "result" and m["tool_call_id"] == "call_1")
    assert (result["result"], result["is_error"]) == ("The echo said x.", False)
    nested_approval = view.asked[1]
    assert (nested_approval.tool_name, nested_approval.parent_tool_call_id) == ("echo", "call_1")
    # The sub-agent's own request: its prompt, the task, only its tools, no planning.
    sub_request = rig.llm.requests[2]
    assert sub_request["messages"] == [
        {"role": "system", "content": prompts.SUB_AGENT_PROMPT},
        {"role": "user", "content": TASK},
    ]
    assert [t["function"]["name"] for t in sub_request["tools"]] == ["echo"]
    # The main history has the sub_agent call only.
    calls = [as_object(as_object(c)["function"])["name"] for m in history_json(rig.conv.history) for c in as_list(m.get("tool_calls"))]
    assert calls == ["sub_agent"]
    assert {"role": "tool", "tool_call_id": "call_1", "content": "The echo said x."} in history_json(rig.conv.history)


async def test_a_rejected_nested_call_ends_the_sub_agent_and_the_turn() -> None:
    echo = EchoTool()
    rig = Rig(
        [PLAN, delegate(["echo"]), tool_reply("echo", {"text": "x"}, text="Let me echo x."),
         text_reply("never asked"), text_reply("never asked")],
        [echo],
    )

    outcome = await rig.run(AnsweringView(rig, reject_nested))

    assert outcome.status == "rejected"
    assert echo.calls == []
    assert len(rig.llm.requests) == 3  # no request of the sub-agent or the main agent after it
    tail = rig.messages()[-4:]
    assert tail == [
        {"type": "tool_rejected", "tool_call_id": "call_2", "tool_name": "echo", "arguments": {"text": "x"},
         "reason": REASON_REJECTED, "parent_tool_call_id": "call_1"},
        {"type": "tool_rejected", "tool_call_id": "call_1", "tool_name": "sub_agent",
         "arguments": {"task": TASK, "allowed_tools": ["echo"]}, "reason": REASON_REJECTED,
         "partial_result": {"text": "Let me echo x.", "stopped_call": {
             "tool_call_id": "call_2", "tool_name": "echo", "arguments": {"text": "x"}, "reason": "rejected"}}},
        {"type": "interrupted", "reason": "rejected"},
        {"type": "turn_end"},
    ]
    calls = [as_object(as_object(c)["function"])["name"] for m in history_json(rig.conv.history) for c in as_list(m.get("tool_calls"))]
    assert calls == ["sub_agent"]


async def test_a_nested_approval_that_times_out_ends_the_turn_unrun() -> None:
    echo = EchoTool()
    clock = FakeClock()
    rig = Rig([PLAN, delegate(["echo"]), tool_reply("echo", {"text": "x"})], [echo], timeout_s=300, timers=clock)
    view = AnsweringView(rig, approve_main_only)


    async def nobody_answers() -> None:
        while len(view.asked) < 2 or not clock.pending:  # the nested call's card, its timeout running
            await asyncio.sleep(0.01)
        clock.advance(300)

    answering = asyncio.ensure_future(nobody_answers())  # done before the turn's tasks are counted
    try:
        outcome = await rig.run(view)
    finally:
        answering.cancel()

    # contracts §9: a rejected or timed-out nested call ends the turn as "rejected".
    assert (outcome.status, echo.calls, len(rig.llm.requests)) == ("rejected", [], 3)
    assert shape(rig.messages())[-4:] == [
        ("tool_rejected", "call_2", "call_1"),
        ("tool_rejected", "call_1", None),
        ("interrupted", "rejected"),
        ("turn_end", None),
    ]
    nested, parent = rig.messages()[-4:-2]
    assert (nested["reason"], parent["reason"]) == (REASON_TIMEOUT, REASON_REJECTED)
    assert parent["partial_result"]["stopped_call"]["reason"] == "approval_timeout"


async def test_the_always_allow_list_approves_nested_calls_too() -> None:
    echo = EchoTool()
    rig = Rig(
        [PLAN, delegate(["echo"]), tool_reply("echo", {"text": "x"}), text_reply("x."), text_reply("Done.")],
        [echo],
    )
    view = AnsweringView(rig, lambda m: None)  # nobody answers: only the list can

    outcome = await rig.run(view, auto_approve=lambda name: name in ("sub_agent", "echo"))

    assert (outcome.status, echo.calls, view.asked) == ("completed", [{"text": "x"}], [])
    assert [(m.tool_name, m.parent_tool_call_id) for m in view.auto] == [("sub_agent", None), ("echo", "call_1")]


@pytest.mark.parametrize(
    ("allowed", "said"),
    [
        (["sub_agent"], "'sub_agent' is not allowed in a sub-agent"),
        (["ask_user_question"], "'ask_user_question' is not allowed in a sub-agent"),
        (["echo", "nope"], "unknown tool 'nope'"),
    ],
)
async def test_disallowed_or_unknown_tools_are_refused_before_anything_runs(allowed: list[str], said: str) -> None:
    echo = EchoTool()
    rig = Rig([PLAN, delegate(allowed), text_reply("Could not.")], [echo])

    outcome = await rig.run(AnsweringView(rig, approve_all))

    assert (outcome.status, echo.calls, len(rig.llm.requests)) == ("completed", [], 3)
    result = next(m for m in rig.messages() if m.get("state") == "result")
    assert result["is_error"] is True
    assert said in result["result"] and result["result"].startswith("sub_agent: not run:")
    assert not any(m.get("parent_tool_call_id") for m in rig.messages())


# ------------------------------------------------------------- interrupts

def _marker() -> str:
    return f"subagent-{uuid.uuid4().hex[:8]}"


async def _interrupted_at(state: str) -> tuple[Rig, TurnOutcome, str]:
    marker = _marker()
    command = f"echo started; sleep 30 # {marker}"
    if state == "start":
        sub = [Reply(text="Running it.", tool_calls=tool_reply("run_command", {"command": command}).tool_calls, hang=True)]
    elif state == "result":
        sub = [tool_reply("run_command", {"command": f"echo ok # {marker}"}, text="Running it."), Reply(hang=True)]
    else:
        sub = [tool_reply("run_command", {"command": command}, text="Running it.")]
    rig = Rig([PLAN, delegate(["run_command"]), *sub], [RunCommandTool(kill_grace_s=0.5)])
    view = AnsweringView(rig, lambda m: None if (state == "approval_required" and m.parent_tool_call_id) else True)

    def on_event(message: ToolEvent) -> None:
        if message.type == "tool_output" and state == "executing" and message.parent_tool_call_id:
            rig.conv.interrupt()
        elif (
            isinstance(message, ToolCallMessage)
            and message.parent_tool_call_id
            and message.state == state
            and state != "executing"  # then: once the command has printed (above)
        ):
            rig.conv.interrupt()

    view.on_event = on_event
    original = view.approval_needed

    def approval_needed(message: ToolCallMessage) -> None:
        original(message)
        if state == "approval_required" and message.parent_tool_call_id:
            rig.conv.interrupt()

    view.approval_needed = approval_needed  # type: ignore[method-assign]
    outcome = await rig.run(view)
    return rig, outcome, marker


@pytest.mark.parametrize("state", ["start", "approval_required", "executing", "result"])
async def test_an_interrupt_at_each_nested_state_leaves_nothing_behind(state: str) -> None:
    rig, outcome, marker = await _interrupted_at(state)

    assert outcome.status == "user"
    assert live_processes(marker) == []
    assert rig.conv.approvals.pending_keys() == []
    assert not rig.conv.busy
    messages = rig.messages()
    assert shape(messages)[-2:] == [("interrupted", "user"), ("turn_end", None)]
    parent = messages[-3]
    assert (parent["type"], parent["tool_call_id"], parent["reason"]) == ("tool_rejected", "call_1", REASON_INTERRUPTED)
    assert parent["partial_result"]["text"] == "Running it."
    if state in ("approval_required", "executing"):
        nested = messages[-4]
        assert (nested["type"], nested["parent_tool_call_id"]) == ("tool_rejected", "call_1")
        assert nested["reason"] == (REASON_NOT_RUN if state == "approval_required" else REASON_INTERRUPTED)
        assert parent["partial_result"]["stopped_call"]["tool_name"] == "run_command"
    if state == "executing":
        assert nested["partial_result"]["stdout"] == "started\n"
        output = [m for m in messages if m["type"] == "tool_output"]
        assert output and all(m["parent_tool_call_id"] == "call_1" for m in output)
    assert len(rig.llm.requests) == (4 if state == "result" else 3)
