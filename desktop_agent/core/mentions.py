"""MCP in a user message (``docs/contracts.md`` §10): finding a
``/mcp__SERVER__PROMPT key=value …`` command and ``@SERVER:URI`` mentions in
what the user typed, and what the expanded message carries.

Pure text work: which servers exist is given (their names), what a server
offers is the expansion's business (``mcp_engine/expansion.py``), so this
module knows nothing of MCP beyond the two conventions, which Claude Code
uses too.

Rules, decided here once for the window and the headless mode:

- A prompt command is the message's first word. The server is the longest
  configured name that fits ``/mcp__NAME__…`` (names may hold ``_``), the
  rest is the prompt's name. The words after it are ``key=value`` (a value
  may be quoted, ``city="New York"``, with ``\\"`` for a quote inside);
  an ``@SERVER:URI`` word there attaches a resource as anywhere else; any
  other word is an error (a word is never silently dropped or guessed).
- A mention is ``@SERVER:URI`` at the start, after white space or an
  opening bracket or quote, the URI
  running to the next white space; closing punctuation (``.,;:!?)]}"'``)
  at its end belongs to the sentence, not the URI. A server that is not
  configured leaves the text alone ("@bob: lunch?") unless the URI has a
  scheme (``://``): then it is clearly meant as a resource, and an error.
  Each resource is attached once, in the order first mentioned.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from desktop_agent.core.messages import ImageContent

PROMPT_PREFIX = "/mcp__"

_MENTION = re.compile(r"(?:(?<=[\s(\[\"'])|^)@([A-Za-z0-9_.\-]+):(\S+)")
_TRAILING = ".,;:!?)]}\"'"


class MentionError(ValueError):
    """The message cannot be expanded; ``str()`` is the one line to show
    (English: the headless mode and the log). ``key`` names the UI text
    that says it in the window's language, formatted with ``fields``
    (None: the line is shown as it is)."""

    def __init__(self, message: str, key: str | None = None, **fields: object) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields


@dataclass(frozen=True, slots=True)
class PromptCall:
    """``/mcp__SERVER__NAME key=value …``."""

    server: str
    name: str
    arguments: tuple[tuple[str, str], ...]
    """(key, value) in the order typed."""

    @property
    def command(self) -> str:
        return f"{PROMPT_PREFIX}{self.server}__{self.name}"


@dataclass(frozen=True, slots=True)
class ResourceRef:
    """``@SERVER:URI``."""

    server: str
    uri: str


@dataclass(frozen=True, slots=True)
class Mentions:
    prompt: PromptCall | None = None
    resources: tuple[ResourceRef, ...] = ()

    def __bool__(self) -> bool:
        return self.prompt is not None or bool(self.resources)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A prompt or resource a message carries: the user's bubble shows it
    as a chip, and the stored conversation keeps it to show it again."""

    kind: Literal["prompt", "resource"]
    server: str
    name: str
    """The prompt's name, or the resource's URI."""
    truncated: bool = False
    """A resource too big to attach whole (its start went)."""


@dataclass(frozen=True, slots=True)
class ExpandedMessage:
    """A user message with its mentions expanded."""

    text: str
    """What the model reads: the prompt's messages (or the user's text),
    then each resource in a fenced block naming its URI."""
    images: tuple[ImageContent, ...] = ()
    """Images from the prompt or the resources, sent as image parts."""
    attachments: tuple[Attachment, ...] = ()


def may_mention(text: str) -> bool:
    """Whether ``text`` could hold a command or a mention at all: a plain
    message (most of them) needs no server to be asked which names exist."""
    return text.strip().startswith(PROMPT_PREFIX) or "@" in text


def parse_mentions(text: str, servers: Collection[str]) -> Mentions:
    """The command and mentions in ``text``; raises :class:`MentionError`."""
    stripped = text.strip()
    prompt: PromptCall | None = None
    refs: list[ResourceRef] = []
    if stripped.startswith(PROMPT_PREFIX):
        word, _, rest = _split_first(stripped)
        server, name = _prompt_target(word, servers)
        arguments: list[tuple[str, str]] = []
        for token in _words(rest, word):
            ref = _mention(token, servers)
            if ref is not None:
                refs.append(ref)
            elif token.startswith("@") and _MENTION.fullmatch(token):
                continue  # @someone:thing, not a configured server: as in free text, ignored
            else:
                arguments.append(_argument(token, word))
        prompt = PromptCall(server, name, tuple(arguments))
    else:
        for match in _MENTION.finditer(text):
            ref = _mention(match.group(0), servers)
            if ref is not None:
                refs.append(ref)
    unique = tuple(dict.fromkeys(refs))
    return Mentions(prompt, unique)


def _split_first(text: str) -> tuple[str, str, str]:
    parts = text.split(maxsplit=1)
    return parts[0], " ", parts[1] if len(parts) > 1 else ""


def _prompt_target(word: str, servers: Collection[str]) -> tuple[str, str]:
    body = word[len(PROMPT_PREFIX) :]
    fitting = [s for s in servers if body.startswith(f"{s}__") and len(body) > len(s) + 2]
    if fitting:
        server = max(fitting, key=len)
        return server, body[len(server) + 2 :]
    if "__" not in body or body.startswith("__") or body.endswith("__"):
        raise MentionError(f'"{word}": a prompt is written /mcp__SERVER__PROMPT', "mention_prompt_form", word=word)
    server = body.split("__", 1)[0]
    raise MentionError(f'"{word}": no mcp server is called "{server}"', "mention_no_server", word=word, server=server)


def _mention(token: str, servers: Collection[str]) -> ResourceRef | None:
    match = _MENTION.fullmatch(token.strip())
    if match is None:
        return None
    server, uri = match.group(1), match.group(2).rstrip(_TRAILING)
    if not uri:
        return None
    if server in servers:
        return ResourceRef(server, uri)
    if "://" in uri:
        raise MentionError(
            f'"@{server}:{uri}": no mcp server is called "{server}"', "mention_no_server", word=f"@{server}:{uri}",
            server=server,
        )
    return None


def _argument(token: str, command: str) -> tuple[str, str]:
    key, sep, value = token.partition("=")
    if not sep or not key or '"' in key:
        raise MentionError(
            f'{command}: "{_unquote(token)}" is not a key=value argument', "mention_not_key_value", command=command,
            word=_unquote(token),
        )
    return key, _unquote(value)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return value[1:-1].replace('\\"', '"')
    return value


def _words(text: str, command: str) -> list[str]:
    """White-space separated words; a double-quoted stretch (``\\"``
    escaping a quote) stays inside its word, quotes kept for
    :func:`_unquote`."""
    words: list[str] = []
    current: list[str] = []
    quoted = False
    index = 0
    while index < len(text):
        char = text[index]
        if quoted and char == "\\" and text[index + 1 : index + 2] == '"':
            current.append('\\"')
            index += 2
            continue
        if char == '"':
            quoted = not quoted
            current.append(char)
        elif char.isspace() and not quoted:
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(char)
        index += 1
    if quoted:
        raise MentionError(f"{command}: a quoted value has no closing quote", "mention_open_quote", command=command)
    if current:
        words.append("".join(current))
    return words
