"""``--elicit`` (contracts §10): the headless mode answers the real
server-everything's form by the flag, over stdio and streamable HTTP; the
``form_request`` with its ``source`` is in the events file either way."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.testing import everything
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply, tool_reply

pytestmark = [pytest.mark.integration, pytest.mark.npm]
PLAN = text_reply("<voice>Asking.</voice><need_tool>")


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with everything.run_everything("streamableHttp", "/mcp") as running:
        yield running.url


def _servers_file(tmp: Path, transport: str, http_url: str) -> Path:
    entry: dict[str, Any] = (
        {"command": "node", "args": [str(everything.everything_js()), "stdio"]}
        if transport == "stdio" else {"type": "http", "url": http_url}
    )
    path = tmp / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"everything": entry}}))
    return path


async def _run(
    tmp: Path, server: ScriptedLLMServer, mcp: Path, tool: str, arguments: dict[str, Any], *extra: str
) -> tuple[int, str, list[dict[str, Any]], str]:
    """One headless turn that calls ``tool``: exit code, stderr, events, and
    the tool result the model was sent."""
    server.set_script([PLAN, tool_reply(tool, arguments), text_reply("Done.")])
    events = tmp / "events.jsonl"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", "--base-url", server.base_url, "--model", "scripted",
        "--api-key", "k", "--tts", "none", "--mcp-config", str(mcp), "--events-jsonl", str(events),
        "--approve", "all", "--prompt", "ask me", *extra,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(90):
        _out, err = await proc.communicate()
    assert proc.returncode is not None
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    tool_messages = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    return proc.returncode, err.decode(), lines, tool_messages[-1]["content"] if tool_messages else ""


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_elicit_decline_declines_and_the_events_file_has_the_form_with_its_source(
    tmp_path: Path, server: ScriptedLLMServer, transport: str, http_url: str
) -> None:
    mcp = _servers_file(tmp_path, transport, http_url)
    code, err, events, result = await _run(tmp_path, server, mcp, "trigger-elicitation-request", {})

    assert code == 0, err
    forms = [e for e in events if e["type"] == "form_request"]
    executing = next(e for e in events if e["type"] == "tool_call" and e["state"] == "executing")
    assert [(f["source"], f["tool_call_id"], f["title"]) for f in forms] == [
        ({"server": "everything"}, executing["tool_call_id"], "Please provide inputs for the following fields:")
    ]
    assert '[form] MCP server "everything" asks: Please provide inputs for the following fields:' in err
    assert "[form] declined (--elicit decline)" in err
    assert "User declined to provide the requested information" in result


async def test_elicit_defaults_declines_when_a_required_field_has_no_default(
    tmp_path: Path, server: ScriptedLLMServer, http_url: str
) -> None:
    mcp = _servers_file(tmp_path, "stdio", http_url)
    code, err, _events, result = await _run(
        tmp_path, server, mcp, "trigger-elicitation-request", {}, "--elicit", "defaults"
    )

    assert code == 0, err
    assert "[form] declined: “String” (name) is required and has no default (--elicit defaults)" in err
    assert "User declined" in result


async def test_elicit_defaults_accepts_a_form_whose_required_fields_have_defaults(
    tmp_path: Path, server: ScriptedLLMServer, http_url: str
) -> None:
    """server-everything's form requires a name without a default, so this
    asks through the tests' own server, whose required fields have defaults."""
    mcp = tmp_path / "mcp.json"
    script = Path(__file__).resolve().parent / "servers" / "elicit_server.py"
    mcp.write_text(json.dumps({"mcpServers": {"asker": {"command": sys.executable, "args": [str(script)]}}}))
    code, err, _events, result = await _run(tmp_path, server, mcp, "ask", {}, "--elicit", "defaults")

    assert code == 0, err
    assert "[form] accepted with the defaults: count=3, fast=True" in err
    assert result == "accept {'count': 3, 'fast': True}"


@pytest.mark.parametrize("mode", ["decline", "defaults"])
async def test_a_url_elicitation_is_declined_headless_and_no_browser_opens(
    tmp_path: Path, server: ScriptedLLMServer, http_url: str, mode: str
) -> None:
    mcp = _servers_file(tmp_path, "stdio", http_url)
    code, err, events, result = await _run(
        tmp_path, server, mcp, "trigger-url-elicitation", {"url": "https://example.com/x", "message": "Sign in"},
        "--elicit", mode,
    )

    assert code == 0, err
    assert [e["source"] for e in events if e["type"] == "form_request"] == [
        {"server": "everything", "url": "https://example.com/x"}
    ]
    assert '[form] MCP server "everything" asks to open https://example.com/x: Sign in' in err
    assert "[form] declined: a headless run never opens a browser" in err
    assert "User declined to open the URL" in result


async def test_a_schema_no_form_can_show_is_declined_with_one_line_naming_the_server(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    mcp = tmp_path / "mcp.json"
    script = Path(__file__).resolve().parent / "servers" / "elicit_server.py"
    mcp.write_text(json.dumps({"mcpServers": {"asker": {"command": sys.executable, "args": [str(script)]}}}))
    code, err, events, result = await _run(tmp_path, server, mcp, "ask_nested", {}, "--elicit", "defaults")

    assert code == 0, err
    assert result == "decline None"
    assert [e["type"] for e in events if e["type"] in ("form_request", "turn_end")] == ["turn_end"]
    line = ('MCP server "asker" asked for a form the app cannot show '
            "(field 'address' is a nested object, which a form cannot ask); declined")
    assert [e["text"] for e in events if e["type"] == "tool_output"] == [line + "\n"]
    assert line in err
