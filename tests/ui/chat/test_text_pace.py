"""A live reply's text is drawn at a frame's pace: the first piece at once,
what follows within the interval held and drawn as one piece, nothing lost
or reordered, and all of it in the bubble once it ends."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.text_pace import TextPace


def _chat(qtbot: QtBot) -> ChatView:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(600, 400)
    chat.show()
    return chat


def _counted(bubble: MessageBubble, calls: list[str]) -> None:
    draw = bubble.append

    def append(text: str, *, new_paragraph: bool = False) -> None:
        calls.append(text)
        draw(text, new_paragraph=new_paragraph)

    bubble.append = append  # type: ignore[method-assign]  # counts the draws


def test_streamed_text_is_drawn_first_at_once_then_as_one_piece_per_interval(qtbot: QtBot) -> None:
    chat = _chat(qtbot)
    bubble = chat.add_assistant_text("The quick", paced=True)
    assert bubble is not None and bubble.text() == "The quick"  # the first piece at once
    calls: list[str] = []
    _counted(bubble, calls)
    pace: TextPace = chat._pace  # what the view holds
    for word in (" brown", " fox", " jumps"):
        assert chat.add_assistant_text(word, paced=True) is bubble
    assert calls == [] and pace.holding and bubble.text() == "The quick"
    qtbot.waitUntil(lambda: not pace.holding, timeout=2000)
    assert calls == [" brown fox jumps"] and bubble.text() == "The quick brown fox jumps"


def test_a_round_break_inside_held_text_keeps_its_paragraph_and_the_end_draws_the_rest(qtbot: QtBot) -> None:
    chat = _chat(qtbot)
    bubble = chat.add_assistant_text("Checking.", paced=True)
    assert bubble is not None
    chat.add_assistant_text(" Still", paced=True)
    chat.add_assistant_text("Done", new_paragraph=True, paced=True)
    chat.add_assistant_text(" now.", paced=True)
    chat.end_bubble()  # the turn ends: nothing stays held
    assert bubble.text() == "Checking. Still\n\nDone now."
    assert chat.add_assistant_text("Next", paced=True) is not bubble


def test_text_drawn_at_once_after_held_text_comes_after_it(qtbot: QtBot) -> None:
    chat = _chat(qtbot)
    bubble = chat.add_assistant_text("One", paced=True)
    chat.add_assistant_text(" two", paced=True)
    assert bubble is not None and bubble.text() == "One"
    chat.add_assistant_text(" three")  # a restore's, not paced
    assert bubble.text() == "One two three"
