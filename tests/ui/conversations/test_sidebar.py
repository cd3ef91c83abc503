"""The conversations sidebar: every conversation newest first,
Ctrl+B, switching (refused while a turn runs), search across conversations
in English and Chinese, delete with undo, rename, export and import.
Screenshots: tests/artifacts/sidebar_search_en.png and _zh.png."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.conversation_library import ConversationLibrary
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.storage.conversation_events import SavedEvents, events_from_history, items_of
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_deps import ConversationKeeper
from desktop_agent.ui.common.theme import LIGHT
from desktop_agent.ui.conversations.feature import ConversationsFeature
from desktop_agent.ui.conversations.sidebar import ConversationSidebar
from desktop_agent.ui.shell.main_window import MainWindow

HIT = f'<b style="background-color:{LIGHT.hit}">'
"""How a search hit's words are marked: bold on the light theme's hit colour."""

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def _turns(pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for question, answer in pairs:
        out += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return out


def _fill(store: ConversationStore) -> None:
    trip: list[dict[str, Any]] = [{"role": "user", "content": "Plan a weekend in Paris"},
            {"role": "assistant", "content": "Checking the weather.", "tool_calls": [
                {"id": "w1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}]},
            {"role": "tool", "tool_call_id": "w1", "content": "sunny, 24 °C"},
            {"role": "assistant", "content": "Paris will be sunny: pack light."}]
    trip += _turns([(f"Day {i}: what next?", f"Visit museum number {i}.") for i in range(30)])
    store.save("trip", history_items(trip), events_from_history(history_items(trip)))
    zh = _turns([("明天北京的天气怎么样？", "北京明天晴，最高二十五度。"), ("要带伞吗？", "不用带伞。")])
    store.save("zh", history_items(zh), events_from_history(history_items(zh)))
    code = _turns([("Why does my Python script fail?", "The traceback says the file is missing.")])
    store.save("code", history_items(code), events_from_history(history_items(code)))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    _fill(store)
    yield store
    store.close()


def _window(
    qtbot: QtBot, store: ConversationStore, first: str = "code", size: tuple[int, int] = (1100, 720)
) -> MainWindow:
    """The window over ``store``'s conversations, showing ``first``."""
    base = offline_deps()
    agent = AgentClient(DemoModel(), ToolRouter([]))

    def open_stored(conversation_id: str) -> Conversation:
        stored = store.load(conversation_id)
        assert stored is not None
        events = items_of(stored.events)
        return Conversation(agent, conversation_id=stored.id, history=stored.messages, events=events)

    def save(conversation: Conversation) -> None:
        store.save(conversation.conversation_id, conversation.history, SavedEvents(conversation.events),
                   rewound=conversation.rewound)
        conversation.saved()

    library = ConversationLibrary(store, open_stored)
    deps = replace(
        base, conversation=open_stored(first), keeper=ConversationKeeper(lambda _old: Conversation(agent), save),
        conversations=ConversationsFeature(library, lambda _old, conversation_id: library.open(conversation_id)),
    )
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(deps)
    window.resize(*size)
    window.show()
    qtbot.wait_exposed(window)
    return window


def _sidebar(window: MainWindow) -> ConversationSidebar:
    assert window.conversations is not None
    return window.conversations.sidebar


def test_every_conversation_is_listed_newest_first_and_ctrl_b_hides_the_list(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    sidebar = _sidebar(window)
    assert [(i, t) for i, t, _s in sidebar.items()] == [
        ("code", "Why does my Python script fail?"), ("zh", "明天北京的天气怎么样？"), ("trip", "Plan a weekend in Paris")]
    assert sidebar.list.item(0).font().bold()  # the one on screen
    long = _turns([("Question_about_a_very_long_file_name_without_any_space_in_it_at_all.txt", "ok")])
    store.save("long", history_items(long), events_from_history(history_items(long)))
    sidebar.refresh()
    QApplication.processEvents()
    assert not sidebar.list.horizontalScrollBar().isVisible()  # a long title never makes a sideways bar
    store.delete("long")
    sidebar.refresh()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)  # a sync test: no qasync loop to spin
    # One ＋ in sight: the sidebar's, or the one beside the input while the sidebar is hidden.
    assert sidebar.new_button.isVisible() and not window.new_chat_button.isVisible()
    QTest.keyClick(window.input, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert not sidebar.isVisible() and window.new_chat_button.isVisible()
    QTest.keyClick(window.input, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert sidebar.isVisible() and not window.new_chat_button.isVisible()


def test_opening_one_restores_it_and_a_new_one_leaves_the_old_reachable(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    assert window.conversations is not None and window.conversations.open("trip")
    assert window.controller is not None and window.controller.conversation.conversation_id == "trip"
    texts = [w.text() for w in window.chat.items() if hasattr(w, "text")]
    assert texts[0] != "Day 0: what next?" and texts[0].startswith("Day ")  # a long one: its recent part
    assert texts[-2:] == ["Visit museum number 29.", "Earlier conversation restored"]
    assert window.conversations.open("trip", 0, "")  # its first message (a search hit there)
    cards = [w for w in window.chat.items() if isinstance(w, ToolCardWidget)]
    assert [(c.state.tool_name, c.state.phase, c.state.result) for c in cards] == [("weather", "done", "sunny, 24 °C")]
    assert window.new_conversation()
    assert [w for w in window.chat.items() if isinstance(w, MessageBubble)] == []
    assert {i for i, _t, _s in _sidebar(window).items()} == {"trip", "zh", "code"}
    assert window.conversations.open("zh")
    texts = [w.text() for w in window.chat.items() if isinstance(w, MessageBubble)]
    assert texts == ["明天北京的天气怎么样？", "北京明天晴，最高二十五度。", "要带伞吗？", "不用带伞。"]


async def test_switching_is_refused_while_a_turn_runs_and_says_so(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    assert window.send_text("hello")
    assert window.conversations is not None and not window.conversations.open("zh")
    assert window.controller is not None and window.controller.conversation.conversation_id == "code"
    said = [w.text() for w in window.chat.items() if hasattr(w, "text")]
    assert ENGLISH.tr("conv_busy") in said
    async with asyncio.timeout(20):
        while window.controller.busy:
            await asyncio.sleep(0.02)
    busy_line = {"system": ENGLISH.tr("conv_busy")}  # about the window, not the conversation: not kept
    live = [d for d in _after_user(window, "hello") if d != busy_line]
    assert window.conversations.open("zh")
    saved = store.load("code")
    assert saved is not None and [e["type"] for e in saved.events].count("user") == 2  # the turn was kept
    assert window.conversations.open("code")  # and it comes back as it was shown live
    assert _after_user(window, "hello")[:-1] == live and live


def _after_user(window: MainWindow, text: str) -> list[Any]:
    from tests.ui.conversations.test_restore import describe

    items = window.chat.items()
    start = next(i for i, w in enumerate(items) if isinstance(w, MessageBubble) and w.text() == text)
    return [describe(w) for w in items[start:]]


def _settled(window: MainWindow) -> bool:
    """Every drawn message has measured its height (slots settle over a few layout passes)."""
    slots = [w.parentWidget() or w for w in window.chat.items()]
    return all(s.height() > 0 for s in slots) and all(
        a.geometry().bottom() < b.geometry().top() for a, b in itertools.pairwise(slots))


def _search(qtbot: QtBot, window: MainWindow, query: str) -> list[tuple[str, str, int]]:
    sidebar = _sidebar(window)
    sidebar.search.setText(query)
    sidebar.refresh()
    items: list[tuple[str, str, int]] = sidebar.items()
    return items


def test_search_shows_the_matching_messages_and_opening_one_scrolls_to_it(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    hits = _search(qtbot, window, "museum number 20")
    assert [(i, s) for i, _t, s in hits] == [("trip", 45)]
    assert hits[0][1] == "Plan a weekend in Paris\nVisit museum number 20."
    assert _sidebar(window).heading.text() == "1 matching message"
    paris = _search(qtbot, window, "paris")
    assert [(i, s) for i, _t, s in paris] == [("trip", 0), ("trip", 3)]
    assert window.conversations is not None and window.conversations.open("trip", 3, "paris")
    rows = _sidebar(window).list
    words = [rows.itemWidget(rows.item(i)).words.text() for i in range(rows.count())]  # type: ignore[attr-defined]
    assert words == [f"Plan a weekend in {HIT}Paris</b>", f"{HIT}Paris</b> will be sunny: pack light."]
    qtbot.waitUntil(lambda: _settled(window), timeout=5000)
    ARTIFACTS.mkdir(exist_ok=True)
    window.grab().save(str(ARTIFACTS / "sidebar_search_en.png"))
    shown = [w for w in window.chat.items() if isinstance(w, MessageBubble | ToolCardWidget)]
    assert isinstance(shown[2], ToolCardWidget) and shown[2].state.phase == "done"  # the weather card
    _search(qtbot, window, "museum number 20")
    _sidebar(window).list.itemClicked.emit(_sidebar(window).list.item(0))
    target = next(w for w in window.chat.items() if isinstance(w, MessageBubble) and w.text() == "Visit museum number 20.")
    bar = window.chat.verticalScrollBar()

    def in_view() -> bool:
        top = target.mapTo(window.chat.viewport(), target.rect().topLeft()).y()
        return _settled(window) and bar.maximum() > 0 and 0 <= top < window.chat.viewport().height()

    qtbot.waitUntil(in_view, timeout=5000)  # a sync test: the drawn messages settle their heights
    assert bar.value() < bar.maximum()  # at the hit, not at the bottom


def test_chinese_search_and_its_screenshot(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    window.retranslate(CHINESE)
    hits = _search(qtbot, window, "北京")  # two characters: below the trigram, LIKE finds it
    assert [(i, s) for i, _t, s in hits] == [("zh", 0), ("zh", 1)]
    assert _sidebar(window).heading.text() == "2 条匹配的消息"
    assert [(i, s) for i, _t, s in _search(qtbot, window, "最高二十五")] == [("zh", 1)]
    hits = _search(qtbot, window, "天气")
    assert [(i, s) for i, _t, s in hits] == [("zh", 0)]
    assert _sidebar(window).heading.text() == "1 条匹配的消息"
    assert _sidebar(window).import_button.text() == "导入…"
    assert window.conversations is not None and window.conversations.open("zh", 0, "天气")
    texts = [w.text() for w in window.chat.items() if isinstance(w, MessageBubble)]
    assert texts[0] == "明天北京的天气怎么样？"
    qtbot.waitUntil(lambda: _settled(window), timeout=5000)
    window.grab().save(str(ARTIFACTS / "sidebar_search_zh.png"))


def test_delete_with_undo_rename_export_and_import(qtbot: QtBot, store: ConversationStore, tmp_path: Path) -> None:
    window = _window(qtbot, store)
    sidebar = _sidebar(window)
    sidebar.delete("zh")
    assert [i for i, _t, _s in sidebar.items()] == ["code", "trip"]
    assert sidebar.undo_bar.isVisible() and sidebar.undo_label.text() == "Deleted “明天北京的天气怎么样？”"
    QTest.mouseClick(sidebar.undo_button, Qt.MouseButton.LeftButton)
    assert [i for i, _t, _s in sidebar.items()] == ["code", "zh", "trip"] and not sidebar.undo_bar.isVisible()
    assert sidebar.rename("trip", "Paris trip") and not sidebar.rename("trip", "  ")
    assert ("trip", "Paris trip", -1) in sidebar.items()
    assert sidebar.export_to("trip", tmp_path / "t.md", "markdown")
    assert (tmp_path / "t.md").read_text(encoding="utf-8").startswith("# Paris trip\n\n## User\n\nPlan a weekend in Paris")
    assert sidebar.export_to("trip", tmp_path / "t.json", "json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert len(data["messages"]) == 64 and data["events"][0] == {"type": "user", "text": "Plan a weekend in Paris"}
    assert sidebar.import_file(tmp_path / "t.json") is None  # it is here already: nothing added
    assert window.controller is not None and window.controller.conversation.conversation_id == "trip"  # opened
    assert sidebar.heading.text() == "t.json is already imported as “Paris trip”: opened it, nothing was added"
    assert [t for _i, t, _s in sidebar.items()].count("Paris trip") == 1
    assert sidebar.copy_button.isVisibleTo(sidebar) and sidebar.copy_button.text() == "Import as a copy"
    sidebar.copy_button.click()  # asked for: a copy
    new_id = window.controller.conversation.conversation_id
    assert new_id != "trip" and not sidebar.copy_button.isVisibleTo(sidebar)
    assert [t for i, t, _s in sidebar.items() if i == new_id] == ["Paris trip"]
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    assert sidebar.import_file(tmp_path / "bad.json") is None
    assert sidebar.heading.text() == "Could not import bad.json: it holds no message list"
    sidebar.delete(new_id)  # the one on screen: a new conversation takes its place
    assert window.controller.conversation.conversation_id != new_id
    assert [i for i, _t, _s in sidebar.items()] == ["code", "zh", "trip"]  # opening one does not reorder
    assert [w for w in window.chat.items() if isinstance(w, MessageBubble)] == []


def test_a_failed_export_or_import_says_why_in_the_ui_language(
    qtbot: QtBot, store: ConversationStore, tmp_path: Path
) -> None:
    window = _window(qtbot, store)
    window.retranslate(CHINESE)
    sidebar = _sidebar(window)
    folder = tmp_path / "already-a-folder.md"
    folder.mkdir()
    assert not sidebar.export_to("trip", folder, "markdown")
    assert sidebar.heading.text() == "无法保存 already-a-folder.md：这是一个文件夹"  # not "[Errno 21] Is a directory"
    assert sidebar.import_file(tmp_path / "missing.json") is None
    assert "文件无法读取（文件或文件夹不存在）" in sidebar.heading.text()


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_importing_a_conversation_that_is_here_says_so_in_the_ui_language(
    qtbot: QtBot, store: ConversationStore, tmp_path: Path, texts: Any
) -> None:
    import shutil

    window = _window(qtbot, store, size=(1000, 640))
    window.retranslate(texts)
    sidebar = _sidebar(window)
    assert sidebar.export_to("trip", tmp_path / "trip.json", "json")
    before = [i for i, _t, _s in sidebar.items()]
    assert sidebar.import_file(tmp_path / "trip.json") is None
    assert [i for i, _t, _s in sidebar.items()] == before  # nothing duplicated
    assert sidebar.heading.text() == texts.tr("conv_import_already", name="trip.json", title="Plan a weekend in Paris")
    assert sidebar.copy_button.isVisibleTo(sidebar) and sidebar.copy_button.text() == texts.tr("conv_import_copy")
    if texts is CHINESE:
        assert sidebar.heading.text() == "trip.json 已导入为“Plan a weekend in Paris”：已打开它，未重复添加"
    window.show()
    qtbot.wait_exposed(window)
    for _ in range(5):
        QApplication.processEvents()
    shot = tmp_path / f"conversation_already_imported_{texts.language}.png"
    assert window.grab().save(str(shot))
    (Path("/work/shots26/polish")).mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, Path("/work/shots26/polish") / shot.name)


def test_a_search_hit_is_marked_by_colour_as_well_as_weight() -> None:
    """Light Chinese on the dark window reads heavy, so bold alone would not
    show the hit: it sits on the theme's hit colour in both themes."""
    from desktop_agent.ui.common.theme import DARK
    from desktop_agent.ui.conversations.search_rows import marked

    assert marked("明天北京的天气", [(2, 4)], DARK.hit) == f'明天<b style="background-color:{DARK.hit}">北京</b>的天气'
    assert marked("a < b", [(4, 5)], LIGHT.hit) == f"a &lt; {HIT}b</b>"
