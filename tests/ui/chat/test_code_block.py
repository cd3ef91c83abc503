"""Fenced code in a reply: highlighted by Pygments in the
theme's colours, its language named, a Copy button that copies the code
exactly as written."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.code_block import CodeBlock, highlighted_html, language_of

CODE = 'def greet(name):\n    return f"Hello, {name} <3"  # hi\n'


def colours(html: str) -> set[str]:
    return {c.lower() for c in re.findall(r"color: (#[0-9a-fA-F]{6})", html)}


def test_python_is_highlighted_in_colours_that_differ_between_light_and_dark() -> None:
    light, dark = highlighted_html(CODE, "python", dark=False), highlighted_html(CODE, "python", dark=True)
    assert "white-space: pre-wrap" in light and "&lt;3" in light  # lines kept, the code escaped
    assert len(colours(light)) >= 3 and len(colours(dark)) >= 3
    assert colours(light) != colours(dark)
    assert "background" not in light and "background" not in dark  # the block's own ground shows


def test_an_unknown_or_missing_language_is_shown_as_plain_escaped_text() -> None:
    assert highlighted_html("a < b", "", dark=False) == '<div style="white-space: pre-wrap;">a &lt; b</div>'
    assert highlighted_html("a < b", "no-such-language", dark=False).endswith("a &lt; b</div>")
    assert (language_of("python title=x.py"), language_of("  "), language_of("sh")) == ("python", "", "sh")


def test_copy_puts_the_code_exactly_as_written_on_the_clipboard(qtbot: QtBot) -> None:
    block = CodeBlock(CODE.rstrip("\n"), "python", ENGLISH)
    qtbot.add_widget(block)
    assert (block.language_label.text(), block.copy_button.text()) == ("python", "Copy")
    with qtbot.wait_signal(block.copied, timeout=1000):
        block.copy_button.click()
    assert QApplication.clipboard().text() == CODE.rstrip("\n")
    assert block.copy_button.text() == "Copied"


def test_a_finished_fence_in_a_reply_becomes_a_code_block_with_its_language(qtbot: QtBot) -> None:
    bubble = MessageBubble("assistant", texts=ENGLISH)
    qtbot.add_widget(bubble)
    bubble.append("Here:\n\n```python\nprint('hi')\n```\n\n```\nplain\n```\n")
    bubble.finish()
    blocks = [b for b in bubble.blocks if isinstance(b, CodeBlock)]
    assert [(b.language, b.language_label.text(), b.text()) for b in blocks] == [
        ("python", "python", "print('hi')"), ("", "code", "plain")]


def test_a_switch_to_dark_colours_highlights_the_code_again(qtbot: QtBot, qapp: QApplication) -> None:
    from PySide6.QtGui import QColor, QPalette

    from desktop_agent.ui.shell.main_window import MainWindow

    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    bubble = window.chat.add_assistant_text("```python\nx = 1\n```\n")
    assert bubble is not None
    bubble.finish()
    (block,) = bubble.blocks
    assert isinstance(block, CodeBlock)
    light = block.body.text()
    previous = qapp.palette()
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#1e1f22"))
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#e6e7e9"))
    try:
        qapp.setPalette(palette)  # the window re-applies its style sheet (theme.apply_theme)
        qtbot.wait_until(lambda: block.body.text() != light, timeout=2000)
        assert block.body.text() == highlighted_html("x = 1", "python", dark=True)
    finally:
        qapp.setPalette(previous)
