"""The real window over a real conversation: OpenAIProvider → scripted LLM
server, real built-in tools, on a qasync loop (what ``run_gui`` runs).
The tests click the window's own buttons and wait on its signals."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QRadioButton

from desktop_agent.core.history import check_history
from desktop_agent.core.versions import Versions
from desktop_agent.storage.history_json import history_json
from desktop_agent.storage.settings import SettingsStore
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_server import Reply, ToolCallScript, text_reply, tool_reply
from desktop_agent.testing.window_rig import WindowRig, run_on_qasync, scripted_window
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.cards.form_widget import FormWidget
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.chat.turn_view import TurnView

pytestmark = pytest.mark.integration

PLAN = text_reply("Let me check.\n<need_tool>")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def run(main: Callable[[], Awaitable[None]]) -> None:
    run_on_qasync(main, timeout=60)


def view(rig: WindowRig) -> TurnView:
    """The running turn's view."""
    current = rig.window.view
    assert current is not None, "no turn is running"
    return current


def phases(rig: WindowRig, tool_call_id: str) -> list[str]:
    return [phase for cid, phase in rig.cards.events if cid == tool_call_id]


def system_lines(rig: WindowRig) -> list[str]:
    return [w.text() for w in rig.window.chat.items() if isinstance(w, SystemMessage)]


def cards(rig: WindowRig) -> list[ToolCardWidget]:
    return [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)]


async def pid_from_fifo(fd: int, timeout: float = 10.0) -> int:
    """The first line written into an already-open FIFO, as a PID."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[int] = loop.create_future()
    buffer = bytearray()

    def readable() -> None:
        buffer.extend(os.read(fd, 64))
        if b"\n" in buffer and not done.done():
            done.set_result(int(buffer.split(b"\n", 1)[0]))

    loop.add_reader(fd, readable)
    try:
        async with asyncio.timeout(timeout):
            return await done
    finally:
        loop.remove_reader(fd)


def test_approving_a_command_runs_it_and_renders_each_state(qapp: QApplication) -> None:
    script = [PLAN, tool_reply("run_command", {"command": "echo hello-window"}), text_reply("It printed it.")]

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.input.setPlainText("say hello")
            rig.window.send_button.click()
            kind, call_id = await rig.waiting.wait_for()
            assert kind == "approval"
            assert rig.window.send_button.phase == "interrupt"
            view(rig).cards[call_id].approve_button.click()
            assert await rig.turns.wait_for() == ("completed",)

            assert phases(rig, call_id) == ["preparing", "approval", "executing", "done"]
            card = cards(rig)[0]
            assert card.state.result is not None and "hello-window" in card.state.result
            kinds = [type(w).__name__ for w in rig.window.chat.items()]
            assert kinds == ["MessageBubble", "MessageBubble", "ToolCardWidget", "MessageBubble"]
            texts = [w.text() for w in rig.window.chat.items() if isinstance(w, MessageBubble)]
            assert texts == ["say hello", "Let me check.", "It printed it."]
            assert rig.window.send_button.phase == "send"  # changed by the awaits above
            assert rig.window.input.toPlainText() == ""
            check_history(rig.conversation.history)
            assert [m["role"] for m in history_json(rig.conversation.history)] == [
                "user", "assistant", "assistant", "tool", "assistant"
            ]

    run(main)


def test_rejecting_shows_session_interrupted_once_and_asks_the_model_nothing_more(qapp: QApplication) -> None:
    script = [PLAN, tool_reply("run_command", {"command": "rm -rf /tmp/nothing-here"}), text_reply("never")]

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.send_text("clean up")
            _, call_id = await rig.waiting.wait_for()
            view(rig).cards[call_id].reject_button.click()
            assert await rig.turns.wait_for() == ("rejected",)

            assert phases(rig, call_id) == ["preparing", "approval", "rejected"]
            assert system_lines(rig) == [ENGLISH.tr("sys_interrupted")]
            assert len(rig.server.requests) == 2  # planning + the round that asked for the tool
            check_history(rig.conversation.history)
            tool_message = history_json(rig.conversation.history)[-1]
            assert tool_message["role"] == "tool" and "rejected" in str(tool_message["content"])
            assert rig.window.send_button.phase == "send"

    run(main)


def test_approval_timeout_rejects_and_says_so(qapp: QApplication) -> None:
    script = [PLAN, tool_reply("run_command", {"command": "echo late"})]

    async def main() -> None:
        async with scripted_window(script, approval_timeout_s=0.2) as rig:
            rig.window.send_text("run it")
            assert await rig.turns.wait_for() == ("approval_timeout",)
            call_id = cards(rig)[0].state.tool_call_id
            assert phases(rig, call_id) == ["preparing", "approval", "rejected"]
            assert system_lines(rig) == [ENGLISH.tr("sys_approval_timeout")]

    run(main)


def test_always_allow_is_saved_used_and_survives_a_new_window(qapp: QApplication) -> None:
    def script(command: str = "echo again") -> list[Reply]:
        return [PLAN, tool_reply("run_command", {"command": command}), text_reply("Done.")]

    async def main() -> None:
        async with scripted_window(script() * 2) as rig:
            rig.window.send_text("first")
            _, call_id = await rig.waiting.wait_for()
            card = view(rig).cards[call_id]
            assert card.always.text() == "Always allow “echo …”"  # the command's rule, not the whole tool
            card.always.setChecked(True)
            card.approve_button.click()  # echo only reads: no second question
            assert await rig.turns.wait_for() == ("completed",)
            assert SettingsStore().load().settings.always_allow == ("builtin/run_command:echo",)

            rig.window.send_text("second")
            assert await rig.turns.wait_for() == ("completed",)
            second = cards(rig)[1]
            assert phases(rig, second.state.tool_call_id) == ["preparing", "executing", "done"]
            assert second.state.auto_approved
            assert len(rig.waiting.events) == 1  # nobody was asked the second time

        chained = script("echo again; rm -f /nonexistent-file-for-this-test")
        async with scripted_window(script() + chained) as rig:  # a new window, same DESKTOP_AGENT_HOME
            assert rig.window.settings.always_allow == ("builtin/run_command:echo",)
            rig.window.send_text("third")
            assert await rig.turns.wait_for() == ("completed",)
            assert rig.waiting.events == []
            assert cards(rig)[0].state.auto_approved

            rig.window.send_text("fourth")  # starts with "echo", but its second part is not covered
            _, call_id = await rig.waiting.wait_for()
            view(rig).cards[call_id].reject_button.click()
            assert await rig.turns.wait_for() == ("rejected",)

            dialog = rig.window.open_settings()
            assert dialog is not None
            assert dialog.allowed.item(0).text() == "run_command: “echo …” commands"
            dialog.allowed.setCurrentRow(0)
            dialog.revoke.click()
            dialog.buttons.accepted.emit()
            assert SettingsStore().load().settings.always_allow == ()
            assert rig.window.settings.always_allow == ()  # type: ignore[comparison-overlap]  # changed by the awaits above

    run(main)


def test_interrupting_a_running_command_kills_it_and_keeps_history_well_formed(
    qapp: QApplication, tmp_path: Path
) -> None:
    fifo = tmp_path / "pid.fifo"
    os.mkfifo(fifo)
    marker = "sleep 47.31"
    command = f"echo $$ > {fifo}; exec {marker}"
    script = [PLAN, tool_reply("run_command", {"command": command}), text_reply("never")]

    async def main() -> None:
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # RDWR: never an EOF while we wait
        try:
            async with scripted_window(script) as rig:
                rig.window.send_text("wait a while")
                _, call_id = await rig.waiting.wait_for()
                view(rig).cards[call_id].approve_button.click()
                pid = await pid_from_fifo(fd)
                assert live_processes(marker) == [pid]

                rig.window.send_button.click()  # Interrupt
                assert rig.window.send_button.phase == "interrupting"
                assert not rig.window.send_button.isEnabled()
                assert await rig.turns.wait_for() == ("user",)

                assert live_processes(marker) == []
                assert rig.window.send_button.phase == "send"  # changed by the awaits above
                assert phases(rig, call_id) == ["preparing", "approval", "executing", "invalidated"]
                assert system_lines(rig) == [ENGLISH.tr("sys_interrupted")]
                check_history(rig.conversation.history)
                assert history_json(rig.conversation.history)[-1]["role"] == "tool"
                assert "interrupted" in str(history_json(rig.conversation.history)[-1]["content"])
                assert len(rig.server.requests) == 2
        finally:
            os.close(fd)

    run(main)


def test_a_ten_second_command_shows_its_output_live_and_its_elapsed_time(qapp: QApplication) -> None:
    command = 'for i in $(seq 1 10); do echo "step $i of 10"; sleep 1; done'
    script = [PLAN, tool_reply("run_command", {"command": command}), text_reply("never")]

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.send_text("count to ten slowly")
            _, call_id = await rig.waiting.wait_for()
            card = view(rig).cards[call_id]
            card.approve_button.click()
            async with asyncio.timeout(20):
                # Output does not move the card's phase; read the card itself.
                while "step 4 of 10" not in card.live_output.toPlainText():
                    await asyncio.sleep(0.05)
            assert card.state.phase == "executing"
            assert card.live_output.toPlainText() == "step 1 of 10\nstep 2 of 10\nstep 3 of 10\nstep 4 of 10"
            card.tick()  # the once-a-second refresh, without waiting for it
            caption = card.progress_caption.text()
            assert card.progress_caption.isVisibleTo(card) and caption.startswith("running · "), caption
            assert int(caption.split("· ")[1].split()[0]) >= 3
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            assert rig.window.grab().save(str(ARTIFACTS / "window_live_command.png"))

            rig.window.send_button.click()  # Interrupt: the rest is not needed
            assert await rig.turns.wait_for() == ("user",)
            assert card.reason.text() == ENGLISH.tr("outcome_stopped")
            assert card.state.output.startswith("step 1 of 10\nstep 2 of 10\nstep 3 of 10\nstep 4 of 10\n")

    run(main)


def test_closing_the_window_during_a_command_stops_it_cleanly(
    qapp: QApplication, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fifo = tmp_path / "pid.fifo"
    os.mkfifo(fifo)
    marker = "sleep 46.83"
    script = [PLAN, tool_reply("run_command", {"command": f"echo $$ > {fifo}; exec {marker}"})]

    async def main() -> None:
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        try:
            async with scripted_window(script) as rig:
                rig.window.send_text("wait")
                _, call_id = await rig.waiting.wait_for()
                view(rig).cards[call_id].approve_button.click()
                await pid_from_fifo(fd)
                rig.window.close()
                await rig.window.shutdown()
                assert rig.window.turn_task is None
                assert live_processes(marker) == []
                assert rig.turns.events == [("user",)]
        finally:
            os.close(fd)

    run(main)
    assert [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")] == []


def test_a_form_answered_in_the_window_becomes_the_tool_result(qapp: QApplication) -> None:
    args = {"question": "Which city?", "options": ["Paris", "Rome"]}
    script = [PLAN, tool_reply("ask_user_question", args), text_reply("Rome it is.")]

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.send_text("plan a trip")
            kind, form_id = await rig.waiting.wait_for()
            assert kind == "form"
            form = view(rig).forms[form_id]
            form.submit_button.click()  # nothing chosen: the required question says so
            # Named as the user sees it, not by its internal id.
            assert form.error.isVisibleTo(form) and form.error.text() == "Please answer “Which city?”"
            rome = [b for b in form.findChildren(QRadioButton) if b.text() == "Rome"]
            rome[0].setChecked(True)
            form.submit_button.click()
            assert await rig.turns.wait_for() == ("completed",)

            assert form.ended == "submitted"
            tool_message = next(m for m in history_json(rig.conversation.history) if m["role"] == "tool")
            assert json.loads(str(tool_message["content"])) == {"answers": {"q1": "Rome"}}
            items = rig.window.chat.items()
            assert isinstance(items[items.index(form) - 1], ToolCardWidget)  # right after its card

    run(main)


def test_a_cancelled_form_tells_the_model_the_user_declined(qapp: QApplication) -> None:
    script = [PLAN, tool_reply("ask_user_question", {"question": "Your name?"}), text_reply("Fine.")]

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.send_text("ask me")
            _, form_id = await rig.waiting.wait_for()
            form = view(rig).forms[form_id]
            assert isinstance(form, FormWidget)
            form.cancel_button.click()
            assert await rig.turns.wait_for() == ("completed",)
            assert form.ended == "cancelled"
            tool_message = next(m for m in history_json(rig.conversation.history) if m["role"] == "tool")
            assert "declined" in str(tool_message["content"])

    run(main)


def test_two_calls_of_one_tool_get_two_cards(qapp: QApplication) -> None:
    two = Reply(tool_calls=(
        ToolCallScript("run_command", json.dumps({"command": "echo one"})),
        ToolCallScript("run_command", json.dumps({"command": "echo two"})),
    ))
    script = [PLAN, two, text_reply("Both ran.")]

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.send_text("run both")
            for _ in range(2):
                _, call_id = await rig.waiting.wait_for()
                view(rig).cards[call_id].approve_button.click()
            assert await rig.turns.wait_for() == ("completed",)

            shown = cards(rig)
            assert len(shown) == 2
            assert shown[0].state.tool_call_id != shown[1].state.tool_call_id
            assert [c.state.phase for c in shown] == ["done", "done"]
            assert ["one" in (shown[0].state.result or ""), "two" in (shown[1].state.result or "")] == [True, True]
            check_history(rig.conversation.history)

    run(main)


class StuckConversation:
    """Acknowledges the interrupt but never delivers ``interrupted``: a
    broken back end, which the 15 s fallback exists for."""

    def __init__(self) -> None:
        self.agent = object()
        self.approval_timeout_s = 300.0
        self.versions = Versions()
        self.history: list[dict[str, object]] = []
        self.events: list[dict[str, object]] = []
        self.interrupts = 0
        self.queue = None  # no playback queue to mute
        self.replying = True  # the model's side never ends
        self.running = asyncio.Event()

    async def run_turn(self, user_text: str, view: object, **_kw: object) -> None:
        self.running.set()
        await asyncio.Event().wait()

    def interrupt(self) -> bool:
        self.interrupts += 1
        return True

    def record(self, event: dict[str, object], *, with_next_turn: bool = False) -> None:
        self.events.append(event)

    def history_view(self) -> list[dict[str, object]]:
        return self.history

    def last_user_text(self) -> str | None:
        return None


def test_the_interrupt_fallback_frees_the_window_when_interrupted_never_comes(qapp: QApplication) -> None:
    from dataclasses import replace
    from typing import cast

    from desktop_agent.core.conversation import Conversation
    from desktop_agent.testing.window_rig import SignalLog, offline_deps
    from desktop_agent.ui.shell.main_window import MainWindow

    async def main() -> None:
        stuck = StuckConversation()
        clock = FakeClock()
        window = MainWindow(tray=False, timers=clock)
        window.attach(replace(offline_deps(), conversation=cast(Conversation, stuck)))
        turns = SignalLog(window.turn_finished)
        try:
            assert window.send_text("hang")
            assert window.send_button.phase == "interrupt"
            async with asyncio.timeout(5):
                await stuck.running.wait()
            window.send_button.click()
            assert (window.send_button.phase, stuck.interrupts) == ("interrupting", 1)
            assert clock.pending == [15.0]  # the default fallback, on the window's clock
            clock.advance(15)
            assert await turns.wait_for(timeout=5) == ("cancelled",)
            assert window.send_button.phase == "send" and window.send_button.isEnabled()  # changed by the awaits above
            assert [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)] == [
                ENGLISH.tr("sys_interrupted")
            ]
            assert window.turn_task is None
        finally:
            window.close()
            await window.shutdown()
            window.deleteLater()

    run(main)


class LostApprovalConversation(StuckConversation):
    """Shows one approval, then reports it as no longer pending (the
    back end lost it, e.g. after a restart: the window must not wait on an
    answer nobody can take)."""

    async def run_turn(self, user_text: str, view: object, **_kw: object) -> None:
        from desktop_agent.testing.window_rig import tool_item
        from desktop_agent.ui.chat.turn_view import TurnView

        assert isinstance(view, TurnView)
        view.tool_event(tool_item("start", "c1"))
        view.approval_needed(tool_item("approval_required", "c1", arguments={"command": "x"}, task_id="t1"))
        await asyncio.Event().wait()

    def answer_approval(self, task_id: str, approved: bool, *, by: str = "user") -> bool:
        return False


def test_an_approval_that_was_lost_invalidates_the_waiting_cards(qapp: QApplication) -> None:
    from dataclasses import replace
    from typing import cast

    from desktop_agent.core.conversation import Conversation
    from desktop_agent.testing.window_rig import SignalLog, offline_deps
    from desktop_agent.ui.shell.main_window import MainWindow

    async def main() -> None:
        window = MainWindow(interrupt_fallback_ms=50, tray=False)
        window.attach(replace(offline_deps(), conversation=cast(Conversation, LostApprovalConversation())))
        waiting = SignalLog(window.waiting_for_user)
        try:
            window.send_text("go")
            await waiting.wait_for(timeout=5)
            assert window.view is not None
            window.view.cards["c1"].approve_button.click()
            assert window.view.cards["c1"].state.phase == "invalidated"
            assert [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)] == [
                ENGLISH.tr("sys_approval_lost")
            ]
        finally:
            window.close()
            await window.shutdown(timeout_s=0.1)
            window.deleteLater()

    run(main)
