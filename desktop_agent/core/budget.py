"""What one request may hold, and the cuts that keep every request within it.

Why: nothing bounded what reached the model. A 20 MB MCP result made a
21 MB request (refused, or billed, by the server), and a large skill or hook
prompt was sent again with every later request. The budget comes from the
model's context size (the ``context_tokens`` setting), less room for the
reply. Two cuts hold it, in the order text meets them:

1. **At the source**: a tool result larger than its share of the budget
   (:attr:`Budget.result_bytes`, a quarter: room for a few results and the
   conversation) is cut where the agent receives it (:func:`cut_result`),
   its head and tail kept around a marker that says how much was left out.
   The bus ``result``, the card, history and the saved conversation all
   hold the cut text, so what the user sees is what the model got, and the
   card can say that it was cut (:func:`result_cut`).
2. **Before sending**: a request whose messages still do not fit
   (:func:`fit_request`) loses, oldest first, earlier tool results, earlier
   tool arguments and earlier text (each replaced by a marker), then whole
   earlier exchanges; only then are the system prompt, the user's message
   and the current round's results cut, all to the same length. Messages
   are shortened or dropped whole, a user message through to the next one,
   so the wire rules (contracts §2a: alternation, every call answered once in
   order) still hold after the normalizer.

Sizes are estimates, never counted by a tokenizer (the app does not know the
model's): :data:`BYTES_PER_TOKEN` bytes of UTF-8 a token. English runs about
four bytes a token and Chinese (three bytes a character) about a character
a token in current tokenizers, so three errs toward more tokens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from desktop_agent.core.history import cut_arguments
from desktop_agent.core.history_items import AssistantMessage, UnreadMessage, UserMessage
from desktop_agent.core.json_types import JSONMapping, JSONReadable, as_list, to_value
from desktop_agent.core.prompts import CONTINUE_MESSAGE
from desktop_agent.core.wire import IMAGES_KEY
from desktop_agent.core.working_items import WorkingItem, is_hook_item, role_of, text_of

DEFAULT_CONTEXT_TOKENS = 32768
"""The context assumed when the user did not set the model's (a common size
for local models; larger models only lose a little room)."""
BYTES_PER_TOKEN = 3
REPLY_TOKENS = 4096
"""Kept free for the reply (the usual ``max_tokens``), at most a quarter of the context."""
RESULT_SHARE = 4
"""A tool result may take this fraction (1/n) of the request."""
MESSAGE_OVERHEAD = 16
"""Bytes counted for each message besides its text: role, separators, the
chat template's tokens."""
CALL_OVERHEAD = 32
"""Bytes counted for each tool call besides its name and arguments."""
MIN_CUT = 256
"""No text is cut shorter than this (bytes) to fit a request: a budget that
small could not hold the conversation's markers anyway."""
OLD_ARGUMENT_CHARS = 32
"""Earlier calls' string arguments are cut to this many characters to fit."""

RESULT_CUT_MARK = "[… {left} characters left out of this result to fit the model's context …]"
"""In a tool result cut at its source; the card says it in the user's language."""
CONTEXT_CUT_MARK = "[… {left} characters left out to fit the model's context …]"
"""In a message shortened to fit one request (the canonical history keeps it whole)."""
_RESULT_CUT = re.compile(re.escape(RESULT_CUT_MARK).replace(re.escape("{left}"), r"([\d,]+)"))


@dataclass(frozen=True, slots=True)
class Budget:
    """A request's budget, from the model's context size in tokens."""

    context_tokens: int = DEFAULT_CONTEXT_TOKENS

    @property
    def reply_tokens(self) -> int:
        return min(REPLY_TOKENS, self.context_tokens // 4)

    @property
    def request_bytes(self) -> int:
        """The estimated UTF-8 size a request's messages and tools may have."""
        return (self.context_tokens - self.reply_tokens) * BYTES_PER_TOKEN

    @property
    def result_bytes(self) -> int:
        """The size of one tool result, cut where it is produced."""
        return self.request_bytes // RESULT_SHARE

    def messages_bytes(self, tools: Sequence[JSONMapping] | None) -> int:
        """What the messages may take beside these tool schemas (which are
        sent whole): at least a quarter of the request, whatever the tools take."""
        used = utf8_size(json.dumps(list(tools), ensure_ascii=False)) if tools else 0
        return max(self.request_bytes - used, self.request_bytes // 4)


def utf8_size(text: str) -> int:
    """``text``'s size in UTF-8 (a lone surrogate, which JSON can carry, counts three)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def cut_text(text: str, limit: int, mark: str = CONTEXT_CUT_MARK) -> str:
    """``text`` within ``limit`` bytes of UTF-8: its head (two thirds of
    the room) and tail around ``mark``, which says how many characters were
    left out. Characters are never split. Unchanged when it fits; just the
    marker when ``limit`` has no room for more."""
    size = utf8_size(text)
    if size <= limit:
        return text
    widest = mark.format(left=f"{len(text):,}")
    room = limit - utf8_size(widest) - 4  # the blank lines around the marker
    if room <= 0:
        return widest
    data = text.encode("utf-8", "surrogatepass")
    head_end = _char_start(data, room * 2 // 3, back=True)
    tail_start = _char_start(data, size - (room - head_end), back=False)
    head = data[:head_end].decode("utf-8", "surrogatepass")
    tail = data[tail_start:].decode("utf-8", "surrogatepass")
    left = len(text) - len(head) - len(tail)
    return f"{head}\n\n{mark.format(left=f'{left:,}')}\n\n{tail}"


def _char_start(data: bytes, at: int, *, back: bool) -> int:
    """The nearest index at or around ``at`` where a character starts (not
    a UTF-8 continuation byte): moving back (a head's end) or forward (a tail's start)."""
    step = -1 if back else 1
    while 0 < at < len(data) and data[at] & 0xC0 == 0x80:
        at += step
    return at


def cut_result(text: str, budget: Budget) -> str:
    """A tool result as the model, the card and history get it."""
    return cut_text(text, budget.result_bytes, RESULT_CUT_MARK)


def result_cut(text: str | None) -> str | None:
    """How many characters :func:`cut_result` left out of ``text`` (as it
    wrote the number, ``20,971,520``); None when it was not cut."""
    if not text or "…]" not in text:
        return None
    found = _RESULT_CUT.search(text)
    return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class Fitted:
    items: list[WorkingItem]
    changed: int
    """Items shortened or left out (0: the request fitted as it was)."""


def fit_request(items: Sequence[WorkingItem], limit: int) -> Fitted:
    """``items`` (the agent's working list, as it would send them) within
    ``limit`` estimated bytes; see the module docstring for what goes
    first. An item changed is a new one; ``items`` is never changed."""
    out = list(items)
    sizes = [item_size(item) for item in out]
    if sum(sizes) <= limit:
        return Fitted(out, 0)
    fit = _Fitting(out, sizes, limit)
    fit.shorten(lambda item: role_of(item) == "tool", _left_out_content)
    fit.shorten(_calls_something, _small_calls)
    fit.shorten(lambda item: role_of(item) in ("user", "assistant"), _left_out_content)
    fit.drop_exchanges()
    fit.level()
    return Fitted(fit.out, fit.changed)


def item_size(item: WorkingItem) -> int:
    """An item's estimated size in bytes as a message: its text, its calls, and overhead."""
    if isinstance(item, UnreadMessage):
        return _unread_size(item)
    size = MESSAGE_OVERHEAD + utf8_size(item.content or "")
    if isinstance(item, AssistantMessage):
        size += sum(CALL_OVERHEAD + utf8_size(call.name) + utf8_size(call.arguments) for call in item.tool_calls)
    return size


def _unread_size(item: UnreadMessage) -> int:
    """What :func:`item_size` counts of a message kept as it came."""
    size = MESSAGE_OVERHEAD + _content_size(item.message.get("content"))
    for call in as_list(item.message.get("tool_calls")):
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            arguments = function.get("arguments")
            size += CALL_OVERHEAD + utf8_size(str(function.get("name") or ""))
            size += utf8_size(arguments) if isinstance(arguments, str) else CALL_OVERHEAD
    return size


def _content_size(content: JSONReadable) -> int:
    if isinstance(content, str):
        return utf8_size(content)
    if isinstance(content, list):  # multi-part content: its text parts
        return sum(utf8_size(str(p.get("text", ""))) for p in content if isinstance(p, Mapping))
    return 0


class _Fitting:
    """One request being fitted: the items, their sizes, what is protected."""

    def __init__(self, out: list[WorkingItem], sizes: list[int], limit: int) -> None:
        self.out = out
        self.sizes = sizes
        self.total = sum(sizes)
        self.limit = limit
        self.changed = 0
        self.turn = _turn_message(out)
        self.current = _current_round(out, self.turn)

    @property
    def over(self) -> bool:
        return self.total > self.limit

    def _protected(self, index: int) -> bool:
        return index == self.turn or index in self.current or role_of(self.out[index]) == "system"

    def _replace(self, index: int, item: WorkingItem) -> None:
        size = item_size(item)
        if size < self.sizes[index]:
            self.total -= self.sizes[index] - size
            self.out[index], self.sizes[index] = item, size
            self.changed += 1

    def shorten(self, wanted: Callable[[WorkingItem], bool], shorter: Callable[[WorkingItem], WorkingItem]) -> None:
        """Oldest first, each unprotected item ``wanted`` selects made
        ``shorter``, until the request fits."""
        for index, item in enumerate(self.out):
            if not self.over:
                return
            if not self._protected(index) and wanted(item):
                self._replace(index, shorter(item))

    def drop_exchanges(self) -> None:
        """Drop the oldest items before the user's message, from the first
        one after the system messages through to the next user message
        (kept), until the request fits: whole exchanges, so calls and
        answers go together. System messages stay where they are."""
        while self.over and self.turn is not None:
            first = next((i for i, item in enumerate(self.out) if role_of(item) != "system"), None)
            if first is None or first >= self.turn:
                return
            stop = next(j for j in range(first + 1, self.turn + 1) if role_of(self.out[j]) == "user")
            dropped = [i for i in range(first, stop) if role_of(self.out[i]) != "system"]
            for index in reversed(dropped):
                self.total -= self.sizes[index]
                del self.out[index], self.sizes[index]
            self.changed += len(dropped)
            self.turn -= len(dropped)
            self.current = {i - len(dropped) for i in self.current}

    def level(self) -> None:
        """The last resort: every text longer than one common length (the
        largest that fits) is cut to it, protected ones included."""
        if not self.over:
            return
        texts = [(i, utf8_size(text)) for i, item in enumerate(self.out) if (text := text_of(item)) is not None]
        room = self.limit - (self.total - sum(size for _, size in texts))
        cap = max(MIN_CUT, _water_level(sorted(size for _, size in texts), room))
        for index, size in texts:
            if size > cap:
                item = self.out[index]
                self._replace(index, _with_text(item, cut_text(text_of(item) or "", cap)))


def _water_level(sizes: list[int], room: int) -> int:
    """The largest cap with ``sum(min(size, cap)) <= room`` (``sizes`` sorted)."""
    for taken, size in enumerate(sizes):
        rest = len(sizes) - taken
        if size * rest > room:
            return max(0, room // rest)
        room -= size
    return sizes[-1] if sizes else 0


def _turn_message(out: list[WorkingItem]) -> int | None:
    """The user's own message of this turn: the last user message that is
    neither a hook's nor the planning round's ``[continue]``."""
    for index in range(len(out) - 1, -1, -1):
        item = out[index]
        if role_of(item) == "user" and not is_hook_item(item) and text_of(item) != CONTINUE_MESSAGE:
            return index
    return None


def _current_round(out: list[WorkingItem], turn: int | None) -> set[int]:
    """The last tool-calling assistant message after the user's message and
    the answers right after it: the round the model is about to read."""
    start = 0 if turn is None else turn + 1
    calls = [i for i in range(start, len(out)) if role_of(out[i]) == "assistant" and _calls_something(out[i])]
    if not calls:
        return set()
    found = {calls[-1]}
    index = calls[-1] + 1
    while index < len(out) and role_of(out[index]) == "tool":
        found.add(index)
        index += 1
    return found


def _calls_something(item: WorkingItem) -> bool:
    """A message that carries tool calls."""
    if isinstance(item, UnreadMessage):
        return bool(item.message.get("tool_calls"))
    return isinstance(item, AssistantMessage) and bool(item.tool_calls)


def _with_text(item: WorkingItem, text: str) -> WorkingItem:
    """``item`` with ``text`` for its text content (one that has one)."""
    if isinstance(item, UnreadMessage):
        return UnreadMessage({**item.message, "content": text})
    return replace(item, content=text)


def _left_out_content(item: WorkingItem) -> WorkingItem:
    text = text_of(item)
    if not text:
        return item
    mark = CONTEXT_CUT_MARK.format(left=f"{len(text):,}")
    if isinstance(item, UnreadMessage):  # its images are left out with it
        return UnreadMessage({**{k: v for k, v in item.message.items() if k != IMAGES_KEY}, "content": mark})
    if isinstance(item, UserMessage):
        return replace(item, content=mark, images=())
    return replace(item, content=mark)


def _small_calls(item: WorkingItem) -> WorkingItem:
    """Earlier calls with their string arguments cut short (still JSON objects)."""
    if isinstance(item, AssistantMessage):
        return replace(item, tool_calls=tuple(
            replace(call, arguments=cut_arguments(call.arguments, OLD_ARGUMENT_CHARS)) for call in item.tool_calls
        ))
    if not isinstance(item, UnreadMessage):
        return item
    small: list[JSONReadable] = []
    for call in as_list(item.message.get("tool_calls")):
        function = call.get("function") if isinstance(call, Mapping) else None
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        if isinstance(call, Mapping) and isinstance(function, Mapping) and isinstance(arguments, str):
            small.append({**call, "function": {**function, "arguments": cut_arguments(arguments, OLD_ARGUMENT_CHARS)}})
        else:
            small.append(call)
    return UnreadMessage({**item.message, "tool_calls": [to_value(call) for call in small]})
