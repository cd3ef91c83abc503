"""Opening a long saved conversation the way the window does (its
history and packed display log made, then the last turns drawn from that
log) parses only the turns it draws: the cost of opening does not grow
with what is above the view."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from benchmarks.bench_conversations import history
from desktop_agent.storage.conversation_events import JSON_PACKER, events_from_history
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.conversations.restore import restore
from tests.storage.test_stored_log import CountingLoads


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
