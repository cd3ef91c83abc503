"""TerminalView with ``--approve voice``: the recorded answer is recognised,
pushed as a ``transcript``, and only a clear yes approves."""

from __future__ import annotations

import asyncio
import io
from typing import cast

import pytest

from desktop_agent.cli import TerminalIO
from desktop_agent.cli.view import TerminalView
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.messages import BusItem, TranscriptMessage
from desktop_agent.core.ports import STTError
from desktop_agent.testing.window_rig import tool_item


class _Answers:
    def __init__(self) -> None:
        self.given: list[tuple[str, bool]] = []
        self.done = asyncio.Event()

    def answer_approval(self, task_id: str, approved: bool, *, by: str = "user") -> bool:
        assert by == "voice"  # the approval audit says a spoken answer decided
        self.given.append((task_id, approved))
        self.done.set()
        return True


async def _approve_by_voice(heard: str | STTError) -> tuple[list[tuple[str, bool]], list[BusItem], list[str]]:
    err = io.StringIO()
    view = TerminalView(TerminalIO(io.StringIO(), err), FormManager(), "voice", io.StringIO(), err)
    answers = _Answers()
    view.conversation = cast(Conversation, answers)
    bus = SessionMessageBus("s1")
    pushed: list[BusItem] = []
    bus.add_listener(pushed.append)
    view.bus = bus

    async def listen() -> TranscriptMessage:
        if isinstance(heard, STTError):
            raise heard
        return TranscriptMessage(heard, True, "fake")

    view.listen = listen
    view.approval_needed(tool_item("approval_required", "c1", "run_command", {"command": "ls"}, task_id="t1"))
    async with asyncio.timeout(5):
        await answers.done.wait()
    return answers.given, pushed, err.getvalue().splitlines()


@pytest.mark.parametrize(
    ("heard", "approved", "verdict"),
    [("Yes, go ahead.", True, "approved by voice"), ("no", False, "rejected by voice"),
     ("maybe later", False, "not a clear yes or no: rejected")],
)
async def test_the_recognised_answer_is_pushed_and_decides(heard: str, approved: bool, verdict: str) -> None:
    given, pushed, lines = await _approve_by_voice(heard)
    assert given == [("t1", approved)]
    assert [item.message for item in pushed] == [TranscriptMessage(heard, True, "fake")]
    assert lines[-2:] == ["[approval] run_command needs your approval: say yes or no",
                          f'[approval] heard "{heard}": {verdict}']


async def test_a_failed_recognition_rejects_in_one_line() -> None:
    given, pushed, lines = await _approve_by_voice(STTError("speech recognition failed: HTTP 503: busy"))
    assert given == [("t1", False)]
    assert pushed == []
    assert lines[-1] == "[approval] rejected: speech recognition failed: HTTP 503: busy"
