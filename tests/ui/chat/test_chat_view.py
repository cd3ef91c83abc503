"""The chat column: sizes and scrolling."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import CARD_MAX_WIDTH, ChatView
from desktop_agent.ui.chat.slot import Slot


def test_a_short_user_message_is_a_narrow_bubble_on_the_right(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
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
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(800, 600)
    chat.show()
    bubble = chat.add_user("word " * 200)
    QApplication.processEvents()
    assert bubble.width() <= int(chat.viewport().width() * 0.75)
    assert bubble.label.height() >= bubble.label.heightForWidth(bubble.label.width())


def test_cards_are_at_most_the_card_width(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(1400, 600)
    chat.show()
    card = chat.add_card(QLabel("card"))
    QApplication.processEvents()
    assert card.width() == CARD_MAX_WIDTH


def test_new_content_keeps_the_view_at_the_bottom_unless_the_user_scrolled_up(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
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


def test_a_streaming_reply_renders_only_its_last_block(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    for segment in ("Hello there.\n\n", "- one\n", "- two\n\n", "Last"):
        bubble = chat.add_assistant_text(segment)
    assert bubble is not None
    assert [b.text() for b in bubble.blocks] == ["Hello there.", "- one\n- two"]
    assert bubble.label.text() == "Last"
    assert bubble.text() == "Hello there.\n\n- one\n- two\n\nLast"


def test_ending_a_bubble_makes_its_last_block_final(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    bubble = chat.add_assistant_text("Run:\n\n```sh\nls\n```\n")
    assert bubble is not None
    assert [b.text() for b in bubble.blocks] == ["Run:"]
    chat.end_bubble()
    assert [(b.objectName(), b.text()) for b in bubble.blocks] == [("", "Run:"), ("codeBlock", "ls")]
    assert not bubble.label.isVisibleTo(bubble)
    assert bubble.text() == "Run:\n\n```sh\nls\n```"


def test_text_of_a_new_round_starts_a_new_paragraph_in_the_same_bubble(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    first = chat.add_assistant_text("Sure, I'll take care of that.", new_paragraph=True)
    second = chat.add_assistant_text("Let me ask the calendar.", new_paragraph=True)
    assert first is not None and second is first
    assert first.text() == "Sure, I'll take care of that.\n\nLet me ask the calendar."
    chat.end_bubble()
    assert [b.text() for b in first.blocks] == ["Sure, I'll take care of that.", "Let me ask the calendar."]


def test_text_after_a_card_goes_to_a_new_bubble(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    first = chat.add_assistant_text("Looking.")
    chat.add_card(QLabel("card"))
    second = chat.add_assistant_text("Found it.", new_paragraph=True)
    assert first is not None and second is not None and second is not first
    assert (first.text(), second.text()) == ("Looking.", "Found it.")
    assert chat.items() == [first, chat.items()[1], second]


def test_blank_text_opens_no_bubble_but_keeps_its_line_breaks_in_an_open_one(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    assert chat.add_assistant_text("") is None
    assert chat.add_assistant_text(" \n") is None
    assert chat.items() == []
    bubble = chat.add_assistant_text("All done.")
    assert chat.add_assistant_text("\n") is bubble
    chat.add_assistant_text("- item")
    assert bubble is not None and bubble.text() == "All done.\n- item"


# ------------------------------------------------------- offering actions


def _exchanges(chat: ChatView, count: int) -> list[tuple[MessageBubble, MessageBubble]]:
    pairs = []
    for i in range(count):
        user = chat.add_user(f"Question {i}?")
        reply = chat.add_assistant_text(f"Answer {i}.")
        assert reply is not None
        chat.end_bubble()
        pairs.append((user, reply))
    return pairs


def test_offering_actions_touches_only_the_bubbles_whose_actions_change(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    pairs = _exchanges(chat, 20)
    chat.offer_actions(True)  # the turn is over: the last exchange offers Regenerate and Edit
    touched: list[MessageBubble] = []
    for name in ("offer_actions", "pin_actions"):
        original = getattr(MessageBubble, name)

        def spy(self: MessageBubble, *args: object, _original: Any = original, **kwargs: object) -> None:
            touched.append(self)
            _original(self, *args, **kwargs)

        monkeypatch.setattr(MessageBubble, name, spy)
    chat.offer_actions(False)  # a turn starts
    assert set(touched) == set(pairs[-1])
    touched.clear()
    user = chat.add_user("One more?")
    chat.offer_actions(False)  # the new message while the turn runs: nothing to offer anywhere
    assert touched == []
    reply = chat.add_assistant_text("One more answer.")
    assert reply is not None
    chat.end_bubble()
    chat.offer_actions(True)  # it ended: only the new exchange changes
    assert set(touched) == {user, reply}
    assert [(b.offered, b.pinned) for b in (user, reply)] == [((False, True, False), True), ((True, False, False), True)]
    assert all((b.offered, b.pinned) == ((False, False, False), False) for pair in pairs for b in pair)


def test_offering_actions_where_a_turn_ended_without_a_reply_moves_regenerate_to_the_user(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    (old_user, old_reply), = _exchanges(chat, 1)
    chat.offer_actions(True)
    user = chat.add_user("And this?")
    chat.offer_actions(True, editing=True)
    assert [(b.offered, b.pinned) for b in (old_user, old_reply, user)] == [
        ((False, False, False), False), ((False, False, False), False), ((True, True, True), True)]
    assert user.action_row is not None and user.action_row.regenerate_button.isVisibleTo(user.action_row)


# ------------------------------------------------------- streaming layout


def test_a_growing_reply_moves_none_of_the_messages_above_it(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(800, 600)
    chat.show()
    _exchanges(chat, 30)
    reply = chat.add_assistant_text("The fox.")
    assert reply is not None
    for _ in range(4):
        QApplication.processEvents()
    content, slot = chat.widget(), reply.parentWidget()
    assert content is not None and isinstance(slot, Slot)
    above = [w.parentWidget() for w in chat.items()[:-1]]
    where = [w.geometry() for w in above if w is not None]
    reply.append("\n\n".join(f"Paragraph {i} of the reply, long enough to wrap." for i in range(12)))
    for block in reply.blocks:
        block.show()  # what adding them to the bubble's layout does at the next pass
    slot.measure(slot.width())  # what its layout request does
    layout = content.layout()
    assert layout is not None
    layout.activate()  # the column's layout may come before the scroll area resizes the column
    assert content.height() >= layout.sizeHint().height()
    assert [w.geometry() for w in above if w is not None] == where


def test_a_growing_reply_never_squeezes_its_finished_paragraphs(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(600, 500)
    chat.show()
    shrunk: list[tuple[int, int]] = []

    class Watch(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if isinstance(event, QResizeEvent) and event.oldSize().width() == event.size().width():
                if 0 < event.size().height() < event.oldSize().height():
                    shrunk.append((event.oldSize().height(), event.size().height()))
            return False

    watch = Watch()
    reply = None
    for i in range(10):
        reply = chat.add_assistant_text(f"Paragraph {i}: the quick brown fox jumps over the lazy dog until it wraps.\n\n")
        assert reply is not None
        for block in reply.blocks:
            block.installEventFilter(watch)  # installing it again on a block keeps one
        for _ in range(4):
            QApplication.processEvents()
    assert reply is not None and len(reply.blocks) >= 9
    assert shrunk == []
    assert [b.height() for b in reply.blocks] == [b.heightForWidth(b.width()) for b in reply.blocks]


def test_a_new_message_in_a_long_conversation_reads_only_the_start_and_the_end(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A turn starts by adding the user's message (is the welcome still
    # wanted?) and finding the user's last message: neither reads all 200.
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.set_welcome(QLabel("welcome"))
    for i in range(100):
        chat.add_user(f"question {i}")
        chat.add_assistant_text(f"answer {i}")
    reads = 0
    read = chat._layout.itemAt

    def counting(index: int) -> Any:
        nonlocal reads
        reads += 1
        return read(index)

    monkeypatch.setattr(chat._layout, "itemAt", counting)
    bubble = chat.add_user("the next question")
    assert chat.last_user_bubble() is bubble
    assert chat.welcome is not None and not chat.welcome.isVisibleTo(chat)  # a message is there
    assert reads < 10
    assert len(chat.items()) == 201 and chat.items()[-1] is bubble
