"""A saved conversation's versions come back when it is opened: the reply
shows ‹ 2/2 ›, switching is saved at once, and opening it again shows the
version chosen. Screenshots: /work/shots26/small/versions_restored_{en,zh}.png."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.conversation_library import ConversationLibrary
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.storage.conversation_events import SavedEvents, events_from_history, items_of
from desktop_agent.storage.conversation_versions import versions_from, versions_json
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_deps import ConversationKeeper
from desktop_agent.ui.conversations.feature import ConversationsFeature
from desktop_agent.ui.shell.main_window import MainWindow
from tests.ui.conversations.test_sidebar import _settled, _turns

SHOTS = Path("/work/shots26/small")
FIRST = _turns([("what is 2+2?", "Five, I think.")])
SHOWN = _turns([("what is 2+2?", "Four.")])


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    other = _turns([("hello", "Hi.")])
    store.save("other", history_items(other), events_from_history(history_items(other)))
    kept: list[Any] = [{"turn": 0, "current": 1, "tails": [
        {"history": FIRST, "events": events_from_history(history_items(FIRST)), "later": []}, None]}]
    store.save("math", history_items(SHOWN), events_from_history(history_items(SHOWN)), versions=json.dumps(kept))
    yield store
    store.close()


def _window(qtbot: QtBot, store: ConversationStore, texts: Texts) -> MainWindow:
    """The window over ``store``, saving and opening versions as the services do."""
    agent = AgentClient(DemoModel(), ToolRouter([]))

    def open_stored(conversation_id: str) -> Conversation:
        stored = store.load(conversation_id)
        assert stored is not None
        return Conversation(agent, conversation_id=stored.id, history=stored.messages,
                            events=items_of(stored.events), versions=versions_from(stored.versions))

    def save(conversation: Conversation) -> None:
        kept = conversation.versions
        store.save(conversation.conversation_id, conversation.history, SavedEvents(conversation.events),
                   rewound=conversation.rewound, versions=versions_json(kept) if kept.changed else False)
        conversation.saved()
        kept.changed = False

    library = ConversationLibrary(store, open_stored)
    deps = replace(
        offline_deps(), conversation=open_stored("other"),
        keeper=ConversationKeeper(lambda _old: Conversation(agent), save),
        conversations=ConversationsFeature(library, lambda _old, conversation_id: library.open(conversation_id)),
    )
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(deps)
    window.retranslate(texts)
    window.resize(1000, 600)
    window.show()
    qtbot.wait_exposed(window)
    return window


def _reply(window: MainWindow) -> MessageBubble:
    return next(w for w in reversed(window.chat.items()) if isinstance(w, MessageBubble) and w.role == "assistant")


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE])
def test_opened_again_the_reply_offers_its_versions_and_keeps_the_one_chosen(
    qtbot: QtBot, store: ConversationStore, tmp_path: Path, texts: Texts
) -> None:
    window = _window(qtbot, store, texts)
    glue = window.conversations
    assert glue is not None and glue.open("math")
    reply = _reply(window)
    assert reply.text() == "Four." and reply.versions is not None and reply.versions.position() == (2, 2)
    assert not reply.versions.isHidden() and reply.versions.label.text() == "2/2"
    qtbot.waitUntil(lambda: _settled(window), timeout=5000)
    name = f"versions_restored_{texts.language}.png"
    assert window.grab().save(str(tmp_path / name))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / name, SHOTS / name)

    reply.versions.previous.click()
    assert _reply(window).text() == "Five, I think."
    saved = store.load("math")
    assert saved is not None and saved.messages == history_items(FIRST)  # saved at once: the one shown is the history
    assert glue.open("other") and glue.open("math")
    again = _reply(window)
    assert again.text() == "Five, I think." and again.versions is not None and again.versions.position() == (1, 2)
