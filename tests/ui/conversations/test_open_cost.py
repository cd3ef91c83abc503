"""Opening a long saved conversation the way the window does (its
history and packed display log made, then the last turns drawn from that
log) parses only the turns it draws, and makes only the last items of its
history: the cost of opening does not grow with what is above the view."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from benchmarks.bench_conversations import history
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.history_items import AssistantMessage
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.storage.conversation_events import JSON_PACKER, events_from_history
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import StoredHistory
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.conversations.restore import restore
from desktop_agent.ui.shell.main_window import MainWindow
from tests.storage.test_stored_log import CountingLoads
from tests.ui.chat.test_message_actions import offered


def test_opening_a_2000_message_conversation_parses_only_the_turns_it_draws(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = history(2000)
    saved = events_from_history(h)
    store = ConversationStore(tmp_path / "c.sqlite3")
    store.save("long", h, saved)
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(860, 640)
    chat.show()
    qtbot.wait_exposed(chat)
    loads = CountingLoads(monkeypatch)

    stored = store.load("long")
    assert stored is not None
    log = JSON_PACKER.packed_log(stored.events)
    drawn = restore(chat, log.copy())

    turns = len(drawn.turn_widgets)
    bubbles = [w for w in chat.items() if isinstance(w, MessageBubble)]
    assert 4 <= turns < 40 and bubbles[-1].text() == saved[-3]["text"]
    assert len(log) == len(saved) > 4000
    assert loads.events <= 7 * turns  # the drawn turns' events (at most 7 a turn), not all 4,250
    store.close()


def test_the_window_opening_a_2000_message_conversation_makes_only_the_last_items_of_its_history(
    qtbot: QtBot, tmp_path: Path
) -> None:
    h = history(2000)
    store = ConversationStore(tmp_path / "c.sqlite3")
    store.save("long", h, events_from_history(h))
    stored = store.load("long")
    assert stored is not None and isinstance(stored.messages, StoredHistory)
    conversation = Conversation(  # as the services resume one
        AgentClient(DemoModel(), ToolRouter([])), conversation_id="long", history=stored.messages,
        events=JSON_PACKER.packed_log(stored.events), packer=JSON_PACKER)
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(replace(offline_deps(), conversation=conversation))
    window.resize(1100, 720)
    window.show()
    qtbot.wait_exposed(window)

    replies = [w for w in window.chat.items() if isinstance(w, MessageBubble) and w.role == "assistant"]
    last = h[-1]
    assert isinstance(last, AssistantMessage) and replies[-1].text() == last.content
    assert ENGLISH.tr("msg_regenerate") in offered(replies[-1])  # the last user message was read
    assert stored.messages.made <= 3  # before: all 2,000 made as it opened
    store.save("long", conversation.history_view(), [])  # a save with nothing new makes none
    assert stored.messages.made <= 3
    assert conversation.history == h and stored.messages.made == 2000  # the first send makes the rest
    store.close()
