"""What the user is typing at the cursor, as far as the pickers care: a
command after a leading ``/``, an argument (``key=`` or its value) of an
MCP prompt command, or a resource after ``@``. Pure text in, a frozen query
out, so the rules are tested without Qt.

Each query carries the span the picked text replaces: ``start`` to ``end``
(the end of the word the cursor is in, so picking in the middle of a word
replaces all of it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

PROMPT_PREFIX = "/mcp__"
"""How an MCP prompt command starts (``/mcp__SERVER__PROMPT``)."""
_WORD = re.compile(r"\S*")


@dataclass(frozen=True, slots=True)
class CommandQuery:
    """``/`` then a command's first letters, as the message's first word."""

    prefix: str
    start: int
    end: int
    type: Literal["command"] = "command"


@dataclass(frozen=True, slots=True)
class ArgumentQuery:
    """A new word after a prompt command: which argument to give."""

    command: str
    prefix: str
    start: int
    end: int
    given: Mapping[str, str] = field(default_factory=dict)
    """The arguments already written (``key=value`` words elsewhere)."""
    type: Literal["argument"] = "argument"


@dataclass(frozen=True, slots=True)
class ValueQuery:
    """The value after ``key=`` in a prompt command; ``start`` is after the ``=``."""

    command: str
    argument: str
    value: str
    start: int
    end: int
    given: Mapping[str, str] = field(default_factory=dict)
    type: Literal["value"] = "value"


@dataclass(frozen=True, slots=True)
class MentionQuery:
    """``@`` then a resource's first letters, anywhere a word starts."""

    prefix: str
    start: int
    end: int
    type: Literal["mention"] = "mention"


Query = CommandQuery | ArgumentQuery | ValueQuery | MentionQuery


def query_at(text: str, cursor: int) -> Query | None:
    """The query the cursor is in, or None where no picker applies."""
    cursor = max(0, min(cursor, len(text)))
    start = _word_start(text, cursor)
    end = _word_end(text, cursor)
    word = text[start:cursor]
    if start == 0 and word.startswith("/"):
        return CommandQuery(word[1:], 0, end)
    if word.startswith("@"):
        return MentionQuery(word[1:], start, end)
    first = _WORD.match(text)
    command = first.group() if first is not None else ""
    if not command.startswith(PROMPT_PREFIX) or start <= len(command):
        return None
    given = {k: v for (s, k, v) in _arguments(text) if s != start}
    key, equals, value = word.partition("=")
    if equals:
        return ValueQuery(command, key, _unquoted(value), start + len(key) + 1, end, given)
    return ArgumentQuery(command, word, start, end, given)


def quoted(value: str) -> str:
    """A value as one ``key=value`` word: in double quotes (``\\"`` for a quote
    inside) when it holds a space or a quote, as the prompt command is read."""
    if value and not re.search(r"[\s\"']", value):
        return value
    return '"' + value.replace('"', '\\"') + '"'


def _word_start(text: str, cursor: int) -> int:
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return start


def _word_end(text: str, cursor: int) -> int:
    match = _WORD.match(text, cursor)
    return match.end() if match is not None else cursor


def _arguments(text: str) -> list[tuple[int, str, str]]:
    """Every ``key=value`` word after the first: (its start, key, value)."""
    found: list[tuple[int, str, str]] = []
    for match in re.finditer(r"\S+", text):
        if match.start() == 0:
            continue
        key, equals, value = match.group().partition("=")
        if equals and key:
            found.append((match.start(), key, _unquoted(value)))
    return found


def _unquoted(value: str) -> str:
    if value[:1] in ("'", '"'):
        value = value[1:]
        if value[-1:] in ("'", '"'):
            value = value[:-1]
    return value
