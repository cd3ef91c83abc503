"""The headless mode's MCP prompts and resources (contracts §10):
``--list-prompts`` / ``--list-resources``, and a message's ``/mcp__…``
command and ``@server:uri`` mentions expanded before its turn.

A resource cut to size is a ``notice:`` line (the model is told too). A
message that cannot be expanded is one ``error:`` line on stderr and no
request: ``--prompt`` then exits with the configuration status (2), the
interactive loop asks for the next line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from desktop_agent.core.mentions import ExpandedMessage, MentionError
from desktop_agent.mcp_engine.catalog import MAX_RESOURCE_CHARS

if TYPE_CHECKING:
    from desktop_agent.mcp_engine import McpEngine
    from desktop_agent.services import Services

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Unexpandable:
    """The message could not be expanded (the line is already said)."""

    line: str


def write_catalog(engine: McpEngine | None, out: IO[str], *, prompts: bool, resources: bool) -> None:
    """One line per prompt (``server<TAB>name<TAB>description``) and per
    resource and template (``server<TAB>uri<TAB>name``), servers in file
    order; tabs and line breaks inside a field become spaces."""
    if engine is not None:
        if prompts:
            for prompt in engine.prompts():
                _row(out, prompt.server, prompt.name, prompt.description)
        if resources:
            for resource in engine.resources():
                _row(out, resource.server, resource.uri, resource.name)
            for template in engine.templates():
                _row(out, template.server, template.uri_template, template.name)
    out.flush()


def _row(out: IO[str], *fields: str) -> None:
    out.write("\t".join(_SPACE.sub(" ", f).strip() for f in fields) + "\n")


async def expand_or_say(
    services: Services, text: str, conversation_id: str, err: IO[str]
) -> ExpandedMessage | Unexpandable | None:
    """The expanded message, None when it mentions nothing, or
    :class:`Unexpandable` once its line is on ``err``."""
    try:
        expanded = await services.expand_message(text, conversation_id)
    except MentionError as exc:
        line = f"error: {exc}"
        err.write(line + "\n")
        err.flush()
        return Unexpandable(line)
    for attachment in expanded.attachments if expanded is not None else ():
        if attachment.truncated:
            err.write(
                f'notice: mcp server "{attachment.server}": resource "{attachment.name}" is too long; '
                f"only its first {MAX_RESOURCE_CHARS:,} characters were attached\n"
            )
            err.flush()
    return expanded


__all__ = ["Unexpandable", "expand_or_say", "write_catalog"]
