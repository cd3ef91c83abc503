"""The chat column: sizes and scrolling."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.ui.chat_view import CARD_MAX_WIDTH, ChatView


def test_a_short_user_message_is_a_narrow_bubble_on_the_right(qtbot: QtBot) -> None:
    chat = ChatView()
    qtbot.add_widget(chat)
    chat.resize(800, 600)
    chat.show()
    bubble = chat.add_user("hi")
    QApplication.processEvents()
    content = chat.widget()
    assert content is not None
    right_edge = bubble.mapTo(content, bubble.rect().topRight()).x()
    assert bubble.width() < 200
    assert right_edge > content.width() - 40


def test_a_long_user_message_wraps_at_three_quarters_and_is_not_cut(qtbot: QtBot) -> None:
    chat = ChatView()
    qtbot.add_widget(chat)
    chat.resize(800, 600)
    chat.show()
    bubble = chat.add_user("word " * 200)
    QApplication.processEvents()
    assert bubble.width() <= int(chat.viewport().width() * 0.75)
    assert bubble.label.height() >= bubble.label.heightForWidth(bubble.label.width())


def test_cards_are_at_most_the_card_width(qtbot: QtBot) -> None:
    chat = ChatView()
    qtbot.add_widget(chat)
    chat.resize(1400, 600)
    chat.show()
    card = chat.add_card(QLabel("card"))
    QApplication.processEvents()
    assert card.width() == CARD_MAX_WIDTH


def test_new_content_keeps_the_view_at_the_bottom_unless_the_user_scrolled_up(qtbot: QtBot) -> None:
    chat = ChatView()
    qtbot.add_widget(chat)
    chat.resize(500, 300)
    chat.show()
    bar = chat.verticalScrollBar()
    for i in range(30):
        chat.add_system(f"line {i}")
    qtbot.wait_until(lambda: bar.maximum() > 0, timeout=3000)
    assert bar.value() == bar.maximum()
    bar.setValue(0)
    grown = bar.maximum()
    chat.add_system("more")
    qtbot.wait_until(lambda: bar.maximum() > grown, timeout=3000)
    assert bar.value() == 0
    grown = bar.maximum()
    chat.add_user("mine")
    qtbot.wait_until(lambda: bar.maximum() > grown, timeout=3000)
    assert bar.value() == bar.maximum()


def test_finished_paragraphs_are_cut_outside_code_fences() -> None:
    from desktop_agent.ui.bubble import complete_blocks

    text = "# Title\n\nFirst para.\n\n```py\na = 1\n\nb = 2\n```\n\nstill typing"
    blocks, rest = complete_blocks(text, 0)
    assert blocks == ["# Title", "First para.", "```py\na = 1\n\nb = 2\n```"]
    assert text[rest:] == "still typing"
    assert complete_blocks(text, rest) == ([], rest)
    assert complete_blocks("```\nopen\n\nfence", 0) == ([], 0)


def test_a_streaming_reply_renders_only_its_last_paragraph(qtbot: QtBot) -> None:
    from desktop_agent.ui.bubble import MessageBubble

    bubble = MessageBubble("assistant")
    qtbot.add_widget(bubble)
    for segment in ("Hello <voice>there</voice>.\n\n", "- one\n", "- two\n\n", "Last"):
        bubble.append(segment)
    assert [b.text() for b in bubble.blocks] == ["Hello there.", "- one\n- two"]
    assert bubble.label.text() == "Last"
    assert bubble.text() == "Hello there.\n\n- one\n- two\n\nLast"


def test_a_finished_code_block_is_shown_as_code() -> None:
    from desktop_agent.ui.bubble import fenced_code

    assert fenced_code("```sh\nls -la\necho hi\n```") == "ls -la\necho hi"
    assert fenced_code("text\n```\nx\n```") is None
    assert fenced_code("```\na\n```\n```\nb\n```") is None


def test_ending_a_bubble_makes_its_last_paragraph_final(qtbot: QtBot) -> None:
    from desktop_agent.ui.bubble import MessageBubble

    chat = ChatView()
    qtbot.add_widget(chat)
    bubble = chat.add_assistant_text("Run:\n\n```sh\nls\n```\n")
    assert [b.text() for b in bubble.blocks] == ["Run:"]
    chat.end_bubble()
    assert [(b.objectName(), b.text()) for b in bubble.blocks] == [("", "Run:"), ("mono", "ls")]
    assert not bubble.label.isVisibleTo(bubble)
    assert isinstance(bubble, MessageBubble) and bubble.text() == "Run:\n\n```sh\nls\n```"
