"""Fault matrix, signal rows: SIGINT, SIGTERM and
SIGHUP at each state of a turn interrupt it like the window's button, write
the outputs and exit 0; a second SIGINT during the clean-up changes nothing;
SIGKILL of the app leaves no command running. The rows of one test run side
by side to keep the suite within the CI budget."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from desktop_agent.testing.scripted_server import Reply, tool_reply
from tests.faults.rig import PLAN, Outcome, Scenario, assert_clean_interrupt, signal_name

pytestmark = pytest.mark.integration

PLAN_FREE = Reply(text="<no_tool>")
PLAN_FREE_ANSWER = Reply(text="Hi.")
FORM = {"title": "Trip", "questions": [{"id": "city", "question": "Which city?", "type": "text"}]}
STATES = ("planning", "approval", "executing", "form")


def _scenario(tmp: Path, state: str, sig: int, n: int) -> tuple[Scenario, str, bool]:
    """The scenario, the event that marks the state, whether stdin stays open."""
    name = f"{signal_name(sig)}-{state}"
    marker = f"sleep 47.{sig:02d}{n}"
    if state == "planning":
        # A planning round that streams for seconds; the signal comes mid-stream.
        chunks = ("<voice>Let me think", *(" …" for _ in range(30)), ".</voice><need_tool>")
        slow = Reply(chunks=chunks, delay_s=0.2)
        return Scenario(tmp, name, [slow], "--prompt", "x", marker=marker), "", False
    if state == "approval":
        script = [PLAN, tool_reply("run_command", {"command": f"echo never; {marker}"})]
        return Scenario(tmp, name, script, "--prompt", "x", "--approve", "ask", marker=marker), \
            "tool_call:approval_required", True
    if state == "executing":
        script = [PLAN, tool_reply("run_command", {"command": f"echo partial-line; {marker}"})]
        return Scenario(tmp, name, script, "--prompt", "x", "--approve", "all", marker=marker), \
            "tool_call:executing", False
    script = [PLAN, tool_reply("ask_user_question", FORM)]
    return Scenario(tmp, name, script, "--prompt", "x", marker=marker), "form_request", True


async def _interrupt_at(tmp: Path, state: str, sig: int, n: int) -> tuple[str, Outcome]:
    scenario, event, stdin_open = _scenario(tmp, state, sig, n)

    async def act(s: Scenario) -> None:
        if state == "planning":
            await s.wait_for(requests=1)
            await asyncio.sleep(1.0)  # a few deltas in, the round not over
            assert "round_end" not in {e["type"] for e in s.events()}
        else:
            await s.wait_for(event=event, process=state == "executing")
        s.send(sig)

    return scenario.dir.name, await scenario.run(act, stdin_open=stdin_open)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=signal_name)
async def test_a_stop_signal_at_every_state_interrupts_the_turn_and_exits_zero(tmp_path: Path, sig: int) -> None:
    rows = await asyncio.gather(*(_interrupt_at(tmp_path, state, sig, n) for n, state in enumerate(STATES)))
    for name, outcome in rows:
        assert_clean_interrupt(outcome, name)
    executing = dict(rows)[f"{signal_name(sig)}-executing"]
    assert executing.types()[-3] == "tool_rejected"
    assert executing.events[-3]["partial_result"]["stdout"].startswith("partial-line")
    assert executing.history is not None and "partial-line" in executing.history[-1]["content"]


async def test_sigkill_while_executing_leaves_no_command_running(tmp_path: Path) -> None:
    marker = "sleep 47.919"
    # A background grandchild too: the shell's own death would not reach it.
    command = f"({marker}) & echo started; {marker}"
    scenario = Scenario(tmp_path, "KILL-executing", [PLAN, tool_reply("run_command", {"command": command})],
                        "--prompt", "x", "--approve", "all", marker=marker)

    async def act(s: Scenario) -> None:
        await s.wait_for(event="tool_call:executing", process=True)
        s.send(signal.SIGKILL)

    outcome = await scenario.run(act)
    assert outcome.returncode == -signal.SIGKILL
    assert outcome.left == []


@pytest.mark.parametrize("command", [
    "echo partial-line; sleep 47.931",
    # Ignores SIGTERM: the group is stopped only by the SIGKILL after the grace,
    # so the second signal lands while the interrupt is still stopping it.
    "trap '' TERM; echo partial-line; sleep 47.932",
], ids=["quick-stop", "slow-stop"])
async def test_a_second_sigint_during_the_clean_up_changes_nothing(tmp_path: Path, command: str) -> None:
    marker = command.rsplit("; ", 1)[1]

    async def once(delay_s: float) -> tuple[str, Outcome]:
        scenario = Scenario(tmp_path, f"INT-INT-{delay_s}", [PLAN, tool_reply("run_command", {"command": command})],
                            "--prompt", "x", "--approve", "all", marker=marker)

        async def act(s: Scenario) -> None:
            await s.wait_for(event="tool_call:executing", process=True)
            s.send(signal.SIGINT)
            await asyncio.sleep(delay_s)  # the gap between two real signals to a real process
            if s.proc is not None and s.proc.returncode is None:
                s.send(signal.SIGINT)

        return scenario.dir.name, await scenario.run(act)

    for name, outcome in await asyncio.gather(once(0.2), once(0.4)):
        assert_clean_interrupt(outcome, name)
        assert outcome.types()[-3] == "tool_rejected"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=signal_name)
async def test_a_stop_signal_at_the_prompt_ends_the_session_with_its_history(tmp_path: Path, sig: int) -> None:
    scenario = Scenario(tmp_path, f"{signal_name(sig)}-prompt", [PLAN_FREE, PLAN_FREE_ANSWER], "--approve", "all")

    async def act(s: Scenario) -> None:
        assert s.proc is not None and s.proc.stdin is not None
        s.proc.stdin.write(b"hello\n")
        await s.wait_for(event="turn_end")
        await asyncio.sleep(0.3)  # back at the prompt
        s.send(sig)

    outcome = await scenario.run(act, stdin_open=True)
    assert outcome.returncode == 0, outcome.stderr
    assert "Traceback" not in outcome.stderr and outcome.problem_lines() == []
    assert outcome.types()[-1] == "turn_end"
    assert outcome.history == [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "Hi."}]
