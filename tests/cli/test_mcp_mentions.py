"""The headless mode's MCP prompts and resources (contracts §10), the real
CLI against the real server-everything (stdio and streamable HTTP) and the
scripted LLM server: the listings, a ``/mcp__…`` prompt and ``@server:uri``
in ``--prompt`` and in the interactive loop, images as image parts (also
after a strict server's retry), and a message that cannot be expanded:
one line, no request."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.cli import run
from desktop_agent.options import build_parser
from desktop_agent.testing.everything import everything_js, run_everything
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply
from desktop_agent.testing.strict_checks import no_system_role
from desktop_agent.testing.wire_contract import wire_problems

pytestmark = pytest.mark.integration

DONE = text_reply("<voice>Done.</voice><no_tool>")
CATALOG_SERVER = Path(__file__).resolve().parents[1] / "mcp_engine" / "servers" / "catalog_server.py"
FEATURES = "demo://resource/static/document/features.md"


@dataclass
class Ran:
    status: int
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]
    history: list[dict[str, Any]]

    def errors(self) -> list[str]:
        return [line.removeprefix("you> ") for line in self.stderr.splitlines() if "error" in line]


def _servers(tmp_path: Path, servers: dict[str, Any]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def _everything() -> dict[str, Any]:
    return {"command": "node", "args": [str(everything_js()), "stdio"]}


async def _cli(tmp_path: Path, mcp: Path, *flags: str, stdin: bytes | None = None) -> Ran:
    history = tmp_path / "history.json"
    async with ScriptedLLMServer(lambda _request: DONE) as llm:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "desktop_agent", "--cli", "--base-url", llm.base_url, "--model", "scripted",
            "--api-key", "sk-test", "--tts", "none", "--mcp-config", str(mcp), "--history-json", str(history),
            *flags,
            env=dict(os.environ),
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(90):
            out, err = await proc.communicate(stdin)
        requests = [dict(r) for r in llm.requests]
    kept = json.loads(history.read_text()) if history.exists() else []
    assert proc.returncode is not None
    return Ran(proc.returncode, out.decode(), err.decode(), requests, kept)


def _user(request: dict[str, Any]) -> Any:
    """The request's first user message's content."""
    return next(m for m in request["messages"] if m["role"] == "user")["content"]


def _said(request: dict[str, Any]) -> str:
    """The user's words in it, without the planning instruction appended to them (contracts §2a)."""
    content = _user(request)
    text = content[0]["text"] if isinstance(content, list) else content
    return str(text).split("\n\n[system instruction]\n", 1)[0]


async def test_list_prompts_and_resources_print_one_tab_separated_line_each(tmp_path: Path) -> None:
    mcp = _servers(tmp_path, {"ev": _everything()})
    prompts = await _cli(tmp_path, mcp, "--list-prompts")
    resources = await _cli(tmp_path, mcp, "--list-resources")

    assert prompts.status == 0 and prompts.requests == []
    assert prompts.stdout.splitlines() == [
        "ev\tsimple-prompt\tA prompt with no arguments",
        "ev\targs-prompt\tA prompt with two arguments, one required and one optional",
        "ev\tcompletable-prompt\tFirst argument choice narrows values for second argument.",
        "ev\tresource-prompt\tA prompt that includes an embedded resource reference",
    ]
    lines = resources.stdout.splitlines()
    assert resources.status == 0
    assert f"ev\t{FEATURES}\tfeatures.md" in lines
    assert lines[-2:] == [
        "ev\tdemo://resource/dynamic/text/{resourceId}\tDynamic Text Resource",
        "ev\tdemo://resource/dynamic/blob/{resourceId}\tDynamic Blob Resource",
    ]
    assert all(len(line.split("\t")) == 3 for line in lines)


async def test_a_prompt_command_becomes_the_turns_user_message(tmp_path: Path) -> None:
    mcp = _servers(tmp_path, {"ev": _everything()})
    ran = await _cli(tmp_path, mcp, "--prompt", '/mcp__ev__args-prompt city="New York" state=NY')

    assert ran.status == 0, ran.stderr
    assert ran.errors() == []
    assert _said(ran.requests[0]) == "What's weather in New York, NY?"
    assert ran.history[0] == {
        "role": "user", "content": "What's weather in New York, NY?", "_typed": '/mcp__ev__args-prompt city="New York" state=NY'
    }


async def test_a_resource_mention_attaches_its_text_in_a_fence_naming_the_uri(tmp_path: Path) -> None:
    with run_everything("streamableHttp", "/mcp") as web:
        mcp = _servers(tmp_path, {"web": {"type": "http", "url": web.url}})
        ran = await _cli(tmp_path, mcp, "--prompt", f"Summarise @web:{FEATURES} briefly.")

    assert ran.status == 0, ran.stderr
    sent = _said(ran.requests[0])
    typed, block = sent.split("\n\n", 1)
    assert typed == f"Summarise @web:{FEATURES} briefly."
    assert block.startswith(f"```{FEATURES}\n#") and block.endswith("\n```")
    assert ran.history[0]["content"] == sent


async def test_a_huge_resource_is_sent_cut_and_the_terminal_says_so(tmp_path: Path) -> None:
    mcp = _servers(tmp_path, {"cat": {"command": sys.executable, "args": [str(CATALOG_SERVER)]}})
    ran = await _cli(tmp_path, mcp, "--prompt", "count the letters in @cat:test://huge.txt")

    assert ran.status == 0, ran.stderr
    notices = [line for line in ran.stderr.splitlines() if line.startswith("notice:")]
    assert notices == [
        'notice: mcp server "cat": resource "test://huge.txt" is too long; '
        "only its first 100,000 characters were attached"
    ]
    sent = _said(ran.requests[0])
    assert sent.endswith("a\n[truncated: showing the first 100,000 of 250,000 characters]\n```")
    assert len(sent) < 100_300


async def test_what_cannot_be_expanded_is_one_line_and_no_request(tmp_path: Path) -> None:
    mcp = _servers(tmp_path, {"ev": _everything()})
    missing = await _cli(tmp_path, mcp, "--prompt", "/mcp__ev__args-prompt state=NY")
    unknown = await _cli(tmp_path, mcp, "--prompt", "/mcp__ev__nope")
    unread = await _cli(tmp_path, mcp, "--prompt", "read @ev:demo://nope")

    for ran in (missing, unknown, unread):
        assert (ran.status, ran.requests, ran.history) == (2, [], [])
        assert "Traceback" not in ran.stderr
    assert missing.errors() == ["error: /mcp__ev__args-prompt: missing city=…"]
    assert unknown.errors() == ['error: /mcp__ev__nope: mcp server "ev" has no prompt "nope"']
    assert unread.errors() == [
        'error: mcp server "ev": resource "demo://nope" failed: MCP error -32602: Resource demo://nope not found'
    ]


async def test_the_interactive_loop_says_the_error_and_runs_the_next_line(tmp_path: Path) -> None:
    mcp = _servers(tmp_path, {"ev": _everything()})
    lines = "/mcp__ev__args-prompt\n/mcp__ev__simple-prompt\n"
    ran = await _cli(tmp_path, mcp, stdin=lines.encode())

    assert ran.status == 0, ran.stderr
    assert ran.errors() == ["error: /mcp__ev__args-prompt: missing city=…"]
    assert _said(ran.requests[0]) == "This is a simple prompt without arguments."


async def test_images_reach_the_model_as_parts_also_after_a_strict_servers_retry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In-process, to give the scripted server a strict chat template."""
    mcp = _servers(tmp_path, {"cat": {"command": sys.executable, "args": [str(CATALOG_SERVER)]}})
    history = tmp_path / "history.json"
    async with ScriptedLLMServer(lambda _request: DONE, refuse=no_system_role) as llm:
        args = build_parser().parse_args([
            "--cli", "--base-url", llm.base_url, "--model", "scripted", "--api-key", "sk-test", "--tts", "none",
            "--mcp-config", str(mcp), "--history-json", str(history),
            "--prompt", "Describe @cat:test://dot.png, please",
        ])
        out, err = io.StringIO(), io.StringIO()
        status = await run(args, io.StringIO(), out, err)
        requests = [dict(r) for r in llm.requests]

    assert status == 0, err.getvalue()
    refused, strict = requests[:2]  # refused once (a system message), then sent strictly
    assert isinstance(_user(refused), list)
    content = _user(strict)
    assert isinstance(content, list) and content[0]["type"] == "text"
    assert _said(strict).endswith(
        "Describe @cat:test://dot.png, please\n\n```test://dot.png\n[image: image/png, 70 bytes]\n```"
    )
    assert [p["type"] for p in content[1:]] == ["image_url"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")
    assert wire_problems(strict["messages"], system_role=False) == []
    kept = json.loads(history.read_text())
    assert kept[0]["_images"] == content[1:]
