"""Message bubbles: streamed text keeps its Markdown shape; finished blocks."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytestqt.qtbot import QtBot

from desktop_agent.core.stream_parser import StreamParser, strip_tags
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat import bubble as bubble_module
from desktop_agent.ui.chat import chat_view as chat_view_module
from desktop_agent.ui.chat import markdown_blocks as markdown_blocks_module
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.markdown_blocks import Block, finished_blocks


@pytest.fixture
def bubble(qtbot: QtBot) -> MessageBubble:
    widget = MessageBubble("assistant", texts=ENGLISH)
    qtbot.add_widget(widget)
    return widget


def stream(bubble: MessageBubble, reply: str) -> None:
    """Feed ``reply`` through the stream parser into ``bubble`` as the app does."""
    parser = StreamParser()
    for segment in parser.feed(reply) + parser.flush():
        bubble.append(segment.text)


def shown(bubble: MessageBubble) -> list[tuple[str, str]]:
    """Each visible label: (objectName, text)."""
    labels = [*bubble.blocks, bubble.label] if bubble.label.isVisibleTo(bubble) else bubble.blocks
    return [(label.objectName(), label.text()) for label in labels]


# ------------------------------------------------------------------ exact text


def test_streamed_segments_reproduce_the_exact_markdown(bubble: MessageBubble) -> None:
    reply = (
        "<voice>Sure, I'll take care of that.</voice> Let me ask first.\n\n"
        "## Steps\n\n1. Open it.\n2. Click **Save**.\n\n```sh\nls -la\n```\n"
    )
    stream(bubble, reply)
    assert bubble.text() == strip_tags(reply).strip()
    bubble.finish()
    assert shown(bubble) == [
        ("", "Sure, I'll take care of that. Let me ask first."),
        ("", "## Steps"),
        ("", "1. Open it.\n2. Click **Save**."),
        ("codeBlock", "ls -la"),
    ]


def test_a_list_after_a_spoken_sentence_keeps_its_line_break(bubble: MessageBubble) -> None:
    stream(bubble, "<voice>All done.</voice>\n- item one\n- item two")
    assert bubble.text() == "All done.\n- item one\n- item two"
    bubble.finish()
    assert shown(bubble) == [("", "All done."), ("", "- item one\n- item two")]


def test_a_heading_of_a_new_round_is_its_own_block(bubble: MessageBubble) -> None:
    bubble.append("You can use lists.", new_paragraph=True)
    bubble.append("## Setting up", new_paragraph=True)
    bubble.append("\nRun the installer.")
    assert bubble.text() == "You can use lists.\n\n## Setting up\nRun the installer."
    bubble.finish()
    assert shown(bubble) == [("", "You can use lists."), ("", "## Setting up"), ("", "Run the installer.")]


@pytest.mark.parametrize(
    ("before", "added"),
    [("Done.", "\n\n"), ("Done.\n", "\n"), ("Done.\n\n", ""), ("Done.\n \n", ""), ("", ""), ("  \n", "")],
)
def test_a_new_round_adds_only_the_line_breaks_a_blank_line_needs(
    bubble: MessageBubble, before: str, added: str
) -> None:
    bubble.append(before)
    bubble.append("Next.", new_paragraph=True)
    assert bubble.text() == (before + added + "Next.").strip()


def test_a_user_bubble_shows_its_text_as_typed(qtbot: QtBot) -> None:
    user = MessageBubble("user", "  two\n\nlines  ", texts=ENGLISH)
    qtbot.add_widget(user)
    assert user.text() == user.label.text() == "  two\n\nlines  "
    assert user.blocks == []


# ------------------------------------------------------------------ blocks


def test_a_tilde_fence_with_blank_lines_stays_one_code_block(bubble: MessageBubble) -> None:
    for part in ("Code:\n\n", "~~~py\n", "a = 1\n\n", "b = 2\n", "~~~\n\n", "Done."):
        bubble.append(part)
    assert shown(bubble) == [("", "Code:"), ("codeBlock", "a = 1\n\nb = 2"), ("", "Done.")]


def test_a_list_item_with_a_continuation_paragraph_stays_one_block(bubble: MessageBubble) -> None:
    for part in ("- item\n\n", "  more about it\n", "- next\n\n", "After.\n"):
        bubble.append(part)
    assert shown(bubble) == [("", "- item\n\n  more about it\n- next"), ("", "After.")]


def test_a_list_going_on_after_a_blank_line_is_not_finished_early(bubble: MessageBubble) -> None:
    bubble.append("- one\n\n")
    bubble.append("-")
    assert bubble.blocks == []
    bubble.append(" two\n")
    assert bubble.blocks == []
    assert bubble.label.text() == "- one\n\n- two"


def test_an_open_fence_is_not_finished_until_it_closes(bubble: MessageBubble) -> None:
    bubble.append("```\nopen\n\nfence\n\n")
    assert bubble.blocks == []
    bubble.append("```\nafter")
    assert shown(bubble) == [("codeBlock", "open\n\nfence\n"), ("", "after")]


def test_an_unclosed_fence_at_the_end_is_still_shown_as_code(bubble: MessageBubble) -> None:
    bubble.append("Try:\n\n```sh\nmake test")
    bubble.finish()
    assert shown(bubble) == [("", "Try:"), ("codeBlock", "make test")]


@pytest.mark.parametrize(
    ("text", "finished"),
    [
        ("Para one.\n\nPara tw", ["Para one."]),
        ("Para\n#", []),  # may still become "Para\n#x", one paragraph
        ("- a\n\n-", []),  # may still become a second item
        ("- a\n\n2", []),
        ("- a\n\nNot a list", ["- a"]),
        ("> quote\n\nplain", ["> quote"]),
        ("# Title\nbody", ["# Title"]),
        ("    code\n\nx", []),
        ("    code\n\nx\n", ["    code"]),
        ("[a]: /url\n\nSee [a].\n\nNext\n", ["[a]: /url\n\nSee [a]."]),
    ],
)
def test_a_block_is_finished_only_when_nothing_typed_later_can_join_it(
    text: str, finished: list[str]
) -> None:
    blocks, cut = finished_blocks(text)
    assert [b.markdown for b in blocks] == finished
    assert not text[:cut].strip() or text[:cut].rstrip().endswith(finished[-1])


def test_finishing_makes_every_block_final() -> None:
    text = "\n\nIntro\n\n```\nx\n```\n- a\n"
    assert finished_blocks(text, final=True) == (
        [Block("Intro", None), Block("```\nx\n```", "x"), Block("- a", None)],
        len(text),
    )


_FRAGMENTS = st.sampled_from(
    [
        "Sure, I'll take care of that.",
        " Let me check.",
        "\n",
        "\n\n",
        "- item one\n",
        "- item two",
        "  continued\n",
        "1. first\n",
        "2. second\n",
        "## Setting up\n",
        "# ",
        "#x ",
        "```py\n",
        "x = 1\n",
        "```\n",
        "~~~\n",
        "   ```sh\n",
        "   pip install x\n",
        "   ```\n",
        "     - sub\n",
        "> quote\n",
        "    indented\n",
        "---\n",
        "===\n",
        "text",
        "-",
        "2",
    ]
)


@st.composite
def _streamed(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A reply and its chunks: cut mostly where fragments meet (where a
    segment may end), sometimes anywhere."""
    parts = draw(st.lists(_FRAGMENTS, max_size=16))
    text = "".join(parts)
    joints = list(itertools.accumulate(len(part) for part in parts))
    cuts = draw(st.lists(st.sampled_from(joints), max_size=16)) if joints else []
    cuts += draw(st.lists(st.integers(0, len(text)), max_size=4))
    return text, [text[a:b] for a, b in itertools.pairwise([0, *sorted(cuts), len(text)])]


@settings(max_examples=300, deadline=None)
@given(_streamed())
def test_streaming_finishes_the_same_blocks_as_rendering_the_whole_reply(
    reply: tuple[str, list[str]],
) -> None:
    text, chunks = reply
    source, done, blocks = "", 0, []
    for chunk in chunks:  # what MessageBubble does with each append
        source += chunk
        finished, cut = finished_blocks(source[done:])
        blocks += finished
        done += cut
    finished, _ = finished_blocks(source[done:], final=True)
    assert blocks + finished == finished_blocks(text, final=True)[0]
    # Cutting (and a nested code block's dedent) drops white space only.
    assert "".join(c for b in blocks + finished for c in b.markdown if not c.isspace()) == "".join(text.split())


NESTED = (
    "Steps:\n\n1. Install:\n   ```sh\n   pip install x\n   ```\n\n   Then go.\n"
    "2. Run `x`.\n   - sub\n     ```\n     code\n     ```\n   - sub2\n3. Done\n\nEnd."
)


def test_code_inside_a_list_item_is_a_block_of_its_own_as_deep_as_its_item() -> None:
    assert finished_blocks(NESTED, final=True)[0] == [
        Block("Steps:", None),
        Block("1. Install:", None),
        Block("   ```sh\n   pip install x\n   ```", "pip install x", "sh", depth=1),
        Block("Then go.", None, depth=1),  # the item's own text after the code, dedented
        Block("2. Run `x`.\n   - sub", None),
        Block("     ```\n     code\n     ```", "code", depth=2),
        Block("- sub2", None, depth=1),
        Block("3. Done", None),
        Block("End.", None),
    ]


def test_code_inside_a_quote_in_a_list_stays_in_the_list() -> None:
    text = "- a\n  > ```\n  > q\n  > ```\n- b"
    assert finished_blocks(text, final=True)[0] == [Block(text, None)]


# ------------------------------------------------------------------ layering


@pytest.mark.parametrize("module", [bubble_module, chat_view_module, markdown_blocks_module])
def test_the_ui_does_not_import_the_stream_parser(module: object) -> None:
    tree = ast.parse(Path(str(getattr(module, "__file__", ""))).read_text(encoding="utf-8"))
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not any(name and "stream_parser" in name for name in imported)
