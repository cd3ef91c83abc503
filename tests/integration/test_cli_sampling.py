"""A server's sampling request in a real headless run (contracts §10): the
real server-everything's ``trigger-sampling-request`` over stdio, the app's
model the scripted loopback server behind the real openai SDK. Approved, the
model answers without tools and within the server's limits, and the server's
tool result holds that answer; refused at the terminal, the server hears the
user declined and the turn goes on; the audit log has each decision."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from desktop_agent.mcp_engine.sampling import DECLINED
from desktop_agent.testing import everything
from desktop_agent.testing.headless_run import read_jsonl, run_cli
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply, tool_reply

pytestmark = [pytest.mark.integration, pytest.mark.npm]
TOOL = "trigger-sampling-request"
PLAN = text_reply("On it.<need_tool>")
ASKED = f"Resource {TOOL} context: say hi"


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


async def headless(tmp: Path, server: ScriptedLLMServer, *extra: str, stdin: bytes = b"") -> tuple[int, str]:
    mcp = tmp / "mcp.json"
    js = str(everything.everything_js())
    mcp.write_text(json.dumps({"mcpServers": {"everything": {"command": "node", "args": [js, "stdio"]}}}))
    return await run_cli(
        tmp / "home", "--base-url", server.base_url, "--model", "scripted",
        "--api-key", "k", "--tts", "none", "--mcp-config", str(mcp), "--prompt", "ask it",
        "--events-jsonl", str(tmp / "events.jsonl"), "--audit-log", str(tmp / "audit.jsonl"), *extra,
        stdin=stdin,
    )



def tool_result(tmp: Path) -> str:
    [result] = [e for e in read_jsonl(tmp / "events.jsonl")
                if e["type"] == "tool_call" and e["state"] == "result" and e["tool_name"] == TOOL]
    return str(result["result"])


def decisions(tmp: Path) -> list[tuple[str, str | None, str, str]]:
    return [(r["tool_name"], r["server"], r["decision"], r["decided_by"]) for r in read_jsonl(tmp / "audit.jsonl")]


async def test_approve_all_lets_the_model_answer_the_server(tmp_path: Path, server: ScriptedLLMServer) -> None:
    server.set_script([
        PLAN, tool_reply(TOOL, {"prompt": "say hi", "maxTokens": 42}), text_reply("Hi from the model."),
        text_reply("The server heard hi."),
    ])

    code, err = await headless(tmp_path, server, "--approve", "all")

    assert code == 0, err
    answer = json.loads(tool_result(tmp_path).split("\n", 1)[1])
    assert answer == {"role": "assistant", "content": {"type": "text", "text": "Hi from the model."},
                      "model": "scripted", "stopReason": "endTurn"}
    sampling = server.requests[2]
    assert sampling["messages"] == [
        {"role": "system", "content": "You are a helpful test server."}, {"role": "user", "content": ASKED},
    ]
    assert (sampling["max_tokens"], sampling["temperature"], "tools" in sampling) == (42, 0.7, False)
    assert decisions(tmp_path) == [
        (TOOL, "everything", "approved", "headless_flag"), ("sampling", "everything", "approved", "headless_flag"),
    ]
    events = read_jsonl(tmp_path / "events.jsonl")
    nested = [e for e in events if e.get("parent_tool_call_id")]
    assert [e["state"] for e in nested] == ["start", "approval_required", "executing", "result"]
    assert nested[0]["arguments"] == {
        "server": "everything", "messages": [{"role": "user", "text": ASKED}], "max_tokens": 42,
    }


async def test_refused_at_the_terminal_the_server_hears_the_user_declined(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    server.set_script([PLAN, tool_reply(TOOL, {"prompt": "say hi"}), text_reply("It was declined.")])

    code, err = await headless(tmp_path, server, "--approve", "ask", stdin=b"y\nn\n")

    assert code == 0, err
    assert f'[approval] MCP server "everything" asks the model to answer (at most 100 tokens): user: "{ASKED}"' in err
    assert DECLINED in tool_result(tmp_path)
    assert len(server.requests) == 3  # the model was never asked to sample; the turn went on
    assert decisions(tmp_path) == [
        (TOOL, "everything", "approved", "user"), ("sampling", "everything", "rejected", "user"),
    ]
    kinds = [e["type"] for e in read_jsonl(tmp_path / "events.jsonl")]
    assert "interrupted" not in kinds and kinds[-1] == "turn_end"
