"""A reply's Markdown cut into the blocks its bubble shows (no Qt here).

A streaming reply is shown as one label per finished block plus one for the
block still growing (:mod:`desktop_agent.ui.chat.bubble`). Which blocks are
finished is markdown-it's call, not a hand-written splitter: a list
continuing across a blank line, a list item's continuation paragraph and a
``~~~`` fence with blank lines inside all stay one block.

Fenced code inside a list item ("1. Install:" then an indented
```` ```sh ```` block, as models write set-up steps) becomes a code block of
its own too, so it gets highlighting and Copy like any other: the list is
shown in pieces around it, each piece indented as deep as it sits in the
list (:attr:`Block.depth`), and an ordered list's later piece keeps its
numbers ("2." starts a list at 2).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_agent.ui.chat.code_block import language_of

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@functools.cache
def _markdown() -> MarkdownIt:
    """The parser, imported at the first reply rather than at start-up
    (markdown-it costs ~60 ms to import, before the window could show)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")
_CLOSED_LEAVES = frozenset({"heading_open", "fence", "hr"})
"""Blocks that no later line can join once another block follows them."""
_CONTAINERS = frozenset({"bullet_list_open", "ordered_list_open", "blockquote_open"})
_LISTS = frozenset({"bullet_list_open", "ordered_list_open"})
_FENCE_MARK = re.compile(r"^[ \t]*(?:`{3,}|~{3,})", re.MULTILINE)
_ITEM_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_MAY_CONTINUE = tuple(" \t-*+>0123456789")
"""How a line starts that could still join a list or quote above it."""


@dataclass(frozen=True, slots=True)
class Block:
    """A finished top-level Markdown block."""

    markdown: str
    """Its source, without the blank lines around it."""
    code: str | None
    """The code inside, when it is a fenced code block (``` or ~~~)."""
    language: str = ""
    """The language its fence names (```` ```python ````), or ""."""
    depth: int = 0
    """How many list items it sits in (a piece of a list around nested
    code, and that code): the bubble indents it as far as the list's text."""


def _first_line(token: Token) -> int:
    assert token.map is not None  # finished_blocks keeps only tokens with a map
    return token.map[0]


def _offset(lines: list[str], line: int) -> int:
    return sum(len(text) + 1 for text in lines[:line])


def _settled(block: Token, after: Token, lines: list[str], complete: int) -> bool:
    r"""Whether ``block`` is final now that ``after`` has started below it.

    A block that begins on a complete line can no longer change what came
    before it. One that begins on the line still being typed might yet join
    the block above it (``"- a\n\n-"`` may become ``"- a\n\n- b"``, and
    ``"Para\n#"`` may become ``"Para\n#x"``), unless that block is one no
    line can join: a closed heading, fence or rule, or a paragraph or list
    after a blank line with a line starting that no list or quote continues.
    """
    start = _first_line(after)
    if start < complete or block.type in _CLOSED_LEAVES:
        return True
    blank_before = start > 0 and not lines[start - 1].strip()
    if block.type == "paragraph_open":
        return blank_before
    return block.type in _CONTAINERS and blank_before and not lines[start].startswith(_MAY_CONTINUE)


def finished_blocks(text: str, *, final: bool = False) -> tuple[list[Block], int]:
    """The top-level Markdown blocks of ``text`` that are finished, and where
    the unfinished rest begins (at a line start; ``len(text)`` when ``final``).

    A block is finished when markdown-it sees a block after it that the
    block cannot absorb any more (see ``_settled``), or when ``final``.
    ``text`` should start at a block boundary, which the returned offset is.
    """
    tops = [t for t in _markdown().parse(text) if t.level == 0 and t.nesting >= 0 and t.map is not None]
    lines = text.split("\n")
    if final:
        done = len(tops)
    else:
        complete = len(lines) - 1  # the last line is still being typed
        done = 0
        while done + 1 < len(tops) and _settled(tops[done], tops[done + 1], lines, complete):
            done += 1
    blocks: list[Block] = []
    begin = 0
    for i, token in enumerate(tops[:done]):
        end = _offset(lines, _first_line(tops[i + 1])) if i + 1 < len(tops) else len(text)
        source = _LEADING_BLANK_LINES.sub("", text[begin:end]).rstrip()
        if token.type == "fence":
            blocks.append(Block(source, token.content.removesuffix("\n"), language_of(token.info)))
        elif token.type in _LISTS and _FENCE_MARK.search(source):
            blocks.extend(_around_nested_code(source, 0))
        else:
            blocks.append(Block(source, None))
        begin = end
    return blocks, (len(text) if final else begin)


def _nested_fence(tokens: list[Token]) -> tuple[Token, list[Token]] | None:
    """The first fenced code block inside a list item (not inside a quote),
    with the items around it, outermost first."""
    items: list[Token] = []
    quotes = 0
    for token in tokens:
        if token.type == "list_item_open":
            items.append(token)
        elif token.type == "list_item_close":
            items.pop()
        elif token.type == "blockquote_open":
            quotes += 1
        elif token.type == "blockquote_close":
            quotes -= 1
        elif token.type == "fence" and items and not quotes and token.map is not None:
            return token, list(items)
    return None


def _dedent(line: str, columns: int) -> str:
    """``line`` without up to ``columns`` leading spaces."""
    return line[min(columns, len(line) - len(line.lstrip(" "))) :]


def _trimmed(lines: list[str]) -> str:
    return _LEADING_BLANK_LINES.sub("", "\n".join(lines)).rstrip()


def _around_nested_code(source: str, depth: int) -> list[Block]:
    """A finished list as pieces: the list up to a nested code block, the
    code (its own block, as deep as its item), what follows it in each item
    that holds it (dedented to that item's text) and the rest of the list."""
    tokens = _markdown().parse(source)
    found = _nested_fence(tokens)
    if found is None:
        return [Block(source, None, depth=depth)]
    fence, items = found
    lines = source.split("\n")
    start, end = fence.map or (0, 0)
    pieces: list[Block] = []
    if before := _trimmed(lines[:start]):
        pieces.append(Block(before, None, depth=depth))
    code = fence.content.removesuffix("\n")
    pieces.append(Block(_trimmed(lines[start:end]), code, language_of(fence.info), depth + len(items)))
    at = end
    for inside, item in zip(range(len(items), 0, -1), reversed(items), strict=True):  # innermost first
        item_end = item.map[1] if item.map is not None else at
        if item_end > at:
            marker = _ITEM_MARKER.match(lines[_first_line(item)])
            column = marker.end() if marker else 0
            if rest := _trimmed([_dedent(line, column) for line in lines[at:item_end]]):
                pieces.extend(_around_nested_code(rest, depth + inside))
            at = max(at, item_end)
    if rest := _trimmed(lines[at:]):
        pieces.extend(_around_nested_code(rest, depth))
    return pieces
