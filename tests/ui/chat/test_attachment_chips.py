"""The chips under a user's message (contracts §10): server and name, a
resource's last path segment with the whole URI in the tooltip, a cut one
says so, in the window's language and again after a switch."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.core.mentions import Attachment
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.attachment_chips import short_name
from desktop_agent.ui.chat.bubble import MessageBubble

HUGE = Attachment("resource", "files", "file:///home/me/logs/huge.log", truncated=True)
PROMPT = Attachment("prompt", "ev", "args-prompt")


def test_chips_name_the_server_and_the_resource_and_follow_a_language_switch(qtbot: QtBot) -> None:
    bubble = MessageBubble("user", "look at @files:file:///home/me/logs/huge.log", texts=ENGLISH)
    qtbot.add_widget(bubble)
    bubble.set_attachments([PROMPT, HUGE])
    assert bubble.chips is not None
    labels = bubble.chips.chips
    assert [c.text() for c in labels] == ["Prompt · ev · args-prompt", "Resource · files · huge.log (cut to fit)"]
    assert labels[1].toolTip() == (
        "file:///home/me/logs/huge.log from MCP server files, attached for the model; "
        "too long to attach whole, only its start was sent"
    )
    wide = bubble.natural_width()
    assert wide >= bubble.chips.widest()

    bubble.retranslate(CHINESE)
    assert [c.text() for c in bubble.chips.chips] == ["提示词 · ev · args-prompt", "资源 · files · huge.log（已截断）"]
    bubble.set_attachments([])
    assert bubble.chips is None


def test_a_short_name_is_the_last_path_segment_or_the_whole_uri() -> None:
    assert short_name("demo://resource/static/document/features.md") == "features.md"
    assert short_name("https://example.org/docs/") == "docs"
    assert short_name("urn:isbn:0451450523") == "urn:isbn:0451450523"
