"""A reply cut at the reply limit (``warning`` code ``max_tokens``) is said
in the window's language, and again in the other one after a switch."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.core.messages import WarningMessage
from desktop_agent.core.prompts import MAX_TOKENS_WARNING
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.turn_view import TurnView


def bubbles(chat: ChatView) -> list[tuple[str, str]]:
    return [(w.role, w.text()) for w in chat.items() if isinstance(w, MessageBubble)]


def test_a_cut_reply_is_said_in_chinese_then_english_after_a_switch(qtbot: QtBot) -> None:
    chat = ChatView(CHINESE)
    qtbot.add_widget(chat)
    view = TurnView(chat)
    view.notice(WarningMessage(MAX_TOKENS_WARNING, "max_tokens"))
    view.notice(WarningMessage("stopped after 3 tool rounds", "max_steps"))  # no wording of its own: as said
    assert bubbles(chat) == [
        ("warning", "**警告:** 回复在长度上限（max_tokens）处被截断；可以让模型继续，或在“设置 → 模型”中提高上限"),
        ("warning", "**警告:** stopped after 3 tool rounds"),
    ]
    chat.retranslate(ENGLISH)
    assert bubbles(chat)[0] == (
        "warning",
        "**Warning:** the reply was cut off at the reply length limit (max_tokens); ask the model to continue, "
        "or raise the limit in Settings (Model)",
    )
