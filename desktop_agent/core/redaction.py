"""The app's secrets kept out of what tools do and say.

A command the user approves (``env``) or an MCP server's output must not
copy the API key into the bus, the history or the next request. Two
guards: child processes start without the secrets in their environment
(:meth:`Redactor.child_environment`), and any secret value that still
shows up in a tool's output is replaced before anything else sees it
(:class:`RedactingContext`, applied by the tool router to every call).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import cast

from desktop_agent.core.json_types import JSONReadable, JSONValue
from desktop_agent.core.messages import Card, OutputStream
from desktop_agent.core.ports import ToolContext, ToolResult

SECRET_ENV_NAMES = frozenset({"OPENAI_API_KEY"})
"""Variables never handed to a child process, whatever their value."""
MIN_SECRET_LEN = 8
"""Shorter values (a local server's placeholder key ``k``) are not secrets
worth hiding, and replacing them would mangle ordinary text."""
REDACTED = "[redacted]"
_OPEN_LINE_MAX = 4096


class Redactor:
    """Replaces each configured secret value with ``[redacted]``."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._values: frozenset[str] = frozenset()
        self._pattern: re.Pattern[str] | None = None
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        """Hide ``secret`` too, from the next output on (a key stored after start)."""
        if not secret or len(secret) < MIN_SECRET_LEN or secret in self._values:
            return
        self._values = self._values | {secret}
        values = sorted(self._values, key=len, reverse=True)  # the longest first: a key inside a key
        self._pattern = re.compile("|".join(map(re.escape, values)))

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(REDACTED, text)

    def scrub(self, value: JSONReadable) -> JSONValue:
        """``value`` (JSON-like) with every string redacted: a copy whose
        lists and tuples are lists, keys kept as they are.

        Walked with a stack of its own, not by recursion: callers pass
        whatever a tool or the model produced, and JSON nested a few hundred
        levels deep (which ``json.loads`` accepts) used to raise
        ``RecursionError`` here and end the turn. A container met twice is
        copied once (``copy.deepcopy``'s memo), so a value that holds itself
        ends too."""
        root: list[JSONValue] = [None]
        copies: dict[int, JSONValue] = {}
        stack: list[tuple[JSONReadable, _Container, int | str]] = [(value, root, 0)]
        while stack:
            item, into, slot = stack.pop()
            if isinstance(item, str):
                _put(into, slot, self(item))
            elif isinstance(item, list | tuple | dict):
                known = copies.get(id(item))
                if known is not None:
                    _put(into, slot, known)
                    continue
                copy: _Container
                if isinstance(item, dict):
                    copy = dict.fromkeys(item)  # keys in their order; values filled below
                    stack.extend((child, copy, key) for key, child in item.items())
                else:
                    copy = [None] * len(item)
                    stack.extend((child, copy, index) for index, child in enumerate(item))
                copies[id(item)] = copy
                _put(into, slot, copy)
            else:  # a number, true/false, null, or whatever else a tool put there: kept as it is
                _put(into, slot, cast(JSONValue, item))
        return root[0]

    def child_environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        """``environ`` without the secrets: the names in
        :data:`SECRET_ENV_NAMES` and any variable holding a secret value."""
        return {
            key: value
            for key, value in environ.items()
            if key not in SECRET_ENV_NAMES and value not in self._values
        }


_Container = list[JSONValue] | dict[str, JSONValue]


def _put(into: _Container, slot: int | str, value: JSONValue) -> None:
    """``into[slot] = value``: a list's index, or a dict's key (as the
    original had it, whatever its type: nothing is converted)."""
    if isinstance(into, list):
        into[cast(int, slot)] = value
    else:
        into[cast(str, slot)] = value


class RedactingContext:
    """A :class:`ToolContext` that redacts what the tool reports through it.

    Output is passed on in whole lines (a secret split across two pipe
    reads is still found); :meth:`flush` sends the unfinished rest. Other
    attributes (``sub_agents``) are the wrapped context's.
    """

    def __init__(self, inner: ToolContext, redact: Redactor) -> None:
        self._inner = inner
        self._redact = redact
        self._open: dict[OutputStream, str] = {}

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    @property
    def session_id(self) -> str:
        return self._inner.session_id

    @property
    def conversation_id(self) -> str:
        return self._inner.conversation_id

    @property
    def tool_call_id(self) -> str:
        return self._inner.tool_call_id

    @property
    def answer_timeout_s(self) -> float | None:
        return self._inner.answer_timeout_s

    def set_partial(self, key: str, value: JSONValue) -> None:
        self._inner.set_partial(key, self._redact.scrub(value))

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self._inner.progress(progress, total, self._redact(message) if message else message)

    def push_card(self, card: Card) -> None:
        self._inner.push_card(card)

    def output(self, stream: OutputStream, text: str) -> None:
        text = self._open.pop(stream, "") + text
        cut = text.rfind("\n") + 1
        done, rest = text[:cut], text[cut:]
        if len(rest) > _OPEN_LINE_MAX:
            done, rest = text, ""
        if rest:
            self._open[stream] = rest
        if done:
            self._inner.output(stream, self._redact(done))

    def flush(self) -> None:
        for stream, rest in self._open.items():
            self._inner.output(stream, self._redact(rest))
        self._open.clear()

    def result(self, result: ToolResult) -> ToolResult:
        return replace(result, text=self._redact(result.text))
