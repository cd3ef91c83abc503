"""A real-looking reply in the window: a spoken sentence, then Markdown (a
heading, a list, code) in a second round, in English and Chinese. The reply
goes through the real stream parser in small chunks and reaches the view as
the playback queue would hand it over; the screenshot is saved to
tests/artifacts/ and the bubble's blocks are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.core.messages import RoundEndMessage, TextMessage, TurnEndMessage
from desktop_agent.core.stream_parser import StreamParser
from desktop_agent.testing.window_rig import settle
from desktop_agent.ui.chat.bubble import LIST_INDENT_PX, MessageBubble
from desktop_agent.ui.chat.code_block import CodeBlock
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.shell.main_window import MainWindow

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

PLANNING = "<voice>Sure, here is how to set it up.</voice><no_tool>"
REPLY = (
    "<voice>All done.</voice>\n"
    "## Setting up\n"
    "1. Install the package:\n"
    "   ```sh\n   pip install desktop-agent\n   ```\n"
    "2. Run `desktop-agent`.\n\n"
    "- **Fast**: it streams.\n- 中文也可以：你好，世界。\n"
)


@pytest.fixture
def window(shown_window: MainWindow) -> MainWindow:
    shown_window.resize(860, 760)
    return shown_window


def second_item_number(label: QLabel) -> str:
    """The number Qt draws before the first item of a Markdown list label."""
    document = QTextDocument()
    document.setMarkdown(label.text())
    block = document.firstBlock()
    text_list = block.textList()
    assert text_list is not None
    return text_list.itemText(block)


def feed(view: TurnView, reply: str, first_id: int, chunk: int = 3) -> int:
    """Stream ``reply`` through the parser in ``chunk``-character pieces."""
    parser = StreamParser()
    segments = [s for i in range(0, len(reply), chunk) for s in parser.feed(reply[i : i + chunk])]
    segments += parser.flush()
    for n, segment in enumerate(segments, first_id):
        view.show_text(TextMessage(n, segment.text, segment.raw_text, segment.voice))
    return first_id + len(segments)


def test_markdown_after_a_spoken_span_renders_as_blocks(window: MainWindow, qtbot: QtBot) -> None:
    view = TurnView(window.chat)
    window.chat.add_user("How do I set it up?")
    next_id = feed(view, PLANNING, 1)
    view.round_ended(RoundEndMessage(0, "planning"))
    feed(view, REPLY, next_id)
    view.round_ended(RoundEndMessage(1, "continuation"))
    view.turn_ended(TurnEndMessage())
    QApplication.processEvents()  # the layout requests the blocks posted: their places below

    bubbles = [w for w in window.chat.items() if isinstance(w, MessageBubble)]
    assert [b.role for b in bubbles] == ["user", "assistant"]
    reply = bubbles[1]
    assert reply.text() == (
        "Sure, here is how to set it up.\n\nAll done.\n## Setting up\n1. Install the package:\n"
        "   ```sh\n   pip install desktop-agent\n   ```\n2. Run `desktop-agent`.\n\n"
        "- **Fast**: it streams.\n- 中文也可以：你好，世界。"
    )
    shown = [block.text() for block in reply.blocks if block.isVisibleTo(reply)]
    # The spoken sentences, the heading and each list are blocks of their own:
    # nothing glued ("…set it up.All done.", "…done.## Setting up"); the
    # code inside the first item is a code block (Copy, highlighting) between
    # the list's two pieces, and the second piece still says "2.".
    assert shown == [
        "Sure, here is how to set it up.",
        "All done.",
        "## Setting up",
        "1. Install the package:",
        "pip install desktop-agent",
        "2. Run `desktop-agent`.",
        "- **Fast**: it streams.\n- 中文也可以：你好，世界。",
    ]
    code = reply.blocks[4]
    assert isinstance(code, CodeBlock) and (code.language, code.copy_button.isVisibleTo(reply)) == ("sh", True)
    second = reply.blocks[5]
    assert isinstance(second, QLabel)
    assert second_item_number(second) == "2."
    # The code stands as far in as the item's text (Qt indents a list by 40 px).
    assert code.mapTo(reply, QPoint(0, 0)).x() == reply.blocks[3].mapTo(reply, QPoint(0, 0)).x() + LIST_INDENT_PX

    assert settle(window.chat)  # the reply's slot takes its height a layout pass later
    slot = reply.parentWidget()
    assert slot is not None and slot.height() == reply.height()  # the picture shows the whole reply
    ARTIFACTS.mkdir(exist_ok=True)
    assert window.grab().save(str(ARTIFACTS / "markdown_after_spoken_span.png"))
