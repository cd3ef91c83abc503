from __future__ import annotations

import asyncio
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.messages import ToolOutputMessage
from desktop_agent.core.ports import ToolResult
from desktop_agent.core.tool_context import OUTPUT_INTERVAL_S
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.procs import live_processes
from desktop_agent.tools._process import TAIL_CHARS
from desktop_agent.tools.run_command import RunCommandTool
from tests.tools.conftest import WatchedContext, no_longer_runs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and process groups")

NOTE_ABANDONED = (
    "note: background processes kept the output open after the command exited; they were "
    "stopped (redirect their output, e.g. > file 2>&1 &, to keep them running)"
)


async def _wait_until_gone(pid: int) -> None:
    async with asyncio.timeout(10):
        while not no_longer_runs(pid):
            await asyncio.sleep(0.01)  # polling a process table entry: no event to wait on


def _outputs(ctx: WatchedContext) -> list[ToolOutputMessage]:
    return [i.message for i in ctx.bus.reader.items if isinstance(i.message, ToolOutputMessage)]


def _lines(partial: dict[str, Any]) -> list[str]:
    return str(partial.get("stdout", "")).splitlines()


GROUP = "echo $$; {job} & echo $!; echo started; wait"
"""A shell that prints its pid, starts a background job, prints the job's
pid, says ``started`` and waits."""


async def _started(
    tool: RunCommandTool, command: str, ctx: WatchedContext
) -> tuple[asyncio.Task[ToolResult], int, int]:
    """Run ``command`` (a :data:`GROUP`) until it said ``started``: the task,
    the shell's pid and the background job's pid."""
    run = asyncio.create_task(tool.run({"command": command}, ctx))
    partial = await ctx.wait_partial(lambda p: _lines(p)[-1:] == ["started"])
    shell, job = (int(x) for x in _lines(partial)[:2])
    return run, shell, job


async def _cancelled_and_gone(run: asyncio.Task[ToolResult], shell: int, job: int) -> None:
    """The cancelled run ends with CancelledError; the shell (our child) is
    killed and reaped, no zombie; the background job dies too."""
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(10):
            await run
    with pytest.raises(ProcessLookupError):
        os.kill(shell, 0)
    await _wait_until_gone(job)


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A fifo the test holds open, so the command's ``read x < fifo`` blocks
    until the test writes a line."""
    path = tmp_path / "in.fifo"
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    yield path, fd
    os.close(fd)


async def test_exit_code_and_both_streams_reach_the_model_and_the_cache(
    ctx: WatchedContext
) -> None:
    async with asyncio.timeout(10):
        result = await RunCommandTool().run({"command": "echo hi; echo err >&2; exit 3"}, ctx)

    assert result == ToolResult("exit code 3\n--- stdout ---\nhi\n--- stderr ---\nerr", is_error=True)
    assert ctx.partial.snapshot() == {"stdout": "hi\n", "stderr": "err\n"}


async def test_a_successful_command_is_not_an_error(ctx: WatchedContext) -> None:
    async with asyncio.timeout(10):
        result = await RunCommandTool().run({"command": "printf '北京\\n'"}, ctx)
    assert result == ToolResult("exit code 0\n--- stdout ---\n北京")


async def test_a_silent_command_says_no_output(ctx: WatchedContext) -> None:
    async with asyncio.timeout(10):
        result = await RunCommandTool().run({"command": "true"}, ctx)
    assert result == ToolResult("exit code 0\n(no output)")


async def test_partial_output_is_cached_while_the_command_runs(
    ctx: WatchedContext, fifo: tuple[Path, int]
) -> None:
    path, fd = fifo
    command = f'echo started; read x < {shlex.quote(str(path))}; echo "got $x"'
    run = asyncio.create_task(RunCommandTool().run({"command": command}, ctx))

    partial = await ctx.wait_partial(lambda p: p.get("stdout") == "started\n")
    assert partial == {"stdout": "started\n", "stderr": ""}
    assert not run.done()

    os.write(fd, b"hello\n")
    async with asyncio.timeout(10):
        result = await run
    assert result == ToolResult("exit code 0\n--- stdout ---\nstarted\ngot hello")


async def test_output_reaches_the_bus_live_while_the_command_waits(
    bus: RecordingBus, fifo: tuple[Path, int]
) -> None:
    clock = FakeClock()  # paces the output: a held batch goes when the test moves it
    ctx = WatchedContext(bus, output_timers=clock)
    path, fd = fifo
    command = f'echo started; echo warming >&2; read x < {shlex.quote(str(path))}; echo "got $x"'
    run = asyncio.create_task(RunCommandTool().run({"command": command}, ctx))
    await ctx.wait_partial(lambda p: p.get("stderr") == "warming\n")
    clock.advance(OUTPUT_INTERVAL_S)  # a held batch goes out

    live = [(m.stream, m.text) for m in _outputs(ctx)]
    assert live == [("stdout", "started\n"), ("stderr", "warming\n")]
    assert not run.done()

    os.write(fd, b"hello\n")
    async with asyncio.timeout(10):
        await run
    ctx.flush_output()  # what the chat handler does before the result
    assert [(m.stream, m.text) for m in _outputs(ctx)] == [*live, ("stdout", "got hello\n")]


async def test_a_chatty_command_loses_no_line_in_few_messages(ctx: WatchedContext) -> None:
    async with asyncio.timeout(60):
        result = await RunCommandTool().run({"command": "seq 1 200000; echo end >&2"}, ctx)
    ctx.flush_output()
    outputs = _outputs(ctx)
    stdout = "".join(m.text for m in outputs if m.stream == "stdout")
    assert stdout.splitlines() == [str(n) for n in range(1, 200001)]
    assert "".join(m.text for m in outputs if m.stream == "stderr") == "end\n"
    assert len(outputs) < 1000  # coalesced: not one message per chunk, let alone per line
    assert result.text.endswith("--- stderr ---\nend")
    assert len(str((ctx.partial.snapshot() or {})["stdout"])) <= TAIL_CHARS  # the cache keeps a tail


async def test_interrupt_kills_the_process_group_and_keeps_the_partial_output(
    ctx: WatchedContext
) -> None:
    run, shell, grandchild = await _started(RunCommandTool(), GROUP.format(job="sleep 1000"), ctx)

    run.cancel()

    await _cancelled_and_gone(run, shell, grandchild)
    assert ctx.partial.snapshot() == {"stdout": f"{shell}\n{grandchild}\nstarted\n", "stderr": ""}


async def test_interrupt_escalates_to_sigkill_when_the_group_ignores_sigterm(ctx: WatchedContext) -> None:
    command = "trap '' TERM; " + GROUP.format(job="sleep 1000")
    run, shell, grandchild = await _started(RunCommandTool(kill_grace_s=0.1), command, ctx)

    run.cancel()

    await _cancelled_and_gone(run, shell, grandchild)


async def test_timeout_kills_the_group_and_returns_the_output_so_far_as_an_error(
    ctx: WatchedContext,
) -> None:
    # timeout_s above the tool's maximum is capped to it (1 s).
    tool = RunCommandTool(max_timeout_s=1)
    command = "echo $$; echo before >&2; exec sleep 1000"

    async with asyncio.timeout(10):
        result = await tool.run({"command": command, "timeout_s": 600}, ctx)

    shell = int(result.text.split("\n")[2])
    assert result == ToolResult(
        f"timed out after 1 s; the command was stopped\n--- stdout ---\n{shell}\n--- stderr ---\nbefore",
        is_error=True,
    )
    with pytest.raises(ProcessLookupError):
        os.kill(shell, 0)


async def test_background_jobs_holding_the_output_are_stopped_when_the_command_ends(
    ctx: WatchedContext,
) -> None:
    tool = RunCommandTool(eof_grace_s=0.05)

    async with asyncio.timeout(10):
        result = await tool.run({"command": "sleep 1000 & echo $!"}, ctx)

    background = int(result.text.split("\n")[2])
    assert result == ToolResult(f"exit code 0\n--- stdout ---\n{background}\n{NOTE_ABANDONED}")
    await _wait_until_gone(background)


async def test_long_output_keeps_the_tail_in_the_cache_and_a_shorter_tail_for_the_model(
    ctx: WatchedContext
) -> None:
    command = "i=0; while [ $i -lt 2000 ]; do printf '%09d\\n' $i; i=$((i+1)); done"

    async with asyncio.timeout(20):
        result = await RunCommandTool().run({"command": command}, ctx)

    full = "".join(f"{i:09d}\n" for i in range(2000))  # 20000 characters
    assert ctx.partial.snapshot() == {"stdout": full[-16384:], "stderr": ""}
    shown = full.rstrip("\n")[-8192:]
    cut = len(full.rstrip("\n")) - 8192
    assert result == ToolResult(f"exit code 0\n--- stdout ---\n[… {cut} earlier characters cut …]\n{shown}")


@pytest.fixture
def real_tmp(tmp_path: Path) -> Path:
    return tmp_path.resolve()  # pwd -P prints the path without symlinks


async def test_the_command_runs_in_the_given_folder(ctx: WatchedContext, real_tmp: Path) -> None:
    async with asyncio.timeout(10):
        result = await RunCommandTool().run({"command": "pwd -P", "cwd": str(real_tmp)}, ctx)
    assert result == ToolResult(f"exit code 0\n--- stdout ---\n{real_tmp}")


async def test_a_missing_folder_is_a_clear_error(ctx: WatchedContext, tmp_path: Path) -> None:
    missing = str(tmp_path / "nope")
    async with asyncio.timeout(10):
        result = await RunCommandTool().run({"command": "pwd", "cwd": missing}, ctx)
    assert result == ToolResult(
        f"run_command: cwd does not exist or is not a folder: {missing}", is_error=True
    )


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({}, "command is required"),
        ({"command": "  "}, "command must be a non-empty string, got '  '"),
        ({"command": "true", "cwd": 3}, "cwd must be a string, got 3"),
        ({"command": "true", "timeout_s": 0}, "timeout_s must be greater than 0, got 0"),
        ({"command": "true", "timeout_s": "5"}, "timeout_s must be a number, got '5'"),
        ({"command": "true", "timeout_s": True}, "timeout_s must be a number, got True"),
        ({"command": "true", "timeout_s": [1]}, "timeout_s must be a number, got a list"),
    ],
)
async def test_invalid_arguments_give_an_error_naming_the_problem(
    ctx: WatchedContext, arguments: dict[str, Any], error: str
) -> None:
    async with asyncio.timeout(10):
        result = await RunCommandTool().run(arguments, ctx)
    assert result == ToolResult(f"run_command: invalid arguments: {error}", is_error=True)


def test_the_tool_needs_approval_and_states_its_maximum_timeout() -> None:
    spec = RunCommandTool(max_timeout_s=30).spec
    assert (spec.name, spec.skip_approval, spec.server) == ("run_command", False, None)
    parameters: JSONDict = dict(spec.parameters)
    assert "at most 30" in parameters["properties"]["timeout_s"]["description"]


async def test_interrupt_while_the_command_is_still_starting_stops_the_whole_group(
    ctx: WatchedContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Cancelled inside the stdlib's subprocess start, a grandchild holding the
    # pipes used to keep the turn waiting until it exited by itself. The start
    # is held open here until the command has printed its pids, so the cancel
    # lands inside the start while the whole group is known to be alive.
    loop = asyncio.get_running_loop()
    real_exec = loop.subprocess_exec
    release = asyncio.Event()

    async def held_exec(*args: Any, **kwargs: Any) -> tuple[asyncio.SubprocessTransport, asyncio.BaseProtocol]:
        started = await real_exec(*args, **kwargs)
        await release.wait()
        return started

    monkeypatch.setattr(loop, "subprocess_exec", held_exec)
    marker = "sleep 61.125"
    run, shell, grandchild = await _started(RunCommandTool(), GROUP.format(job=marker), ctx)
    assert sorted(live_processes(marker)) == sorted([shell, grandchild])  # the sh -c line names it too
    assert not run.done()

    run.cancel()
    release.set()

    await _cancelled_and_gone(run, shell, grandchild)
    assert live_processes(marker) == []
