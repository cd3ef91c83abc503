"""A streaming reply lays out only its growing block; finished blocks are measured once."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat import markdown_label
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.markdown_label import FinishedLabel

REPLY = "".join(
    f"Paragraph {i}: the quick brown fox jumps over the lazy dog, again and again, until the line wraps.\n\n"
    + ("- a point\n- another point\n\n" if i % 3 == 2 else "")
    for i in range(12)
) + "The end."


def _segments(text: str, size: int = 17) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _settle() -> None:
    for _ in range(4):
        QApplication.processEvents()


def _streamed(qtbot: QtBot) -> tuple[ChatView, MessageBubble]:
    """A shown chat with :data:`REPLY` streamed into it a sentence at a time (not finished)."""
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(700, 500)
    chat.show()
    bubble = None
    for segment in _segments(REPLY):
        bubble = chat.add_assistant_text(segment)
        _settle()
    assert bubble is not None
    return chat, bubble


def test_a_streaming_reply_lays_out_only_its_growing_block(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    measured: Counter[tuple[int, int]] = Counter()
    original = markdown_label.measure

    def counting(label: QLabel, width: int) -> int:
        measured[(id(label), width)] += 1
        return original(label, width)

    monkeypatch.setattr(markdown_label, "measure", counting)
    bubble = _streamed(qtbot)[1]
    finished = [b for b in bubble.blocks if isinstance(b, FinishedLabel)]
    assert len(finished) >= 12
    assert measured  # the layout did ask them
    assert set(measured.values()) == {1}  # each finished block once per width, however many segments followed
    assert {label for label, _width in measured} <= {id(b) for b in finished}


def test_a_streamed_reply_is_drawn_as_the_whole_reply_at_once(qtbot: QtBot) -> None:
    chat, streamed = _streamed(qtbot)
    chat.end_bubble()
    whole = MessageBubble("assistant", REPLY, texts=ENGLISH)
    whole.finish()
    qtbot.add_widget(whole)
    assert streamed is not None
    assert [(type(b).__name__, b.text()) for b in streamed.blocks] == [
        (type(b).__name__, b.text()) for b in whole.blocks]
    _settle()
    width = streamed.width()
    whole.resize(width, whole.heightForWidth(width))
    assert streamed.heightForWidth(width) == whole.heightForWidth(width)
    assert [b.height() for b in streamed.blocks] == [b.heightForWidth(b.width()) for b in streamed.blocks]


def test_a_finished_block_is_measured_again_when_its_font_changes(qtbot: QtBot) -> None:
    label = FinishedLabel(REPLY.split("\n\n")[0], Qt.TextFormat.MarkdownText)
    qtbot.add_widget(label)
    before = label.heightForWidth(300)
    assert label.heightForWidth(300) == before == QLabel.heightForWidth(label, 300)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 2)
    label.setFont(font)
    assert label.heightForWidth(300) == QLabel.heightForWidth(label, 300) > before
