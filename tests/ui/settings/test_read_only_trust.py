"""Trusting a server's read-only tools, end to end in the
window's own path: the controller's auto-approval asks core's rule, the
call runs without asking but still gets its card (marked "read-only,
allowed by your setting") and its audit record; a tool of the same server
that is not read-only, or any tool of an untrusted server, still asks.
And the per-server checkbox that edits the setting."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from pytestqt.qtbot import QtBot

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.services.tool_facts import RoutedToolFacts
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.audit_sink import RecordingAuditSink
from desktop_agent.testing.fake_tools import FakeServerSource
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.turn_controller import TurnController
from desktop_agent.ui.chat.turn_logic import TurnLogic
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.settings.read_only_trust import ReadOnlyTrustBox
from desktop_agent.ui.shell.window_deps import WindowDeps

PLAN = text_reply("Let me look.<need_tool>")
NOTES = {"read_note": ToolAnnotations(read_only=True), "delete_note": ToolAnnotations(destructive=True)}


@dataclass
class Rig:
    controller: TurnLogic[TurnView]
    chat: ChatView
    audit: RecordingAuditSink
    source: FakeServerSource
    views: list[TurnView]

    def send(self, text: str) -> TurnView:
        def open_view(_text: str) -> TurnView:
            view = TurnView(
                self.chat,
                on_answer=self.controller.answer_approval,
                server_of=self.controller.deps.tool_facts.server,
                annotations_of=self.controller.deps.tool_facts.annotations,
            )
            self.views.append(view)
            return view

        assert self.controller.start_turn(text, open_view)
        return self.views[-1]

    async def until(self, done: Callable[[], bool]) -> None:
        async with asyncio.timeout(10):
            while not done():
                await asyncio.sleep(0.01)


@asynccontextmanager
async def trust_rig(qtbot: QtBot, script: list[Reply], trusted: tuple[str, ...]) -> AsyncIterator[Rig]:
    source = FakeServerSource("notes", NOTES)
    router = ToolRouter([], [source])
    audit = RecordingAuditSink()
    conversation = Conversation(
        AgentClient(ScriptedLLM(script), router, system_prompt=None),
        approvals=ApprovalManager(audit=audit),
    )
    store = SettingsStore()
    settings = Settings(trusted_read_only_servers=trusted)
    store.save(settings)

    deps = WindowDeps(
        conversation, FormManager(), store, settings, model_name="scripted",
        tool_facts=RoutedToolFacts(router, lambda: None),
    )
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    controller = TurnController[TurnView](deps, texts=lambda: ENGLISH).logic
    try:
        yield Rig(controller, chat, audit, source, [])
    finally:
        await controller.shutdown(timeout_s=2)


async def test_a_trusted_servers_read_only_call_runs_without_asking_but_is_carded_and_audited(qtbot: QtBot) -> None:
    script = [PLAN, tool_reply("read_note", {"text": "todo"}), text_reply("It says todo.")]
    async with trust_rig(qtbot, script, trusted=("notes",)) as rig:
        view = rig.send("read my todo note")
        await rig.until(lambda: rig.controller.view is None and rig.controller.turn_task is None)

        (card,) = view.cards.values()
        assert (card.state.tool_name, card.state.server, card.state.phase) == ("read_note", "notes", "done")
        assert (card.state.auto_approved, card.state.auto_by) == (True, "read_only_setting")
        assert rig.source.calls == [("read_note", {"text": "todo"})]
        assert rig.audit.decisions() == [("read_note", "approved", "read_only_setting")]
        assert rig.audit.records[0].hints == ("read_only",)


async def test_while_running_the_card_says_why_it_was_not_asked(qtbot: QtBot) -> None:
    script = [PLAN, tool_reply("read_note", {"text": "todo"}), text_reply("It says todo.")]
    async with trust_rig(qtbot, script, trusted=("notes",)) as rig:
        rig.source.release = asyncio.Event()  # the call runs until released
        view = rig.send("read it")
        await rig.until(lambda: bool(rig.source.calls))
        (card,) = view.cards.values()
        assert (card.state.phase, card.badge.text()) == ("executing", "read-only, allowed by your setting")
        assert not card.approval_row.isVisibleTo(card)
        rig.source.release.set()
        await rig.until(lambda: rig.controller.turn_task is None)
        assert card.state.phase == "done"


async def test_a_destructive_tool_of_a_trusted_server_still_asks(qtbot: QtBot) -> None:
    script = [PLAN, tool_reply("delete_note", {"text": "todo"}), text_reply("Deleted.")]
    async with trust_rig(qtbot, script, trusted=("notes",)) as rig:
        view = rig.send("delete my todo note")
        await rig.until(lambda: any(c.state.phase == "approval" for c in view.cards.values()))
        (card,) = view.cards.values()
        assert card.property("risk") == "destructive" and not card.state.auto_approved
        card.approve_button.click()
        await rig.until(lambda: rig.controller.turn_task is None)
        assert rig.audit.decisions() == [("delete_note", "approved", "user")]


async def test_an_untrusted_servers_read_only_tool_asks(qtbot: QtBot) -> None:
    script = [PLAN, tool_reply("read_note", {"text": "todo"}), text_reply("It says todo.")]
    async with trust_rig(qtbot, script, trusted=()) as rig:
        view = rig.send("read my todo note")
        await rig.until(lambda: any(c.state.phase == "approval" for c in view.cards.values()))
        (card,) = view.cards.values()
        card.reject_button.click()
        await rig.until(lambda: rig.controller.turn_task is None)
        assert rig.source.calls == []
        assert rig.audit.decisions() == [("read_note", "rejected", "user")]


def test_the_trust_box_is_off_by_default_and_says_which_servers_are_trusted(qtbot: QtBot) -> None:
    box = ReadOnlyTrustBox(ENGLISH, ["notes", "web"], trusted=["web"])
    qtbot.add_widget(box)
    changes: list[list[str]] = []
    box.changed.connect(changes.append)

    assert {name: b.isChecked() for name, b in box.boxes.items()} == {"notes": False, "web": True}
    assert box.boxes["notes"].text() == "Allow read-only tools from notes without asking"
    box.boxes["notes"].setChecked(True)
    box.boxes["web"].setChecked(False)

    assert changes == [["notes", "web"], ["notes"]]
    settings = Settings()
    for server in box.trusted():
        settings = settings.with_read_only_trust(server, True)
    assert settings.trusted_read_only_servers == ("notes",)
    assert settings.with_read_only_trust("notes", False).trusted_read_only_servers == ()
    assert Settings.from_json(settings.to_json()) == settings  # saved and read back
    box.set_servers([], [])
    assert (box.boxes, box.empty.isVisibleTo(box)) == ({}, True)
