"""The wire normalizer (contracts §2a): every request passes :func:`normalize`
just before it is sent, so that strict servers accept it.

The app keeps its history canonical (its own layout): temporary prompts
as system messages at the end, the planning reply and its continuation as
two assistant messages, ``_hook`` keys, tool arguments as the model sent
them. Real servers refuse most of that: Qwen3.5
templates say "System message must be at the beginning.", Mistral and Gemma
templates "Conversation roles must alternate user/assistant/user/
assistant/...", llama.cpp "Cannot have 2 or more assistant messages at the
end of the list", vLLM runs ``json.loads`` on every replayed
``function.arguments``. Whatever it is given, :func:`normalize` returns
messages where

1. there is at most one system message, at index 0 (none under the strict
   profile); system messages before or among the conversation (main
   prompt, skills catalogue, system-role hooks) are joined into it, and
   trailing ones (the temporary planning / continuation prompts) are
   appended to the last user message, marked as an instruction — at the
   end, where the model sees them as clearly as before, and outside the
   system message, so the prompt prefix (and the server's prompt cache)
   stays the same from one round to the next;
2. the conversation starts with a user message, user and assistant
   alternate (runs are merged, texts joined by a blank line), and tool
   messages directly follow the assistant message whose ``tool_calls``
   they answer, each id exactly once, in call order (unanswered calls and
   stray answers are dropped; a user message after a tool message gets a
   short assistant bridge, since mistral-common refuses "Unexpected role
   'user' after role 'tool'"); the last message is user or tool;
3. only the keys ``role``, ``content``, ``tool_calls``, ``tool_call_id``,
   ``name`` are sent (``_hook`` and any other key are stripped); a user
   message's images (:data:`IMAGES_KEY`, an MCP resource or prompt's) make
   its content a list: its text part, then its ``image_url`` parts (merged
   user messages keep all of them);
4. every ``function.arguments`` is the text of a JSON object: invalid JSON,
   JSON that is not an object, or one nested deeper than tool arguments may
   be (:data:`~desktop_agent.core.json_depth.MAX_ARGUMENT_DEPTH`), is
   replayed as ``"{}"`` and the start of the original text is kept in that
   call's tool message; call ids are nine letters or
   digits (what Mistral's template and mistral-common demand; every other
   server takes any id), derived from the original id so they are stable
   from one request to the next;
5. text keeps its exact characters.

The canonical list is never changed.

The agent's working list is typed (``core/working_items.py``: the history
items and its own instructions); its messages are made here
(:func:`history_messages`, with :func:`assistant_tool_calls`,
:func:`tool_message`, :func:`hook_message`) at the moment a request is
sent: their JSON form on the way to the LLM lives in this module alone (on
disk, it is ``storage/history_json.py``'s).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, NoReturn, TypeAlias, assert_never, get_args

from desktop_agent.core.history_items import (
    AssistantMessage,
    ToolAnswer,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import HOOK_KEY, ONCE_KEY, HookNote
from desktop_agent.core.json_depth import MAX_ARGUMENT_DEPTH, nests_deeper_than
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONReadable, JSONValue, as_list, as_object
from desktop_agent.core.prompts import CONTINUE_MESSAGE
from desktop_agent.core.working_items import Instruction, WorkingItem

log = logging.getLogger(__name__)

WireMessage: TypeAlias = dict[str, JSONReadable]
"""A message of the wire form: a new dict (its keys are the normalizer's to
set) whose values may be the input's own, only read (tool calls, texts)."""

WireProfileName = Literal["standard", "planning_without_tools", "strict"]
WIRE_PROFILE_NAMES: tuple[str, ...] = get_args(WireProfileName)


@dataclass(frozen=True, slots=True)
class WireProfile:
    """How much of the OpenAI message format an endpoint's chat template
    understands. Both profiles keep every rule of the module docstring."""

    name: WireProfileName
    system_role: bool
    """False: no system message at all; its text leads the first user
    message, the way Gemma's own template folds it ("System role not
    supported" otherwise)."""
    native_tool_history: bool
    """False: earlier tool calls are replayed as text (the assistant says
    what it called, the result comes back as a user message), for templates
    with no tool role (Gemma) and servers that refuse tool messages in a
    request without ``tools`` (Bedrock). New calls still arrive natively."""
    planning_tools: bool = True
    """True: a round that must not call tools (planning, continuation) still
    carries the turn's ``tools``, with ``tool_choice: "none"``, so that its
    prompt prefix is the tool round's and a local server reuses its prompt
    cache. False: such a round is sent without tools (for servers that
    refuse ``tool_choice: "none"``, or tools the request does not use)."""


STANDARD = WireProfile("standard", system_role=True, native_tool_history=True)
PLANNING_WITHOUT_TOOLS = WireProfile(
    "planning_without_tools", system_role=True, native_tool_history=True, planning_tools=False
)
"""The standard profile, but rounds that must not call tools go without
them: what the provider retries with when such a request is refused."""
STRICT = WireProfile("strict", system_role=False, native_tool_history=False, planning_tools=False)
"""The strictest profile: what the provider retries with after a 400 that
names roles, system messages or tools (see ``llm/errors.py``)."""

_PROFILES: dict[str, WireProfile] = {p.name: p for p in (STANDARD, PLANNING_WITHOUT_TOOLS, STRICT)}

INSTRUCTION_LABEL = "[system instruction]"
"""Heads a trailing system prompt appended to the last user message."""
TOOL_BRIDGE = "[tool results received]"
"""The assistant message put between a tool result and a user message."""
CALL_AS_TEXT = "[called {name} with {arguments}]"
RESULT_AS_TEXT = "[result of {name}]\n{content}"
ARGUMENTS_NOTE = "[the arguments of this call were not a JSON object; the model sent: {raw}]"
RAW_ARGUMENTS_MAX = 300
"""Characters of such arguments the note quotes."""

_WIRE_ID = re.compile(r"[A-Za-z0-9]{9}")
_ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ROLES = frozenset({"system", "user", "assistant", "tool"})


TOOL_ERROR_PREFIX = "Error: "
"""Marks a failed call's result (``is_error``) in its tool message, so the
model can tell a failure from a result (contracts §8)."""


TextRole = Literal["system", "user", "assistant"]

IMAGES_KEY = "_images"
"""A history user message's images, as OpenAI ``image_url`` parts: kept
beside its text so everything that reads a message's ``content`` reads
text; :func:`normalize` makes them the content's parts (the one place a
message's content is sent as a list)."""


def text_message(role: TextRole, content: str | None) -> JSONObject:
    """A system, user or assistant message of text: the one place it is built."""
    return {"role": role, "content": content}


TYPED_KEY = "_typed"
"""A history user message whose text was expanded (its MCP mentions,
contracts §10): what the user typed, for Edit and Regenerate. Never sent."""


def user_message(text: str, images: Iterable[tuple[str, bytes]] = (), *, typed: str | None = None) -> JSONObject:
    """The user's message: its text, and its images ((MIME type, bytes)) as
    ``image_url`` parts under :data:`IMAGES_KEY` (none: a plain text message);
    ``typed``: the words it was expanded from (:data:`TYPED_KEY`)."""
    message = text_message("user", text)
    if typed is not None and typed != text:
        message[TYPED_KEY] = typed
    parts: list[JSONValue] = [
        {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode()}"}}
        for mime, data in images
    ]
    if parts:
        message[IMAGES_KEY] = parts
    return message


def assistant_tool_calls(
    content: str | None, calls: Iterable[tuple[str | None, str, str]]
) -> JSONObject:
    """The assistant message that carries ``tool_calls``: the one place it
    is built. ``calls``: (id, name, arguments as JSON text); a None id only
    comes from test scripts of a server that omits it."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in calls
        ],
    }


def tool_answer(text: str, *, is_error: bool | None) -> str:
    """A result's text as its tool message carries it: failures marked with
    :data:`TOOL_ERROR_PREFIX` (once: texts that already say "Error:" keep
    their own wording)."""
    if not is_error or text.startswith(TOOL_ERROR_PREFIX.strip()):
        return text
    return f"{TOOL_ERROR_PREFIX}{text or 'the tool failed without a message'}"


def tool_message(call_id: str, text: str, *, is_error: bool | None = False) -> JSONObject:
    """The ``tool`` message that answers one call: the one place it is built."""
    return {"role": "tool", "tool_call_id": call_id, "content": tool_answer(text, is_error=is_error)}


def hook_message(note: HookNote) -> JSONObject:
    """A hook note as a message: the one place its marker key
    (:data:`~desktop_agent.core.hooks.HOOK_KEY` or ``ONCE_KEY``) is written
    on the way to the LLM (:func:`normalize` strips it)."""
    return {"role": note.role, "content": note.content, HOOK_KEY if note.persistent else ONCE_KEY: note.names}


def history_message(item: WorkingItem) -> JSONMapping:
    """One history or working item as the message it is on the way to the
    LLM (what :func:`normalize` then makes the wire form of)."""
    match item:
        case Instruction():
            return text_message("system", item.content)
        case UserMessage():
            return user_message(item.content, ((i.mime, i.data) for i in item.images), typed=item.typed)
        case AssistantMessage() if item.tool_calls:
            return assistant_tool_calls(item.content, ((c.id, c.name, c.arguments) for c in item.tool_calls))
        case AssistantMessage():
            return text_message("assistant", item.content)
        case ToolAnswer():
            return tool_message(item.call_id, item.content)
        case HookNote():
            return hook_message(item)
        case UnreadMessage():
            return item.message
        case _:
            assert_never(item)


def history_messages(items: Iterable[WorkingItem]) -> list[JSONMapping]:
    """The items as messages (:func:`history_message`): what a request
    sends, made when it is sent."""
    return [history_message(item) for item in items]


def profile_named(name: str | None) -> WireProfile:
    """The profile called ``name``; the standard one for None or an unknown name."""
    return _PROFILES.get(name or "", STANDARD)


def normalize(messages: Sequence[JSONMapping], profile: WireProfile = STANDARD) -> list[WireMessage]:
    """The wire form of ``messages`` (see the module docstring)."""
    head, body, tail = _split_system(m for m in map(_clean, messages) if m is not None)
    body = _pair_tool_calls(body)
    if not profile.native_tool_history:
        body = _tool_history_as_text(body)
    body = _merge_runs(body)
    _place_tail(body, head, tail)
    body = _bridge(body)
    return [_with_images(m) for m in _with_system(head, body, profile)]


# ------------------------------------------------------------------ steps


def _clean(message: JSONMapping) -> WireMessage | None:
    """A copy with only the wire keys; None for a role no server knows."""
    role = message.get("role")
    role = "system" if role == "developer" else role
    if role not in _ROLES:
        log.debug("wire: dropped a message with role %r", role)
        return None
    content = _text(message.get("content"))
    out: WireMessage = {"role": role, "content": content if content is not None or role == "assistant" else ""}
    name = message.get("name")
    if role in ("user", "assistant") and isinstance(name, str) and name:
        out["name"] = name
    calls = message.get("tool_calls")
    if role == "assistant" and isinstance(calls, list) and calls:
        out["tool_calls"] = calls
    if role == "tool":
        out["tool_call_id"] = str(message.get("tool_call_id") or "")
    if role == "user":
        images = _images(message)
        if images:
            out[IMAGES_KEY] = images
    return out


def _images(message: JSONMapping) -> list[JSONReadable]:
    """A user message's image parts: under :data:`IMAGES_KEY`, or in a
    content that is already a list of parts."""
    found: list[JSONReadable] = list(as_list(message.get(IMAGES_KEY)))
    content = message.get("content")
    if isinstance(content, list):
        found.extend(p for p in content if isinstance(p, Mapping) and p.get("type") == "image_url")
    return found


def _with_images(message: WireMessage) -> WireMessage:
    """The last step: a user message's images become its content's parts,
    after its text (rule 3: the private key goes)."""
    images = message.pop(IMAGES_KEY, None)
    if not images:
        return message
    text: JSONReadable = {"type": "text", "text": _content(message) or ""}
    return {**message, "content": [text, *as_list(images)]}


def _text(content: JSONReadable) -> str | None:
    """Content as text: parts of a multi-part content are joined."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return json.dumps(content, ensure_ascii=False) if isinstance(content, Mapping) else str(content)


def _split_system(messages: Iterable[WireMessage]) -> tuple[list[str], list[WireMessage], list[str]]:
    """(texts for the leading system message, the conversation, trailing
    system texts). A system message after the last other message is
    trailing; every other one (all of them, when there is nothing else)
    joins the leading system message."""
    listed = list(messages)
    last = max((i for i, m in enumerate(listed) if m["role"] != "system"), default=len(listed))
    head: list[str] = []
    tail: list[str] = []
    body: list[WireMessage] = []
    for index, message in enumerate(listed):
        content = _content(message)
        if message["role"] != "system":
            body.append(message)
        elif content:
            (tail if index > last else head).append(content)
    return head, body, tail


@dataclass
class _Ids:
    """Wire ids of one request: nine letters or digits, unique."""

    used: set[str] = field(default_factory=set)

    def wire_id(self, original: str, position: str) -> str:
        if _WIRE_ID.fullmatch(original) and original not in self.used:
            self.used.add(original)
            return original
        seed = original or position
        for salt in range(1000):
            digest = hashlib.sha256(f"{seed}\0{salt}".encode()).digest()
            candidate = "".join(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in digest[:9])
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate
        raise AssertionError("no free tool call id")  # pragma: no cover - 62**9 ids


def _pair_tool_calls(body: list[WireMessage]) -> list[WireMessage]:
    """Each assistant ``tool_calls`` message followed by exactly its answers,
    in call order, with wire ids and JSON-object arguments."""
    ids = _Ids()
    out: list[WireMessage] = []
    index = 0
    while index < len(body):
        message = body[index]
        index += 1
        if message["role"] == "tool":
            log.debug("wire: dropped a tool message that answers no call before it")
            continue
        if "tool_calls" not in message:
            out.append(message)
            continue
        answers: list[WireMessage] = []
        while index < len(body) and body[index]["role"] == "tool":
            answers.append(body[index])
            index += 1
        out.extend(_answered_calls(message, answers, ids, len(out)))
    return out


def _answered_calls(
    message: WireMessage, answers: list[WireMessage], ids: _Ids, position: int
) -> list[WireMessage]:
    calls: list[JSONObject] = []
    replies: list[WireMessage] = []
    unused = list(answers)
    for n, raw in enumerate(as_list(message["tool_calls"])):
        if not isinstance(raw, Mapping):
            continue
        original = str(raw.get("id") or "")
        answer = next((a for a in unused if a["tool_call_id"] == original), None)
        if answer is None:
            log.debug("wire: dropped tool call %r, which has no answer", original)
            continue
        unused.remove(answer)
        function = raw.get("function")
        function = function if isinstance(function, Mapping) else {}
        arguments, raw_arguments = _arguments(function.get("arguments"))
        call_id = ids.wire_id(original, f"{position}.{n}")
        calls.append(
            {
                "id": call_id,
                "type": "function",
                "function": {"name": str(function.get("name") or ""), "arguments": arguments},
            }
        )
        content = _content(answer)
        if raw_arguments is not None:
            content = _join(content, ARGUMENTS_NOTE.format(raw=raw_arguments))
        replies.append({"role": "tool", "tool_call_id": call_id, "content": content})
    head = {k: v for k, v in message.items() if k != "tool_calls"}
    return [{**head, "tool_calls": calls}, *replies] if calls else [head]


def _arguments(raw: JSONReadable) -> tuple[str, str | None]:
    """(JSON-object text to send, the original text when it was not one)."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return "{}", None
    if isinstance(raw, Mapping):
        if nests_deeper_than(raw, MAX_ARGUMENT_DEPTH):
            return "{}", f"an object nested more than {MAX_ARGUMENT_DEPTH} levels deep"
        try:
            return json.dumps(raw, ensure_ascii=False, allow_nan=False), None
        except (TypeError, ValueError):
            return "{}", _short(str(raw))
    text = raw if isinstance(raw, str) else str(raw)
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to parse
        return "{}", _short(text)
    if not isinstance(value, dict) or nests_deeper_than(value, MAX_ARGUMENT_DEPTH):
        # Too deep is refused like invalid JSON: the agent never ran such a
        # call, and a server's recursive parser need not be tried with it.
        return "{}", _short(text)
    return text, None


def _short(raw: str) -> str:
    """The original arguments as the tool message quotes them: their start,
    enough to show the model what it sent (a megabyte of them would be
    sent again with every request of the turn)."""
    return raw if len(raw) <= RAW_ARGUMENTS_MAX else raw[:RAW_ARGUMENTS_MAX] + "…"


def _no_constant(name: str) -> NoReturn:
    """NaN and Infinity are not JSON: servers in Go or Rust refuse them."""
    raise ValueError(name)


def _tool_history_as_text(body: list[WireMessage]) -> list[WireMessage]:
    """The strict profile's replay: calls become assistant text, results
    user messages (merged afterwards with their neighbours)."""
    names: dict[str, str] = {}
    out: list[WireMessage] = []
    for message in body:
        if message["role"] == "tool":
            name = names.get(str(message["tool_call_id"]), "the tool")
            out.append({"role": "user", "content": RESULT_AS_TEXT.format(name=name, content=message["content"])})
            continue
        calls = as_list(message.get("tool_calls"))  # as _answered_calls built them
        if not calls:
            out.append(message)
            continue
        said = [_content(message)]
        for call in map(as_object, calls):
            function = as_object(call["function"])
            names[str(call["id"])] = str(function["name"])
            said.append(CALL_AS_TEXT.format(name=function["name"], arguments=function["arguments"]))
        flat = {k: v for k, v in message.items() if k != "tool_calls"}
        out.append({**flat, "content": _join(*said)})
    return out


def _merge_runs(body: list[WireMessage]) -> list[WireMessage]:
    """Consecutive user messages merged, and consecutive assistant ones
    (text into a following ``tool_calls`` message too); assistant messages
    with nothing visible and no calls dropped."""
    out: list[WireMessage] = []
    for message in body:
        role = message["role"]
        if role == "assistant" and "tool_calls" not in message and not (_content(message) or "").strip():
            continue
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous["role"] == role
            and role in ("user", "assistant")
            and "tool_calls" not in previous
        ):
            merged = {**previous, **message, "content": _join(_content(previous), _content(message))}
            images = [*as_list(previous.get(IMAGES_KEY)), *as_list(message.get(IMAGES_KEY))]
            if images:
                merged[IMAGES_KEY] = images
            if "name" in previous:
                merged["name"] = previous["name"]
            out[-1] = merged
        else:
            out.append(message)
    return out


def _place_tail(body: list[WireMessage], head: list[str], tail: list[str]) -> None:
    """Trailing system texts: appended to a last user message; after a tool
    message (nothing may sit between a result and the reply) into the
    leading system message; otherwise they become the closing user
    message. A conversation that would end with the assistant gets
    :data:`CONTINUE_MESSAGE`."""
    text = "\n\n".join(tail)
    last = body[-1] if body else None
    if last is not None and last["role"] == "user":
        if text:
            last["content"] = _join(_content(last), f"{INSTRUCTION_LABEL}\n{text}")
    elif last is not None and last["role"] == "tool":
        if text:
            head.append(text)
    elif text or body or head:
        body.append({"role": "user", "content": text or CONTINUE_MESSAGE})


def _bridge(body: list[WireMessage]) -> list[WireMessage]:
    """A user message first, and an assistant bridge between a tool result
    and a user message."""
    out: list[WireMessage] = []
    for message in body:
        if out and out[-1]["role"] == "tool" and message["role"] == "user":
            out.append({"role": "assistant", "content": TOOL_BRIDGE})
        out.append(message)
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": CONTINUE_MESSAGE})
    return out


def _with_system(head: list[str], body: list[WireMessage], profile: WireProfile) -> list[WireMessage]:
    text = "\n\n".join(head)
    if not text:
        return body
    if profile.system_role:
        return [{"role": "system", "content": text}, *body]
    first = body[0]  # a user message: _place_tail gave a non-empty head a body
    return [{**first, "content": _join(text, _content(first))}, *body[1:]]


def _content(message: WireMessage) -> str | None:
    """A cleaned message's content: text, or None (an assistant's, with calls)."""
    content = message.get("content")
    return content if isinstance(content, str) else None


def _join(*parts: str | None) -> str | None:
    """Texts joined by a blank line, each kept exactly; when all are empty,
    the first as it was (None stays None for an assistant's content)."""
    kept = [p for p in parts if p]
    return "\n\n".join(kept) if kept else parts[0]
