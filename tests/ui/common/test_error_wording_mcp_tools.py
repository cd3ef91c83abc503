"""The kinds of failure an MCP server or a tool reports are said in the
window's language (``ui/common/error_wording.py``): a form no form can
show, a resource or prompt a server could not give, a tool's error result.
Each line comes from the engine's or the tool's own code, so a changed
wording there fails here instead of falling back to English unseen."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.elicit_schema import SchemaError, questions_from_schema
from desktop_agent.core.events import ToolCallChunk
from desktop_agent.core.mentions import MentionError
from desktop_agent.core.ports import Tool, ToolResult
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.mcp_engine.elicitation import refused_form_line
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, ToolCallScript, text_reply
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.tools.run_command import RunCommandTool
from desktop_agent.ui.common.error_wording import (
    error_kind,
    form_refusals,
    mention_words,
    not_sent_markdown,
    tool_error_words,
    worded_error,
)

NESTED = {"type": "object", "properties": {"address": {"type": "object", "properties": {"street": {"type": "string"}}}}}


def refusal(schema: Any) -> str:
    with pytest.raises(SchemaError) as caught:
        questions_from_schema(schema)
    return refused_form_line("asker", caught.value)


@pytest.mark.parametrize(
    ("schema", "zh"),
    [
        (NESTED, "MCP 服务器 asker 请求的表单无法显示（字段“address”是嵌套对象），已拒绝"),
        ({"properties": {"when": {"type": "date"}}}, "MCP 服务器 asker 请求的表单无法显示（字段“when”的类型 date 无法填写），已拒绝"),
        ({"properties": {"pick": {"type": "string", "enum": []}}}, "MCP 服务器 asker 请求的表单无法显示（字段“pick”是没有选项的选择），已拒绝"),
        ({"properties": {"many": {"type": "array"}}}, "MCP 服务器 asker 请求的表单无法显示（字段“many”是没有选项的选择），已拒绝"),
        (
            {"properties": {"pick": {"type": "string", "oneOf": [{"title": "A"}]}}},
            "MCP 服务器 asker 请求的表单无法显示（字段“pick”的某个选项没有取值），已拒绝",
        ),
        ({"properties": {"odd": 5}}, "MCP 服务器 asker 请求的表单无法显示（字段“odd”没有有效的描述），已拒绝"),
        ({"type": "array"}, "MCP 服务器 asker 请求的表单无法显示，已拒绝"),
        ({"properties": [1]}, "MCP 服务器 asker 请求的表单无法显示，已拒绝"),
    ],
)
def test_each_form_no_form_can_show_is_said_in_chinese(schema: Any, zh: str) -> None:
    raw = refusal(schema)
    assert worded_error(CHINESE, raw) == (zh, raw)
    assert worded_error(ENGLISH, raw) == (raw, None)


def test_the_refusals_are_found_among_a_calls_other_output() -> None:
    raw = refusal(NESTED)
    assert form_refusals(f"starting\n{raw}\nstill going\n") == [raw]
    assert form_refusals("starting\nall well\n") == []


@pytest.mark.parametrize(
    ("raw", "zh"),
    [
        (
            'mcp server "ev": resource "demo://x" failed: MCP error -32602: Resource demo://x not found',
            "MCP 服务器 ev 上没有资源 demo://x",
        ),
        ('mcp server "ev": resource "demo://x" failed: the server closed the connection', "MCP 服务器 ev 无法读取资源 demo://x"),
        ('mcp server "ev": resource "demo://x" gave no answer in 30 s', "MCP 服务器 ev 未在 30 秒内给出资源 demo://x"),
        ('mcp server "ev": prompt "p" failed: boom', "MCP 服务器 ev 无法给出提示词 p"),
        ('mcp server "ev": prompt "p" gave no answer in 2.5 s', "MCP 服务器 ev 未在 2.5 秒内给出提示词 p"),
        ('unknown mcp server "ev"', "没有名为 ev 的 MCP 服务器"),
        ('mcp server "ev" is shut down', "MCP 服务器 ev 已关闭"),
    ],
)
def test_a_resource_or_prompt_a_server_could_not_give_is_said_in_chinese_with_the_line_as_detail(
    raw: str, zh: str
) -> None:
    """The lines ``mcp_engine/catalog_calls.py`` writes; the window test
    reads a real one from server-everything."""
    exc = MentionError(raw)
    assert mention_words(CHINESE, exc) == (zh, raw)
    assert mention_words(ENGLISH, exc) == (raw, None)
    assert not_sent_markdown(CHINESE, zh, raw) == f"未发送（消息已放回输入框）：{zh}\n\n*详情: {raw}*"


def test_a_reason_the_engine_named_keeps_its_words_and_a_not_sent_notice_escapes_markdown() -> None:
    exc = MentionError("/mcp__ev__p: missing city=…", "mention_missing", command="/mcp__ev__p", needed="city=…")
    assert mention_words(CHINESE, exc) == ("/mcp__ev__p：缺少参数 city=…", None)
    assert not_sent_markdown(ENGLISH, "/mcp__ev__p: missing") == "Not sent (your message is back in the box): /mcp\\_\\_ev\\_\\_p: missing"


class Crashing:
    """A tool that raises (the agent turns it into an error result)."""

    spec = EchoTool().spec

    async def run(self, arguments: Any, ctx: Any) -> ToolResult:
        raise RuntimeError("disk on fire")


async def results_of(calls: Sequence[ToolCallScript], tools: Sequence[Tool]) -> list[str]:
    """The error texts the agent gives the model for ``calls``."""
    llm = ScriptedLLM([text_reply("Ok.<need_tool>"), Reply(tool_calls=tuple(calls)), text_reply("Done.")])
    agent = AgentClient(llm, ToolRouter(tools), system_prompt=None)
    bus = RecordingBus("s1")
    out: list[str] = []
    stream = agent.chat_stream(history_items([{"role": "user", "content": "go"}]), lambda cid: BusToolContext(bus, cid, "c1"))
    async for chunk in stream:
        if isinstance(chunk, ToolCallChunk) and chunk.call.result is not None:
            out.append(chunk.call.result.text)
    return out


async def test_a_tools_error_result_of_a_known_kind_is_worded_and_any_other_is_the_tools_own_message(
    tmp_path: Path,
) -> None:
    bad_json, unknown = await results_of([ToolCallScript("echo", '{"text": '), ToolCallScript("nope", "{}")], [EchoTool()])
    (crashed,) = await results_of([ToolCallScript("echo", "{}")], [Crashing()])
    ctx = BusToolContext(RecordingBus("s1"), "call-1", "c1")
    bad_arguments = (await RunCommandTool().run({"command": 5}, ctx)).text
    no_folder = (await RunCommandTool().run({"command": "ls", "cwd": str(tmp_path / "gone")}, ctx)).text

    said = [tool_error_words(CHINESE, raw) for raw in (bad_json, unknown, crashed, bad_arguments, no_folder)]
    assert said == [
        "模型发送的工具参数不是有效的 JSON",
        "模型调用了不存在的工具：nope",
        "工具 echo 意外出错",
        "调用工具 run_command 时参数无效",
        f"工作文件夹不存在：{tmp_path / 'gone'}",
    ]
    assert tool_error_words(CHINESE, "Invalid timezone: Mars/Olympus") == "工具自己的错误信息："
    assert tool_error_words(ENGLISH, bad_arguments) == "The tool run_command was called with invalid arguments"
    assert error_kind('tool "echo" of mcp server "ev" failed: ValueError: x') == (
        "err_mcp_tool_failed", {"tool": "echo", "server": "ev"}
    )
