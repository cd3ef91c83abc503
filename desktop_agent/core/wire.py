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
items and its own instructions); its messages are made at the moment a
request is sent by ``core/wire_messages.py`` (:func:`history_messages`,
with :func:`assistant_tool_calls`, :func:`tool_message`,
:func:`hook_message`): their JSON form on the way to the LLM lives there
alone (on disk, it is ``storage/history_json.py``'s). The profiles
(:class:`WireProfile`) are ``core/wire_profile.py``'s. Both are importable
from here too, as they always were.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence

from desktop_agent.core.json_types import JSONMapping, JSONReadable, as_list
from desktop_agent.core.prompts import CONTINUE_MESSAGE
from desktop_agent.core.wire_messages import (
    IMAGES_KEY,
    TOOL_ERROR_PREFIX,
    TYPED_KEY,
    TextRole,
    assistant_tool_calls,
    history_message,
    history_messages,
    hook_message,
    text_message,
    tool_answer,
    tool_message,
    user_message,
)
from desktop_agent.core.wire_profile import (
    PLANNING_WITHOUT_TOOLS,
    STANDARD,
    STRICT,
    WIRE_PROFILE_NAMES,
    WireProfile,
    WireProfileName,
    profile_named,
)
from desktop_agent.core.wire_tool_calls import (
    ARGUMENTS_NOTE,
    CALL_AS_TEXT,
    RAW_ARGUMENTS_MAX,
    RESULT_AS_TEXT,
    WireMessage,
    joined,
    message_text,
    pair_tool_calls,
    tool_history_as_text,
)

log = logging.getLogger(__name__)

INSTRUCTION_LABEL = "[system instruction]"
"""Heads a trailing system prompt appended to the last user message."""
TOOL_BRIDGE = "[tool results received]"
"""The assistant message put between a tool result and a user message."""
_ROLES = frozenset({"system", "user", "assistant", "tool"})


def normalize(messages: Sequence[JSONMapping], profile: WireProfile = STANDARD) -> list[WireMessage]:
    """The wire form of ``messages`` (see the module docstring)."""
    head, body, tail = _split_system(m for m in map(_clean, messages) if m is not None)
    body = pair_tool_calls(body)
    if not profile.native_tool_history:
        body = tool_history_as_text(body)
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
    text: JSONReadable = {"type": "text", "text": message_text(message) or ""}
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
        content = message_text(message)
        if message["role"] != "system":
            body.append(message)
        elif content:
            (tail if index > last else head).append(content)
    return head, body, tail


def _merge_runs(body: list[WireMessage]) -> list[WireMessage]:
    """Consecutive user messages merged, and consecutive assistant ones
    (text into a following ``tool_calls`` message too); assistant messages
    with nothing visible and no calls dropped."""
    out: list[WireMessage] = []
    for message in body:
        role = message["role"]
        if role == "assistant" and "tool_calls" not in message and not (message_text(message) or "").strip():
            continue
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous["role"] == role
            and role in ("user", "assistant")
            and "tool_calls" not in previous
        ):
            merged = {**previous, **message, "content": joined(message_text(previous), message_text(message))}
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
            last["content"] = joined(message_text(last), f"{INSTRUCTION_LABEL}\n{text}")
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
    return [{**first, "content": joined(text, message_text(first))}, *body[1:]]




__all__ = [
    "ARGUMENTS_NOTE",
    "CALL_AS_TEXT",
    "IMAGES_KEY",
    "INSTRUCTION_LABEL",
    "PLANNING_WITHOUT_TOOLS",
    "RAW_ARGUMENTS_MAX",
    "RESULT_AS_TEXT",
    "STANDARD",
    "STRICT",
    "TOOL_BRIDGE",
    "TOOL_ERROR_PREFIX",
    "TYPED_KEY",
    "WIRE_PROFILE_NAMES",
    "TextRole",
    "WireMessage",
    "WireProfile",
    "WireProfileName",
    "assistant_tool_calls",
    "history_message",
    "history_messages",
    "hook_message",
    "normalize",
    "profile_named",
    "text_message",
    "tool_answer",
    "tool_message",
    "user_message",
]
