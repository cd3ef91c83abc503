"""A new conversation is listed in the sidebar as soon as its first
message is sent, titled from that message, not only once the reply has
come and the turn was saved. Screenshots: /work/shots26/small/new_chat_{en,zh}.png."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.shell.main_window import MainWindow
from tests.ui.conversations.test_sidebar import _fill, _sidebar
from tests.ui.conversations.test_sidebar import _window as sidebar_window

SHOTS = Path("/work/shots26/small")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    _fill(store)
    yield store
    store.close()


async def _until(condition: Callable[[], bool], timeout_s: float = 20) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _shot(window: MainWindow, tmp_path: Path, name: str) -> None:
    # Only the pending layout requests (the message just added, the button's
    # new width), not the event loop: the turn must still be running.
    # (The message's bubble measures itself on later passes: the chat column is still empty here.)
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    path = tmp_path / name
    assert window.grab().save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)


@pytest.mark.parametrize(("texts", "message"), [
    (ENGLISH, "Plan a trip to **Kyoto** in spring\nwith a day in Nara"),
    (CHINESE, "帮我规划春天去**京都**的旅行\n顺便去奈良一天"),
])
async def test_a_new_chat_is_listed_titled_as_soon_as_its_first_message_is_sent(
    qtbot: QtBot, store: ConversationStore, tmp_path: Path, texts: Texts, message: str
) -> None:
    window = sidebar_window(qtbot, store)
    window.retranslate(texts)
    assert window.new_conversation() and window.controller is not None
    new_id = window.controller.conversation.conversation_id
    sidebar = _sidebar(window)
    assert new_id not in [i for i, _t, _s in sidebar.items()]

    assert window.send_text(message)

    title = message.splitlines()[0].replace("**", "")
    assert window.controller.busy  # the reply has not come yet
    rows = sidebar.items()
    assert rows[0] == (new_id, title, -1) and len(rows) == 4
    assert sidebar.list.item(0).font().bold()  # the one on screen
    _shot(window, tmp_path, f"new_chat_{'zh' if texts is CHINESE else 'en'}.png")
    assert window.controller.busy and sidebar.items()[0] == (new_id, title, -1)
    await _until(lambda: not window.controller.busy if window.controller else False)
    await _until(lambda: store.exists(new_id))
    rows = sidebar.items()
    assert rows[0] == (new_id, title, -1) and [i for i, _t, _s in rows].count(new_id) == 1


async def test_a_message_that_was_not_sent_leaves_no_row(qtbot: QtBot, store: ConversationStore) -> None:
    window = sidebar_window(qtbot, store)
    assert window.new_conversation() and window.controller is not None
    new_id = window.controller.conversation.conversation_id
    sidebar = _sidebar(window)
    assert not window.send_text("   ")
    assert new_id not in [i for i, _t, _s in sidebar.items()]
