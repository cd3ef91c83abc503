"""The chat column has a comfortable maximum width: at 1920 px its
messages sit in a centred column of at most COLUMN_MAX_WIDTH px; at 800 px
they use the view's whole width. Screenshots at both widths in both
languages (the test's folder and /work/shots26/perf/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import COLUMN_MAX_WIDTH, ChatView
from desktop_agent.ui.shell.main_window import MainWindow

SHOTS = Path("/work/shots26/perf")
EXCHANGE = {
    "en": ("What should I pack for a week of hiking in the Alps in September?",
           "For a week in the Alps in September, plan for cold mornings and warm afternoons. "
           "Pack layers: a merino base layer, a light fleece, a down jacket and a waterproof shell. "
           "Bring broken-in boots, two pairs of wool socks a day, a hat, gloves and sunglasses, "
           "a 30-litre pack, a headlamp, a map of the huts and enough cash: many huts take no cards."),
    "zh": ("九月去阿尔卑斯山徒步一周，应该带些什么？",
           "九月的阿尔卑斯山早晚很冷，中午却可能很暖和，所以要分层穿衣：美利奴羊毛打底、轻薄抓绒、羽绒服和防水外套。"
           "再带上穿惯了的登山鞋、每天两双羊毛袜、帽子、手套和太阳镜，一个三十升的背包、头灯、"
           "标有山屋的地图，以及足够的现金：很多山屋不能刷卡。"),
}


def _window(qtbot: QtBot, texts: Texts, size: tuple[int, int]) -> MainWindow:
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(*size)
    window.show()
    qtbot.wait_exposed(window)
    question, answer = EXCHANGE[texts.language]
    for _ in range(2):
        window.chat.add_user(question)
        window.chat.add_assistant_text(answer)
        window.chat.end_bubble()
    qtbot.waitUntil(lambda: _settled(window.chat), timeout=5000)
    return window


def _settled(chat: ChatView) -> bool:
    """Every message placed in its slot, the slots as wide as the column."""
    content = chat.widget()
    layout = content.layout() if content is not None else None
    assert content is not None and layout is not None
    margins = layout.contentsMargins()
    column = content.width() - margins.left() - margins.right()
    slots = [w.parentWidget() or w for w in chat.items()]
    return all(s.height() > 0 and s.width() == column for s in slots) and all(
        w.width() != 640 for w in chat.items())  # 640: a widget not placed yet


def _span(chat: ChatView, widget: QWidget) -> tuple[int, int]:
    """Left and right edges of ``widget`` in the chat's viewport."""
    left = widget.mapTo(chat.viewport(), QPoint(0, 0)).x()
    return left, left + widget.width()


def _shoot(window: MainWindow, tmp_path: Path, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{name}.png"
    assert window.grab().save(str(path))
    shutil.copy(path, SHOTS / path.name)


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_at_1920_px_the_messages_sit_in_a_centred_column_of_comfortable_width(
    qtbot: QtBot, texts: Texts, tmp_path: Path
) -> None:
    window = _window(qtbot, texts, (1920, 1200))
    chat = window.chat
    view = chat.viewport().width()
    assert view > COLUMN_MAX_WIDTH + 400
    bubbles = [w for w in chat.items() if isinstance(w, MessageBubble)]
    reply = next(b for b in bubbles if b.role == "assistant")
    user = next(b for b in bubbles if b.role == "user")
    left, right = _span(chat, reply)
    assert 800 <= right - left <= COLUMN_MAX_WIDTH  # a long reply fills the column, no wider
    assert abs(left - (view - right)) <= 2  # centred
    assert _span(chat, user)[1] == right  # the user's message ends where the column does
    _shoot(window, tmp_path, f"column_1920_{texts.language}")


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_at_800_px_the_messages_use_the_whole_width(qtbot: QtBot, texts: Texts, tmp_path: Path) -> None:
    window = _window(qtbot, texts, (800, 600))
    chat = window.chat
    view = chat.viewport().width()
    reply = next(w for w in chat.items() if isinstance(w, MessageBubble) and w.role == "assistant")
    left, right = _span(chat, reply)
    assert left <= 14 and right >= view - 14  # the view's margins only
    _shoot(window, tmp_path, f"column_800_{texts.language}")
