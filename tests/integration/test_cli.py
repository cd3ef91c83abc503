"""The headless mode as a subprocess (contracts §10): JSONL events, history
file, exit codes, and SIGINT as the interrupt button."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.history import check_history
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, text_reply, tool_reply
from desktop_agent.testing.strict_checks import no_system_role
from desktop_agent.testing.wire_contract import wire_problems

pytestmark = pytest.mark.integration
MARKER = "sleep 48.75"
PLAN = text_reply("<voice>On it.</voice><need_tool>")


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


class Run:
    def __init__(self, tmp: Path, server: ScriptedLLMServer) -> None:
        self.tmp = tmp
        self.server = server
        self.events_path = tmp / "events.jsonl"
        self.history_path = tmp / "history.json"
        self.mcp = tmp / "mcp.json"
        self.mcp.write_text('{"mcpServers": {}}')

    def argv(self, *extra: str) -> list[str]:
        return [sys.executable, "-m", "desktop_agent", "--cli", "--base-url", self.server.base_url,
                "--model", "scripted", "--api-key", "k", "--tts", "none", "--mcp-config", str(self.mcp),
                "--events-jsonl", str(self.events_path), "--history-json", str(self.history_path), *extra]

    async def start(self, *extra: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *self.argv(*extra), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)

    async def run(self, script: Sequence[Reply], *extra: str) -> tuple[int, str, str]:
        self.server.set_script(list(script))
        proc = await self.start(*extra)
        async with asyncio.timeout(60):
            out, err = await proc.communicate()
        assert proc.returncode is not None
        return proc.returncode, out.decode(), err.decode()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.events_path.read_text().splitlines()]

    def types(self) -> list[str]:
        return [e["type"] if e["type"] != "tool_call" else f"tool_call:{e['state']}" for e in self.events()]

    def history(self) -> list[dict[str, Any]]:
        history: list[dict[str, Any]] = json.loads(self.history_path.read_text())
        check_history(history_items(history))
        return history


async def test_approve_all_runs_the_tool(tmp_path: Path, server: ScriptedLLMServer) -> None:
    run = Run(tmp_path, server)
    code, out, err = await run.run(
        [PLAN, tool_reply("run_command", {"command": "echo from-tool"}), text_reply("It said from-tool.")],
        "--prompt", "run it", "--approve", "all")
    assert code == 0, err
    assert run.types() == ["text", "round_end", "tool_call:start", "tool_call:approval_required",
                           "tool_call:executing", "tool_output", "tool_call:result", "round_end", "text",
                           "round_end", "turn_end"]
    events = run.events()
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert len({e["session_id"] for e in events}) == 1
    assert "It said from-tool." in out
    assert [m["role"] for m in run.history()] == ["user", "assistant", "assistant", "tool", "assistant"]


async def test_approve_none_rejects_and_exits_zero(tmp_path: Path, server: ScriptedLLMServer) -> None:
    run = Run(tmp_path, server)
    code, _out, err = await run.run(
        [PLAN, tool_reply("run_command", {"command": "echo nope"})], "--prompt", "x", "--approve", "none")
    assert code == 0, err
    assert run.types()[-3:] == ["tool_rejected", "interrupted", "turn_end"]
    assert run.events()[-2]["reason"] == "rejected"
    assert run.history()[-1]["content"] == "The user rejected this tool call."
    assert len(server.requests) == 2


async def test_sigint_while_executing_interrupts_like_the_button(tmp_path: Path, server: ScriptedLLMServer) -> None:
    run = Run(tmp_path, server)
    server.set_script([PLAN, tool_reply("run_command", {"command": f"echo partial-line; {MARKER}"})])
    proc = await run.start("--prompt", "x", "--approve", "all")
    async with asyncio.timeout(60):
        while not live_processes(MARKER):
            await asyncio.sleep(0.05)
        while "partial-line" not in json.dumps(run.events()) and "executing" not in run.events_path.read_text():
            await asyncio.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    types = run.types()
    assert types[-3:] == ["tool_rejected", "interrupted", "turn_end"]
    rejected = run.events()[-3]
    assert rejected["partial_result"]["stdout"].startswith("partial-line")
    assert run.events()[-2]["reason"] == "user"
    assert "partial-line" in run.history()[-1]["content"]
    assert live_processes(MARKER) == []


async def test_llm_failure_exits_one_with_one_line(tmp_path: Path, server: ScriptedLLMServer) -> None:
    run = Run(tmp_path, server)
    code, _out, err = await run.run([Reply(status=401, error_message="bad key")], "--prompt", "x")
    assert code == 1
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and "401" in errors[0]
    assert "Traceback" not in err


async def test_malformed_settings_file_is_reported_and_kept(tmp_path: Path, server: ScriptedLLMServer) -> None:
    home = Path(os.environ["DESKTOP_AGENT_HOME"])
    (home / "settings.json").write_text("{not json")
    run = Run(tmp_path, server)
    code, _out, err = await run.run([text_reply("Hi <no_tool>"), text_reply("there")], "--prompt", "x")
    assert code == 0, err
    assert "settings file" in err and "not valid JSON" in err
    kept = list(home.glob("settings.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text() == "{not json"


async def test_bad_mcp_config_exits_two(tmp_path: Path, server: ScriptedLLMServer) -> None:
    run = Run(tmp_path, server)
    run.mcp.write_text('{"mcpServers": {"x": {"args": 3}}}')
    code, _out, err = await run.run([], "--prompt", "x")
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("error:") and '"x"' in err


async def test_unreachable_endpoint_exits_one(tmp_path: Path) -> None:
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
        "--api-key", "k", "--tts", "none", "--mcp-config", str(mcp), "--prompt", "x",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        _out, err = await proc.communicate()
    assert proc.returncode == 1
    assert "cannot reach" in err.decode() and "Traceback" not in err.decode()


async def test_demo_model_runs_offline_with_a_real_tool_call(tmp_path: Path) -> None:
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    events = tmp_path / "e.jsonl"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--tts", "none",
        "--mcp-config", str(mcp), "--prompt", "please run a command", "--approve", "all",
        "--events-jsonl", str(events),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        _out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert "demo" in err.decode() and "--base-url" in err.decode()
    results = [json.loads(line) for line in events.read_text().splitlines()]
    ran = [e for e in results if e["type"] == "tool_call" and e["state"] == "result"]
    assert ran and ran[0]["tool_name"] == "run_command" and not ran[0]["is_error"]


async def _run_with_input(run: Run, script: Sequence[Reply], stdin: bytes, *extra: str) -> tuple[int, str, str]:
    run.server.set_script(list(script))
    proc = await asyncio.create_subprocess_exec(
        *run.argv(*extra), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate(stdin)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_approve_ask_takes_the_answer_from_the_terminal(tmp_path: Path, server: ScriptedLLMServer) -> None:
    run = Run(tmp_path, server)
    code, _out, err = await _run_with_input(
        run, [PLAN, tool_reply("run_command", {"command": "echo typed-yes"}), text_reply("Done.")],
        b"y\n", "--prompt", "x")
    assert code == 0, err
    assert "Approve? [y/N]" in err
    result = [e for e in run.events() if e.get("state") == "result"]
    assert "typed-yes" in result[0]["result"]


async def test_a_form_is_answered_in_the_terminal(tmp_path: Path, server: ScriptedLLMServer) -> None:
    run = Run(tmp_path, server)
    form = {"title": "Trip", "questions": [
        {"id": "city", "question": "Which city?", "type": "text"},
        {"id": "when", "question": "When?", "type": "choice", "options": ["today", "tomorrow"]}]}
    code, _out, err = await _run_with_input(
        run, [PLAN, tool_reply("ask_user_question", form), text_reply("Thanks.")], b"Paris\n2\n", "--prompt", "x")
    assert code == 0, err
    types = run.types()
    assert types[2:5] == ["tool_call:start", "tool_call:executing", "form_request"]
    result = next(e for e in run.events() if e.get("state") == "result")
    assert json.loads(result["result"]) == {"answers": {"city": "Paris", "when": "tomorrow"}}


async def test_a_running_command_s_output_is_printed_live_and_logged_between_executing_and_result(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    run = Run(tmp_path, server)
    fifo = tmp_path / "gate.fifo"
    os.mkfifo(fifo)
    gate = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    command = f"echo step-1; echo warn-1 >&2; read x < {fifo}; echo step-2"
    server.set_script([PLAN, tool_reply("run_command", {"command": command}), text_reply("Both steps ran.")])
    proc = await run.start("--prompt", "x", "--approve", "all")
    assert proc.stderr is not None
    printed: list[str] = []
    try:
        async with asyncio.timeout(60):
            # The first lines reach the terminal while the command still waits.
            while not {"    step-1", "    warn-1"} <= set(printed):
                line = await proc.stderr.readline()
                assert line, f"stderr ended early: {printed}"
                printed.append(line.decode().rstrip("\n"))
            assert "    step-2" not in printed
            os.write(gate, b"go\n")
            _out, rest = await proc.communicate()
    finally:
        os.close(gate)
    assert proc.returncode == 0
    printed += rest.decode().splitlines()
    tool_lines = [line for line in printed if line.startswith(("    ", "[tool]"))]
    done = next(i for i, line in enumerate(tool_lines) if line.startswith("[tool] run_command done"))
    assert tool_lines.index("    step-1") < tool_lines.index("    step-2") < done  # indented, in order
    types = run.types()
    executing, result = types.index("tool_call:executing"), types.index("tool_call:result")
    output_at = [i for i, t in enumerate(types) if t == "tool_output"]
    assert output_at and all(executing < i < result for i in output_at)
    outputs = [e for e in run.events() if e["type"] == "tool_output"]
    assert "".join(e["text"] for e in outputs if e["stream"] == "stdout") == "step-1\nstep-2\n"
    assert "".join(e["text"] for e in outputs if e["stream"] == "stderr") == "warn-1\n"


async def test_a_server_that_refuses_system_messages_is_remembered_as_strict(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    server.refuse = no_system_role  # a Gemma template behind the endpoint
    run = Run(tmp_path, server)
    code, _out, err = await run.run([text_reply("Hi. <no_tool>"), text_reply("- one\n- two\n")], "--prompt", "x")
    assert code == 0, err
    assert [any(m["role"] == "system" for m in r["messages"]) for r in server.requests] == [True, False, False]
    home = Path(os.environ["DESKTOP_AGENT_HOME"])
    assert json.loads((home / "settings.json").read_text())["wire_profiles"] == {server.base_url: "strict"}
    # --history-json keeps the canonical history: the two replies stay apart.
    assert run.history() == [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "Hi. "},
        {"role": "assistant", "content": "- one\n- two\n"},
    ]


async def test_a_three_turn_headless_session_sends_only_contract_requests(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    # The headless mode end to end: a Markdown answer without tools, a tool call
    # whose arguments exceed the 300-character context cut, a last turn.
    long_command = "echo " + "long-argument " * 40
    server.set_script([
        text_reply("<voice>Sure.</voice><no_tool>"),
        text_reply("Three things:\n\n- **one**\n- two\n- three\n"),
        PLAN,
        tool_reply("run_command", {"command": long_command}),
        text_reply("It echoed."),
        text_reply("<voice>Bye.</voice><no_tool>"),
        text_reply("See you."),
    ])
    run = Run(tmp_path, server)
    proc = await asyncio.create_subprocess_exec(
        *run.argv("--approve", "all"), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        _out, err = await proc.communicate(b"list three things\nrun the long one\nthanks\n")
    assert proc.returncode == 0, err.decode()
    requests = server.requests
    assert len(requests) == 7
    for n, request in enumerate(requests):
        assert wire_problems(request["messages"]) == [], f"request {n}"
    last = requests[-1]["messages"]
    (call,) = [c for m in last if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    replayed = json.loads(call["function"]["arguments"])  # still JSON after the cut
    assert replayed["command"].startswith("echo long-argument") and len(replayed["command"]) < len(long_command)
    assert any("- **one**\n- two\n- three" in str(m["content"]) for m in last if m["role"] == "assistant")
