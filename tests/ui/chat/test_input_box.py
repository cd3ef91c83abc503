"""Enter sends, Shift+Enter starts a new line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.input_box import InputBox


def test_enter_submits_and_keeps_the_text(qtbot: QtBot) -> None:
    box = InputBox(ENGLISH)
    qtbot.add_widget(box)
    QTest.keyClicks(box, "hello")
    with qtbot.wait_signal(box.submitted):
        QTest.keyClick(box, Qt.Key.Key_Return)
    assert box.toPlainText() == "hello"


def test_shift_enter_inserts_a_new_line_and_does_not_submit(qtbot: QtBot) -> None:
    box = InputBox(ENGLISH)
    qtbot.add_widget(box)
    QTest.keyClicks(box, "one")
    with qtbot.assert_not_emitted(box.submitted):
        QTest.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    QTest.keyClicks(box, "two")
    assert box.toPlainText() == "one\ntwo"


def test_the_box_grows_with_its_lines_up_to_a_limit(qtbot: QtBot) -> None:
    box = InputBox(ENGLISH)
    qtbot.add_widget(box)
    heights = [box.height()]
    for text in ("a\nb", "a\nb\nc", "\n".join("x" * 12)):
        box.setPlainText(text)
        heights.append(box.height())
    assert heights[0] < heights[1] < heights[2] < heights[3]
    box.setPlainText("\n".join("y" * 30))
    assert box.height() == heights[3]


def test_a_narrow_box_asks_only_for_a_message_and_keeps_the_keys_in_its_tooltip(qtbot: QtBot) -> None:
    """At 800 px the input is about 200 px wide: the whole hint wrapped and
    was cut off mid-word."""
    from desktop_agent.texts import CHINESE

    box = InputBox(CHINESE)
    qtbot.add_widget(box)
    box.resize(200, box.height())
    box.show()
    assert box.placeholderText() == "输入消息" and box.toolTip() == CHINESE.tr("input_placeholder")
    box.resize(600, box.height())
    assert box.placeholderText() == CHINESE.tr("input_placeholder") and box.toolTip() == ""
    box.retranslate(ENGLISH)
    assert box.placeholderText() == "Type a message — Enter sends, Shift+Enter starts a new line"
    box.resize(200, box.height())
    assert box.placeholderText() == "Type a message" and "Shift+Enter" in box.toolTip()
