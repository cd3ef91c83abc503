"""A restored tool card keeps its risk marks and who approved it:
the display log keeps each tool's server and risk hints (``_tool``) and who
auto-approved a call (``by``), and each turn how long an approval waited
(``approval_timeout_s``), so the restored card is the live one even once
the server is gone; events kept before that restore unmarked. With a
screenshot of a destructive card, live beside restored
(tests/artifacts/restore_risk_en.png)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.chat_handler import REASON_TIMEOUT
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.json_types import JSONObject, as_object
from desktop_agent.core.messages import BusMessage, RoundEndMessage, TurnEndMessage, to_json
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.transcript import ToolFacts
from desktop_agent.storage.conversation_events import TOOL_KEY, SavedEvents, facts_from_json, items_of
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply, tool_reply
from desktop_agent.testing.views import NullView
from desktop_agent.testing.window_rig import rejected_item, text_item, tool_item
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.common.theme import LIGHT
from desktop_agent.ui.conversations.restore import restore
from tests.ui.conversations.test_restore import LiveSession, describe, side_by_side

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
DELETE = {"path": "~/Downloads/old-builds"}
TOOLS = {
    "delete_files": ToolFacts("files", ToolAnnotations(destructive=True)),
    "web_search": ToolFacts("web", ToolAnnotations(open_world=True)),
    "list_folder": ToolFacts("files", ToolAnnotations(read_only=True)),
}


def play_risky_turn(live: LiveSession) -> None:
    """A destructive call approved by the user, an open-world one approved,
    and a read-only one answered by the user's trust in its server."""
    live.user("Clean up my old builds and look up what they were")
    show = live.shown
    show.show_text(text_item("Let me look first.", 1))
    show.round_ended(RoundEndMessage(0, "planning"))
    show.tool_event(tool_item("start", "c1", "list_folder"))
    show.auto_approved(tool_item("approval_required", "c1", "list_folder", arguments={"path": "~"}, task_id="t1"),
                       "read_only_setting")
    live_badge = next(w for w in live.chat.items() if isinstance(w, ToolCardWidget)).badge.text()
    assert live_badge == "read-only, allowed by your setting"  # while it runs
    show.tool_event(tool_item("result", "c1", "list_folder", arguments={"path": "~"}, result="old-builds"))
    show.tool_event(tool_item("start", "c2", "web_search"))
    show.approval_needed(tool_item("approval_required", "c2", "web_search", arguments={"q": "builds"},
                                   task_id="t2"))
    live.answer("c2", True)
    show.tool_event(tool_item("executing", "c2", "web_search", arguments={"q": "builds"}))
    show.tool_event(tool_item("result", "c2", "web_search", arguments={"q": "builds"}, result="nothing"))
    show.tool_event(tool_item("start", "c3", "delete_files"))
    show.approval_needed(tool_item("approval_required", "c3", "delete_files", arguments=DELETE, task_id="t3"))
    card = next(w for w in live.chat.items() if isinstance(w, ToolCardWidget) and w.state.tool_call_id == "c3")
    assert card.property("risk") == "destructive"  # red while it waits
    live.answer("c3", True)
    show.tool_event(tool_item("executing", "c3", "delete_files", arguments=DELETE))
    show.tool_event(tool_item("result", "c3", "delete_files", arguments=DELETE, result="deleted 3 folders"))
    show.round_ended(RoundEndMessage(1, "tools"))
    show.show_text(text_item("Done.", 2))
    show.turn_ended(TurnEndMessage())
    live.view.finish()


def risk_of(card: ToolCardWidget) -> dict[str, Any]:
    """What a card shows of its tool's risk and of who approved it, with
    its details open (where a finished card shows its risk line)."""
    card.toggle.setChecked(True)
    s = card.state
    return {"card": s.tool_name, "server": s.server, "annotations": s.annotations, "auto": s.auto_approved,
            "auto_by": s.auto_by, "red": card.property("risk"), "from": card.server.text(),
            "risk": card.risk.text() if card.risk.isVisibleTo(card) else None,
            "risk_kind": card.risk.property("risk"), "title": card.title.text(),
            "approved_by": card.auto_note.text() if card.auto_note.isVisibleTo(card) else None}


def cards(chat: ChatView) -> list[ToolCardWidget]:
    return [w for w in chat.items() if isinstance(w, ToolCardWidget)]


def test_restored_cards_keep_their_risk_marks_and_who_approved_them(qtbot: QtBot) -> None:
    frame, live_chat, restored_chat = side_by_side(qtbot)
    live = LiveSession(live_chat, dict(TOOLS))
    play_risky_turn(live)
    stored = json.loads(json.dumps(live.events))  # what the database gives back
    live.tools.clear()  # the servers are gone since: the restore does not need them
    restore(restored_chat, items_of(stored))

    assert [describe(w) for w in restored_chat.items()] == [describe(w) for w in live_chat.items()]
    shown_live = [risk_of(c) for c in cards(live_chat)]
    assert [risk_of(c) for c in cards(restored_chat)] == shown_live
    assert shown_live == [
        {"card": "list_folder", "server": "files", "annotations": ToolAnnotations(read_only=True), "auto": True,
         "auto_by": "read_only_setting", "red": "", "from": "from files", "risk": None, "risk_kind": "open_world",
         "title": "list_folder", "approved_by": "read-only, allowed by your setting"},
        {"card": "web_search", "server": "web", "annotations": ToolAnnotations(open_world=True), "auto": False,
         "auto_by": None, "red": "", "from": "from web", "risk": "Reaches outside this computer",
         "risk_kind": "open_world", "title": "web_search", "approved_by": None},
        {"card": "delete_files", "server": "files", "annotations": ToolAnnotations(destructive=True),
         "auto": False, "auto_by": None, "red": "", "from": "from files", "risk": "May change or delete data",
         "risk_kind": "destructive", "title": "delete_files", "approved_by": None},
    ]

    # On screen: the destructive card, details open, live (left) and restored (right).
    frame.resize(1500, 700)
    for _ in range(5):
        QApplication.processEvents()
    frame.repaint()
    ARTIFACTS.mkdir(exist_ok=True)
    image = frame.grab().toImage()
    assert image.save(str(ARTIFACTS / "restore_risk_en.png"))
    live_card, back_card = cards(live_chat)[2], cards(restored_chat)[2]
    assert red_share(live_card.risk.grab().toImage()) > 0.02  # the risk line is written in red
    assert abs(red_share(back_card.risk.grab().toImage()) - red_share(live_card.risk.grab().toImage())) < 0.01
    assert commonest_dark(back_card.risk.grab().toImage()) == QColor(LIGHT.reject).name()


def red_share(image: QImage) -> float:
    """The share of pixels close to the theme's red (``reject``)."""
    red = QColor(LIGHT.reject)
    near = total = 0
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            total += 1
            near += abs(c.red() - red.red()) + abs(c.green() - red.green()) + abs(c.blue() - red.blue()) < 60
    return near / max(total, 1)


def commonest_dark(image: QImage) -> str:
    """The commonest colour of the text (leaving the light background out)."""
    counts = Counter(image.pixelColor(x, y).name() for y in range(image.height()) for x in range(image.width())
                     if image.pixelColor(x, y).lightness() < 200)
    return counts.most_common(1)[0][0]


def test_events_kept_before_the_facts_restore_unmarked_and_always_allowed(qtbot: QtBot) -> None:
    live = LiveSession(ChatView(ENGLISH), dict(TOOLS))
    qtbot.add_widget(live.chat)
    play_risky_turn(live)
    old = [strip_facts(e) for e in json.loads(json.dumps(live.events))]
    assert all(TOOL_KEY not in json.dumps(e) and "by" not in e for e in old)
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)

    restore(chat, items_of(old))

    assert [(c.state.server, c.state.annotations, c.state.auto_by) for c in cards(chat)] == [
        (None, None, "always_allow"), (None, None, None), (None, None, None)]
    assert [risk_of(c)["risk"] for c in cards(chat)] == [None, None, None]
    assert [c.server.isVisibleTo(c) for c in cards(chat)] == [False, False, False]


def strip_facts(event: JSONDict) -> JSONDict:
    """An event as it was kept before ``_tool`` and ``by`` were."""
    out = {k: v for k, v in event.items() if k not in (TOOL_KEY, "by")}
    if isinstance(out.get("message"), dict):
        out["message"] = strip_facts(out["message"])
    return out


async def test_a_turn_keeps_each_tools_facts_and_who_auto_approved() -> None:
    llm = ScriptedLLM([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}, text="Checking."),
                       text_reply("Done.")])
    conv = Conversation(AgentClient(llm, ToolRouter([EchoTool()]), system_prompt=None))
    facts = ToolFacts("tools", ToolAnnotations(read_only=True, idempotent=True))

    async with asyncio.timeout(5):
        await conv.run_turn("go", NullView(), auto_approve=lambda _name: "read_only_setting",
                            describe_tool=lambda name: facts if name == "echo" else ToolFacts())

    saved = list(SavedEvents(conv.events))
    tool_events = [e for e in saved if e["type"] == "tool_call"]
    auto = next(e for e in saved if e["type"] == "auto_approved")
    kept: JSONObject = {"server": "tools", "annotations": {"read_only": True, "idempotent": True}}
    assert [e[TOOL_KEY] for e in tool_events] == [kept] * len(tool_events) and tool_events
    assert auto["by"] == "read_only_setting" and as_object(auto["message"])[TOOL_KEY] == kept
    assert saved[0] == {"type": "user", "text": "go", "approval_timeout_s": conv.approval_timeout_s}
    assert facts_from_json(kept) == facts
    assert facts_from_json({"server": 3, "annotations": {"destructive": "yes"}}) == ToolFacts(
        None, ToolAnnotations())


def test_a_restored_approval_that_timed_out_says_how_long_it_waited(qtbot: QtBot) -> None:
    def timed_out(user: JSONDict) -> list[JSONDict]:
        shown: list[BusMessage] = [
            tool_item("start", "c1"), tool_item("approval_required", "c1", arguments=DELETE, task_id="t1"),
            rejected_item(REASON_TIMEOUT, "c1", arguments=DELETE), TurnEndMessage()]
        return [user, *(to_json(m, session_id="s", seq=i) for i, m in enumerate(shown, 1))]

    said: list[str] = []
    for user in ({"type": "user", "text": "go", "approval_timeout_s": 120.0}, {"type": "user", "text": "go"}):
        chat = ChatView(ENGLISH)
        qtbot.add_widget(chat)
        restore(chat, items_of(timed_out(user)))
        (card,) = cards(chat)
        said.append(card.reason.text())
    assert said == ["No answer in 120 s — not run", "No answer in time — not run"]  # kept before it was: unsaid
