"""A user message's MCP mentions made into what the model reads
(``docs/contracts.md`` §10, "MCP in a user message").

:func:`expand_message` parses the message (``core/mentions.py``), checks a
prompt command against the server's listed prompt (its name, unknown
argument names, missing required ones) before anything is sent, then gets
the prompt and reads each resource. Every failure is one
:class:`~desktop_agent.core.mentions.MentionError` line and nothing reaches
the model: the window keeps the text in its input, the headless mode exits
with that line.

The model's text: the prompt's messages (or, without a command, the user's
own words), then each resource's text in a fenced block whose info string
is its URI. Images from either come along as images.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_agent.core.mentions import (
    Attachment,
    ExpandedMessage,
    MentionError,
    PromptCall,
    parse_mentions,
)
from desktop_agent.core.messages import ImageContent
from desktop_agent.mcp_engine.catalog import McpCatalogError, PromptInfo, fenced

if TYPE_CHECKING:
    from desktop_agent.mcp_engine.engine import McpEngine


async def expand_message(
    engine: McpEngine, text: str, *, conversation_id: str | None = None
) -> ExpandedMessage | None:
    """The expanded message; None when ``text`` mentions nothing (it goes as
    typed). Raises :class:`MentionError` with the line to show."""
    servers = [s.name for s in engine.statuses()]
    mentions = parse_mentions(text, servers)
    if not mentions:
        return None
    parts: list[str] = []
    images: list[ImageContent] = []
    attachments: list[Attachment] = []
    try:
        if mentions.prompt is not None:
            call = mentions.prompt
            check_arguments(_prompt_info(engine, call), call)
            prompt = await engine.get_prompt(
                call.server, call.name, dict(call.arguments), conversation_id=conversation_id
            )
            parts.append(prompt.text)
            images.extend(prompt.images)
            attachments.append(Attachment("prompt", call.server, call.name))
        else:
            parts.append(text.strip())
        for ref in mentions.resources:
            content = await engine.read_resource(ref.server, ref.uri, conversation_id=conversation_id)
            parts.append(fenced(ref.uri, content.text))
            images.extend(content.images)
            attachments.append(Attachment("resource", ref.server, ref.uri, content.truncated))
    except McpCatalogError as exc:
        raise MentionError(str(exc)) from exc
    return ExpandedMessage("\n\n".join(p for p in parts if p), tuple(images), tuple(attachments))


def _prompt_info(engine: McpEngine, call: PromptCall) -> PromptInfo:
    status = next(s for s in engine.statuses() if s.name == call.server)
    if status.state != "ready":
        raise MentionError(
            f'{call.command}: mcp server "{call.server}" is {_state_words(status.state)}',
            f"mention_server_{status.state}" if status.state in _STATES else None,
            command=call.command, server=call.server,
        )
    info = next((p for p in engine.catalog_of(call.server).prompts if p.name == call.name), None)
    if info is None:
        raise MentionError(
            f'{call.command}: mcp server "{call.server}" has no prompt "{call.name}"', "mention_no_prompt",
            command=call.command, server=call.server, name=call.name,
        )
    return info


def check_arguments(info: PromptInfo, call: PromptCall) -> None:
    """Unknown or repeated names and missing required arguments, before any request."""
    known = [a.name for a in info.arguments]
    given = [key for key, _ in call.arguments]
    unknown = [key for key in given if key not in known]
    if unknown:
        offered = ", ".join(known) if known else "none"
        raise MentionError(
            f'{call.command}: no argument "{unknown[0]}" (its arguments: {offered})',
            "mention_unknown_argument" if known else "mention_unknown_argument_none",
            command=call.command, name=unknown[0], offered=offered,
        )
    repeated = [key for index, key in enumerate(given) if key in given[:index]]
    if repeated:
        raise MentionError(
            f'{call.command}: "{repeated[0]}" is given twice', "mention_repeated", command=call.command, name=repeated[0]
        )
    missing = [a.name for a in info.arguments if a.required and a.name not in given]
    if missing:
        needed = " ".join(f"{name}=…" for name in missing)
        raise MentionError(f"{call.command}: missing {needed}", "mention_missing", command=call.command, needed=needed)


_STATES = ("starting", "stopped", "failed", "disabled")
"""The states a ``mention_server_<state>`` UI text words."""


def _state_words(state: str) -> str:
    return {
        "starting": "still starting",
        "stopped": "not running",
        "failed": "not running (it failed to start)",
        "disabled": "disabled",
    }.get(state, state)
