"""AgentClient and what a turn takes in: tool arguments nested too deeply,
tool results too large for the model's context, requests fitted to it.
(The rest of the agent is in test_agent.py.)"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.agent import TOO_DEEP
from desktop_agent.core.budget import Budget, cut_result, item_size, result_cut
from desktop_agent.core.events import ToolCallChunk
from desktop_agent.core.json_depth import MAX_ARGUMENT_DEPTH
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_replies import Reply, ToolCallScript, text_reply, tool_reply
from tests.core.test_agent import call, make


def _nested(depth: int) -> tuple[str, dict[str, Any]]:
    """``{"text": "x", "n": {"n": … {}}}`` with ``depth`` objects in all, as text and value."""
    value: dict[str, Any] = {}
    for _ in range(depth - 2):
        value = {"n": value}
    value = {"text": "x", "n": value}
    return json.dumps(value), value


async def test_arguments_at_the_depth_limit_run_and_one_level_deeper_are_an_error_result() -> None:
    text, value = _nested(MAX_ARGUMENT_DEPTH)
    deeper, _ = _nested(MAX_ARGUMENT_DEPTH + 1)
    echo = EchoTool(skip_approval=True)
    run = make([text_reply("Ok.<need_tool>"), Reply(tool_calls=(ToolCallScript("echo", text),)),
                Reply(tool_calls=(ToolCallScript("echo", deeper, id="call_2"),)), text_reply("Done.")], [echo])

    chunks = await run.chunks()

    assert echo.calls == [value]
    refused = ToolResult(f"Error: {TOO_DEEP}. The tool was not run.", is_error=True)
    assert [c for c in chunks if isinstance(c, ToolCallChunk) and c.call.id == "call_2"] == [
        call("start", id="call_2"), call("result", None, id="call_2", result=refused)]  # never asked, never run
    assert "(at most 64 levels)" in TOO_DEEP


@dataclass
class BigTool:
    """Returns ``size`` characters (Chinese with ``zh``)."""

    name: str = "big"
    size: int = 1_000_000
    zh: bool = False

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "A long result.", skip_approval=True)

    def text(self) -> str:
        unit = "汉字测试。" if self.zh else "line of text\n"
        return (unit * (self.size // len(unit) + 1))[: self.size]

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(self.text())


async def test_a_result_too_large_for_its_share_is_cut_before_anyone_sees_it() -> None:
    big = BigTool(zh=True)
    budget = Budget(8192)
    run = make([text_reply("Ok.<need_tool>"), tool_reply("big", {}), text_reply("Done.")], [big], budget=budget)

    chunks = await run.chunks()

    cut = cut_result(big.text(), budget)
    assert call("result", {}, name="big", result=ToolResult(cut)) in chunks
    assert result_cut(cut) is not None and len(cut.encode()) <= budget.result_bytes
    assert run.sent()[-1][-1] == {"role": "tool", "tool_call_id": "call_1", "content": cut}


async def test_skills_are_not_cut_as_results_but_every_request_still_fits() -> None:
    skill = BigTool(name="get_skill", size=200_000)
    budget = Budget(8192)
    run = make([text_reply("Ok.<need_tool>"), tool_reply("get_skill", {}), text_reply("Done.")], [skill],
               budget=budget)

    chunks = await run.chunks()

    assert call("result", {}, name="get_skill", result=ToolResult(skill.text())) in chunks
    for request in run.llm.requests:
        tools = len(json.dumps(request["tools"] or [])) if request.get("tools") else 0
        assert sum(map(item_size, history_items(request["messages"]))) + tools <= budget.request_bytes
    assert "characters left out to fit the model's context" in run.sent()[-1][-1]["content"]


async def test_a_request_that_fits_is_sent_unchanged() -> None:
    run = make([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")],
               [EchoTool(skip_approval=True)])

    await run.chunks()

    assert all("left out" not in json.dumps(r) for r in run.llm.requests)
