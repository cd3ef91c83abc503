"""Reading one resource of a running server, for a resource link the user
opens from a tool card.

Interim: the catalogue work (``catalog.py``) brings ``McpEngine.read_resource``
with the same name and the same :class:`ResourceContent` fields; when both
are in one tree this module and the engine method that calls it give way to
those.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import mcp_types as types
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from desktop_agent.core.messages import ImageContent
from desktop_agent.mcp_engine.errors import McpEngineError

MAX_RESOURCE_CHARS = 200_000
"""A resource's text is cut here (said on its last line): a viewer, not a download."""


@dataclass(frozen=True, slots=True)
class ResourceContent:
    server: str
    uri: str
    text: str
    images: tuple[ImageContent, ...] = ()
    truncated: bool = False
    mime_type: str | None = None


async def read(session: ClientSession, server: str, uri: str) -> ResourceContent:
    try:
        result = await session.read_resource(uri)
    except MCPError as exc:
        raise McpEngineError(f'mcp server "{server}" could not read {uri}: {exc}') from None
    return content_of(server, uri, list(result.contents))


def content_of(
    server: str, uri: str, contents: list[types.TextResourceContents | types.BlobResourceContents]
) -> ResourceContent:
    parts: list[str] = []
    images: list[ImageContent] = []
    mime: str | None = None
    for item in contents:
        mime = mime or item.mime_type
        if isinstance(item, types.TextResourceContents):
            parts.append(item.text)
            continue
        data = _b64(item.blob)
        kind = item.mime_type or "application/octet-stream"
        if kind.startswith("image/"):
            images.append(ImageContent(mime=kind, data=data))
        elif kind.startswith("text/"):
            parts.append(data.decode("utf-8", errors="replace"))
        else:
            parts.append(f"[binary resource: {item.uri}, {kind}, {len(data)} bytes]")
    text = "\n".join(parts)
    truncated = len(text) > MAX_RESOURCE_CHARS
    if truncated:
        text = text[:MAX_RESOURCE_CHARS]
    return ResourceContent(server, uri, text, tuple(images), truncated, mime)


def _b64(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return data.encode()
