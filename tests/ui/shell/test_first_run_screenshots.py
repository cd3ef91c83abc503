"""Screenshots of the first run and chat, in English and Chinese (and
the code block in the dark theme), saved to tests/artifacts/ and checked for
what they must show: the welcome's words, buttons and place; a reply's
highlighted code block with its language and Copy button, Chinese text and
a list, each inside its bubble."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.core.messages import RoundEndMessage, TurnEndMessage
from desktop_agent.testing.window_rig import text_item
from desktop_agent.texts import Language, Texts
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.code_block import CodeBlock
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.theme import DARK, LIGHT, Colors
from desktop_agent.ui.shell.main_window import MainWindow

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CODE = 'def greet(name: str) -> str:\n    """Say hello."""\n    return f"Hello, {name}!"\n\nprint(greet("世界"))'
REPLY = {
    "en": "Here is a small function:\n\n```python\n" + CODE + "\n```\n\nWhat it does:\n\n"
          "- takes a **name**\n- returns a greeting\n- 中文也可以：你好，世界。\n",
    "zh": "这是一个小函数：\n\n```python\n" + CODE + "\n```\n\n它做了什么：\n\n"
          "- 接收一个 **名字**\n- 返回一句问候\n- English works too.\n",
}
WELCOME = {
    "en": ("Hello! I'm your desktop assistant.", "Connect a model",
           ["Take the tour", "What time is it?", "Run `date`", "Ask me something"]),
    "zh": ("你好！我是你的桌面助手。", "连接模型", ["演示", "现在几点？", "运行 `date`", "问我一些问题"]),
}


@pytest.fixture(params=["en", "zh"])
def language(request: pytest.FixtureRequest) -> Language:
    lang: Language = request.param
    return lang


@pytest.fixture
def window(shown_window: MainWindow, language: Language) -> MainWindow:
    """The shown window, speaking ``language``."""
    shown_window.retranslate(Texts(language))
    return shown_window


@pytest.fixture
def dark_palette(qapp: QApplication) -> Iterator[None]:
    previous = qapp.palette()
    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#1e1f22"), (QPalette.ColorRole.WindowText, "#e6e7e9"),
                         (QPalette.ColorRole.Base, "#2a2c30"), (QPalette.ColorRole.Text, "#e6e7e9"),
                         (QPalette.ColorRole.Button, "#2f3136"), (QPalette.ColorRole.ButtonText, "#e6e7e9")):
        palette.setColor(role, QColor(colour))
    qapp.setPalette(palette)
    yield
    qapp.setPalette(previous)


def _save(window: MainWindow, name: str) -> QImage:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for _ in range(5):  # new rows show, measure and lay out over a few passes
        QApplication.processEvents()
    image = window.grab().toImage()
    assert image.save(str(ARTIFACTS / f"{name}.png")), f"could not save {name}.png"
    return image


def _rect(widget: QWidget) -> QRect:
    return QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size())


def _inside(inner: QWidget, outer: QWidget) -> bool:
    return _rect(outer).contains(_rect(inner))


def _unclipped(widget: QWidget) -> bool:
    """Wide and tall enough for its own text."""
    hint = widget.minimumSizeHint()
    return widget.width() >= hint.width() and widget.height() >= hint.height()


def _colour_at(image: QImage, widget: QWidget, dx: int = 3, dy: int = 3) -> str:
    point = _rect(widget).topLeft() + QPoint(dx, dy)
    return image.pixelColor(point).name()


def test_the_welcome_screenshot_shows_what_the_app_is_the_demo_line_and_the_prompts(
    qtbot: QtBot, language: Language, window: MainWindow
) -> None:
    image = _save(window, f"welcome_{language}")

    panel = window.welcome
    assert panel is not None
    title, connect, prompts = WELCOME[language]
    assert (panel.title.text(), panel.connect_button.text(), panel.prompt_texts()) == (title, connect, prompts)
    # A button shows its prompt as words, not as Markdown ("Run date", not "Run `date`").
    assert [b.text() for b in panel.prompts] == [p.replace("`", "") for p in prompts]
    assert panel.demo.isVisible() and panel.demo.text() == window.texts.tr("welcome_demo")
    viewport = window.chat.viewport()
    assert _inside(panel, viewport)
    parts: list[QWidget] = [panel.title, panel.body, panel.demo, panel.connect_button, *panel.prompts]
    assert all(p.isVisible() and _inside(p, panel) and _unclipped(p) for p in parts)
    # Centred in the chat, on the card colour; the Connect button in the accent colour.
    left, right = _rect(panel).left() - _rect(viewport).left(), _rect(viewport).right() - _rect(panel).right()
    assert abs(left - right) <= 2
    assert (_colour_at(image, panel, 20, 10), _colour_at(image, panel.connect_button, 6, 4)) == (
        LIGHT.card, LIGHT.accent)


def _reply(window: MainWindow, language: Language) -> MessageBubble:
    view = TurnView(window.chat)
    window.chat.add_user("写一个打招呼的 Python 函数" if language == "zh" else "Write a Python function that greets")
    view.show_text(text_item(REPLY[language], 1))
    view.round_ended(RoundEndMessage(1, "continuation"))
    view.turn_ended(TurnEndMessage())
    bubble = window.chat.items()[-1]
    assert isinstance(bubble, MessageBubble) and bubble.role == "assistant"
    return bubble


def _check_code_block(window: MainWindow, image: QImage, bubble: MessageBubble, colours: Colors) -> CodeBlock:
    (block,) = [b for b in bubble.blocks if isinstance(b, CodeBlock)]
    assert (block.language_label.text(), block.copy_button.text(), block.text()) == (
        "python", window.texts.tr("code_copy"), CODE)
    assert window.welcome is not None and not window.welcome.isVisible()
    for part in (block, block.language_label, block.copy_button, block.body):
        assert part.isVisible() and _inside(part, bubble) and _unclipped(part), part
    assert block.body.text().count("color: #") >= 5  # highlighted, token by token
    assert _colour_at(image, block) == colours.code
    return block


def test_the_code_block_screenshot_shows_highlighted_code_its_language_and_copy(
    qtbot: QtBot, language: Language, window: MainWindow
) -> None:
    bubble = _reply(window, language)
    window.chat.offer_actions(True)  # what the window does once the turn is over (ChatActions.refresh)
    image = _save(window, f"code_block_{language}")

    _check_code_block(window, image, bubble, LIGHT)
    user = window.chat.last_user_bubble()
    assert user is not None and user.action_row is not None and bubble.action_row is not None
    rows = {"user": user.action_row, "reply": bubble.action_row}
    assert {k: [b.text() for b in (r.copy_button, r.regenerate_button, r.edit_button) if b.isVisible()]
            for k, r in rows.items()} == {
        "user": [window.texts.tr("msg_copy"), window.texts.tr("msg_edit")],
        "reply": [window.texts.tr("msg_copy"), window.texts.tr("msg_regenerate")],
    }
    assert _inside(rows["user"], user) and _inside(rows["reply"], bubble)
    texts = [b.text() for b in bubble.blocks if not isinstance(b, CodeBlock)]
    if language == "zh":
        assert texts == ["这是一个小函数：", "它做了什么：", "- 接收一个 **名字**\n- 返回一句问候\n- English works too."]
    else:
        assert texts == ["Here is a small function:", "What it does:",
                         "- takes a **name**\n- returns a greeting\n- 中文也可以：你好，世界。"]


def test_the_code_block_in_the_dark_theme_keeps_dark_colours(qtbot: QtBot, dark_palette: None, shown_window: MainWindow) -> None:
    window = shown_window
    bubble = _reply(window, "en")
    image = _save(window, "code_block_dark_en")

    block = _check_code_block(window, image, bubble, DARK)
    # Every token colour is light enough to read on the dark ground.
    tokens = [QColor(c) for c in set(re.findall(r"color: (#[0-9a-fA-F]{6})", block.body.text()))]
    assert tokens and min(c.lightness() for c in tokens) > 110
