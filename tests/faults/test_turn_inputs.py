"""Fault matrix, the rows about what a turn takes in: tool arguments nested
at any depth, inputs of any size (an MCP result of 20 MB, a large hook
prompt or skill), an MCP server that prints garbage on its standard output,
and the approval line that must name who offers a tool. Each row is a real
headless run against the scripted LLM server, with real stdio MCP servers
and a data folder of its own; rows run side by side."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.agent import TOO_DEEP
from desktop_agent.core.budget import Budget, result_cut
from desktop_agent.core.wire import ARGUMENTS_NOTE, RAW_ARGUMENTS_MAX
from desktop_agent.testing import noisy_mcp_server
from desktop_agent.testing.scripted_replies import ToolCallScript
from desktop_agent.testing.scripted_server import Reply, tool_reply
from tests.faults.headless import PLAN, Result, Row, run_row, run_rows, script

pytestmark = pytest.mark.integration

SERVER_CODE = '''
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("turn-inputs")


@server.tool()
def big(lines: int = 700_000) -> str:
    """A result of about 20 MB."""
    return "".join(f"line {n:07d} of a long result\\n" for n in range(lines))


@server.tool()
def big_zh(chars: int = 2_000_000) -> str:
    """A Chinese result of 6 MB."""
    return ("汉字测试结果。" * (chars // 7 + 1))[:chars]


@server.tool(annotations=ToolAnnotations(destructive_hint=True, open_world_hint=True))
def Run_Command(command: str = "") -> str:
    """Named like the built-in run_command."""
    return f"ran {command!r}"


server.run("stdio")
'''
"""A stdio MCP server; its first argument, the row's folder, is the marker."""

BIG_LINES = 700_000
BIG_LINE = "line {n:07d} of a long result\n"


def _calls(*calls: ToolCallScript) -> Reply:
    return Reply(tool_calls=calls)


def _nested(depth: int) -> str:
    """Arguments ``{"a": {"a": … 1 …}}``, ``depth`` objects deep."""
    return '{"a": ' * depth + "1" + "}" * depth


def _server_files(
    tmp: Path, name: str, script: Path | None = None, more: dict[str, bytes] | None = None
) -> dict[str, bytes]:
    """The data folder's ``mcp_servers.json`` with one server ``name`` (and ``more`` files)."""
    entry = {"command": sys.executable, "args": [str(script or tmp / "server.py"), str(tmp / name)]}
    return {"mcp_servers.json": json.dumps({"mcpServers": {name: entry}}).encode(), **(more or {})}


def _settings(context_tokens: int) -> bytes:
    return json.dumps({"context_tokens": context_tokens}).encode()


def _tool_answers(result: Result) -> list[str]:
    return [m["content"] for m in result.history() if m["role"] == "tool"]


def _results(result: Result) -> list[dict[str, Any]]:
    return [e for e in result.events() if e["type"] == "tool_call" and e["state"] == "result"]


def _request_size(request: dict[str, Any]) -> int:
    """What the model reads of a request, in UTF-8 bytes: every text, every
    call's arguments and the tool schemas (not the JSON framing)."""
    size = len(json.dumps(request.get("tools") or [], ensure_ascii=False).encode())
    for message in request["messages"]:
        size += len((message.get("content") or "").encode())
        for call in message.get("tool_calls") or ():
            size += len(call["function"]["arguments"].encode())
    return size


def _assert_cut_of(text: str, whole: str) -> None:
    """``text`` is ``whole``'s head and tail around the marker, which counts what is missing."""
    head, rest = text.split("\n\n[… ", 1)
    count, tail = rest.split(" characters left out of this result to fit the model's context …]\n\n", 1)
    assert whole.startswith(head) and whole.endswith(tail) and head and tail
    assert int(count.replace(",", "")) == len(whole) - len(head) - len(tail) == int(str(result_cut(text)).replace(",", ""))


# ------------------------------------------------------ arguments nested deep


async def test_tool_arguments_nested_at_any_depth_are_an_error_result_and_the_turn_goes_on(tmp_path: Path) -> None:
    none = ("--prompt", "x", "--approve", "none")
    rows = [
        Row("depth_65", script(PLAN, _calls(ToolCallScript("run_command", _nested(65)))), extra=none),
        Row("depth_500", script(PLAN, _calls(ToolCallScript("run_command", _nested(500)))), extra=none),
        Row("depth_900", script(PLAN, _calls(ToolCallScript("run_command", _nested(900))))),
        Row("lists_600", script(PLAN, _calls(ToolCallScript("run_command", '{"a": ' + "[" * 600 + "]" * 600 + "}")))),
    ]
    results = await run_rows(tmp_path, rows)

    expected = f"Error: {TOO_DEEP}. The tool was not run."
    for name, result in results.items():
        result.check(0, lines=0)
        assert result.types() == ["text", "round_end", "tool_call:start", "tool_call:result", "round_end",
                                  "text", "round_end", "turn_end"], name
        assert _results(result)[0]["arguments"] is None and _results(result)[0]["is_error"], name
        assert _tool_answers(result) == [expected], name
        calls = [m for m in result.history() if m.get("tool_calls")]
        assert calls[0]["tool_calls"][0]["function"]["arguments"] == "{}", name
        # The next request carries the error, and the call as a plain object
        # with the start of what the model sent, not all of it again.
        sent = result.requests[-1]["messages"]
        call = next(m for m in sent if m.get("tool_calls"))
        answer = next(m for m in sent if m["role"] == "tool")
        assert call["tool_calls"][0]["function"]["arguments"] == "{}", name
        assert answer["content"].startswith(expected), name
        assert len(answer["content"]) <= len(expected) + len(ARGUMENTS_NOTE) + RAW_ARGUMENTS_MAX + 8, name
    assert "[tool] run_command failed: Error: the arguments are nested too deeply" in results["depth_500"].stderr


# ------------------------------------------------------------ inputs of any size


async def test_a_huge_tool_result_is_cut_where_it_is_produced_and_every_request_stays_within_the_budget(
    tmp_path: Path,
) -> None:
    (tmp_path / "server.py").write_text(SERVER_CODE)
    some = '{"lines": 20000}'  # 600 KB each
    small = _calls(*(ToolCallScript("big", some) for _ in range(3)))
    rows = [
        Row("big", script(PLAN, tool_reply("big", {})), files=_server_files(tmp_path, "big")),
        Row("big_zh", script(PLAN, tool_reply("big_zh", {})), files=_server_files(tmp_path, "big_zh")),
        Row("small_context", script(PLAN, small, _calls(ToolCallScript("big_zh", "{}"), ToolCallScript("big", some))),
            files=_server_files(tmp_path, "small_context", more={"settings.json": _settings(4096)})),
    ]
    # The mcp SDK joins a long stdout line quadratically (mcp/client/stdio.py
    # stdout_reader): reading the 20 MB answer alone takes tens of seconds.
    results = {r.row.name: r for r in await asyncio.gather(*(run_row(tmp_path, row, timeout_s=300) for row in rows))}

    default, small_budget = Budget(), Budget(4096)
    for name, result in results.items():
        result.check(0, lines=0)
        assert result.types()[-1] == "turn_end", name
        budget = small_budget if name == "small_context" else default
        assert [_request_size(r) <= budget.request_bytes for r in result.requests] == [True] * len(result.requests)
        # The bus result, history and the next request all hold the same cut text.
        shown = [e["result"] for e in _results(result)]
        assert _tool_answers(result) == shown, name
        for text in shown:
            assert result_cut(text) is not None, name
            assert len(text.encode()) <= budget.result_bytes, name

    _assert_cut_of(_results(results["big"])[0]["result"], "".join(BIG_LINE.format(n=n) for n in range(BIG_LINES)))
    _assert_cut_of(_results(results["big_zh"])[0]["result"], ("汉字测试结果。" * (2_000_000 // 7 + 1))[:2_000_000])
    assert "[tool] big done (cut to fit the model's context: " in results["big"].stderr
    # With a small context the earlier round's results make room for the
    # current round's, whose calls stay answered in order.
    last = results["small_context"].requests[-1]["messages"]
    assert [m["role"] for m in last][-6:] == ["tool", "tool", "tool", "assistant", "tool", "tool"]
    assert "characters left out to fit the model's context" in last[-6]["content"]


async def test_a_large_hook_prompt_or_skill_still_fits_every_request(tmp_path: Path) -> None:
    hook_text = "Always keep this in mind: " + "be thorough and careful. " * 2400  # 60 KB
    hooks = [{"name": "huge", "checkpoint": "turn_start", "role": "user", "persistent": True,
              "prompt_file": "huge.md", "enabled": True}]
    skill = "---\nname: huge-skill\ndescription: A skill with a long body.\n---\n\n" + "Step: do it well.\n" * 11000
    context = 8192
    rows = [
        Row("hook", script(), files={"settings.json": _settings(context), "hooks/hooks.json": json.dumps(hooks).encode(),
                                     "hooks/huge.md": hook_text.encode()}),
        Row("skill", script(), extra=("--prompt", "/huge-skill go", "--approve", "all"),
            files={"settings.json": _settings(context), "skills/huge-skill/SKILL.md": skill.encode()}),
    ]
    results = await run_rows(tmp_path, rows)

    budget = Budget(context)
    for name, result in results.items():
        result.check(0, lines=0)
        assert len(result.requests) == 2, name
        assert [_request_size(r) <= budget.request_bytes for r in result.requests] == [True, True], name
        assert "characters left out to fit the model's context" in json.dumps(result.requests[0]), name
    # The canonical history keeps the hook whole; only the request was cut.
    assert [m["content"] for m in results["hook"].history() if "_hook" in m] == [hook_text.strip()]
    assert results["skill"].history()[0] == {"role": "user", "content": "/huge-skill go"}


# ------------------------------------------------------- a server's stdout noise


async def test_an_mcp_server_printing_garbage_is_one_warning_and_its_calls_go_on(tmp_path: Path) -> None:
    # Two lines that are not JSON-RPC before it answers anything, two more before each result.
    noisy = Path(noisy_mcp_server.__file__)
    rows = [Row("noisy", script(PLAN, tool_reply("echo", {"text": "one"}), tool_reply("echo", {"text": "two"})),
                files=_server_files(tmp_path, "noisy", noisy))]
    result = (await run_rows(tmp_path, rows))["noisy"]

    result.check(0)
    assert result.lines() == [
        'warning: mcp server "noisy" wrote a line that is not MCP (JSON-RPC) to its standard output; '
        "such lines are ignored"
    ]
    assert _tool_answers(result) == ["echo says one", "echo says two"]


# ------------------------------------------------------------- the approval line


async def test_the_approval_line_names_the_server_or_built_in_and_the_risk(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER_CODE)
    calls = _calls(ToolCallScript("Run_Command", "{}"), ToolCallScript("run_command", '{"command": "echo hi"}'))
    rows = [Row("evil", script(PLAN, calls), extra=("--prompt", "x", "--approve", "ask"), stdin=b"y\ny\n",
                files=_server_files(tmp_path, "evil"))]
    result = (await run_rows(tmp_path, rows))["evil"]

    result.check(0, lines=0)
    # (a line may follow the "Approve? [y/N] " prompt, which ends in no newline)
    assert re.findall(r"\[approval\] [^\n]*", result.stderr) == [
        '[approval] Run_Command (MCP server "evil"; may change or delete data · reaches outside this computer) {}',
        '[approval] run_command (built-in) {"command": "echo hi"}',  # echo only reads: no warning
    ]
    assert _tool_answers(result)[0] == "ran ''"
