"""Turning an MCP ``CallToolResult`` into the core's :class:`ToolResult`.

Why placeholders: a screenshot is hundreds of kilobytes of base64, which would
fill the model's context and cost money for nothing the model can read as
text. The model sees ``[image: image/png, 91 bytes]``; the bytes stay in
``ToolResult.images`` for the UI's tool card (contracts §8).

Structured content (a tool with an ``outputSchema``) and resource links or
embedded resources go to the card too (``ToolResult.structured`` and
``.resources``): the model keeps reading the text, which the spec asks a
server to send beside its structured content, and a line per resource.
"""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types as types

from desktop_agent.core.json_types import JSONValue
from desktop_agent.core.messages import ImageContent, ResourceRef
from desktop_agent.core.ports import ToolResult


def to_tool_result(result: types.CallToolResult, *, server: str, tool: str) -> ToolResult:
    """Text as is, media as placeholders; ``is_error`` keeps the server's own message."""
    parts: list[str] = []
    images: list[ImageContent] = []
    resources: list[ResourceRef] = []
    for block in result.content:
        text = media_text(block, images)
        if text is not None:
            parts.append(text)
        if isinstance(block, types.ResourceLink):
            resources.append(
                ResourceRef(str(block.uri), block.title or block.name, block.mime_type, block.description or "")
            )
        elif isinstance(block, types.EmbeddedResource):
            parts.append(_embedded(block))
            resources.append(_embedded_ref(block))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(parts)
    if result.is_error and not text.strip():
        text = f'tool "{tool}" of mcp server "{server}" failed without a message'
    return ToolResult(
        text=text,
        is_error=bool(result.is_error),
        images=tuple(images),
        structured=_structured(result.structured_content, text),
        resources=tuple(resources),
    )


def media_text(block: types.ContentBlock, images: list[ImageContent]) -> str | None:
    """What the model reads of one content block (a tool's result, a
    prompt's message): text as is, media as placeholders, an image's bytes
    added to ``images``; None for an embedded resource, which each caller
    shows its own way."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        data = decode_b64(block.data)
        images.append(ImageContent(mime=block.mime_type, data=data))
        return f"[image: {block.mime_type}, {len(data)} bytes]"
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {len(decode_b64(block.data))} bytes]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link: {block.name} {block.uri}]"
    return None


def _structured(content: object, text: str) -> JSONValue | None:
    """A JSON copy the bus can carry, or None: for a value JSON cannot hold
    (dropped, not raised), and for the SDKs' wrapping of a plain return value
    (``{"result": "4735"}`` beside the text ``4735``), which would only
    repeat the text as a one-row table."""
    if content is None:
        return None
    if isinstance(content, dict) and list(content) == ["result"]:
        inner = content["result"]
        if (inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)) == text:
            return None
    try:
        value: JSONValue = json.loads(json.dumps(content, ensure_ascii=False))
    except (TypeError, ValueError):
        return None
    return value


def _embedded_ref(block: types.EmbeddedResource) -> ResourceRef:
    resource = block.resource
    uri = str(resource.uri)
    name = uri.rsplit("/", 1)[-1] or uri
    if isinstance(resource, types.TextResourceContents):
        return ResourceRef(uri, name, resource.mime_type, text=resource.text)
    return ResourceRef(uri, name, resource.mime_type, size=len(decode_b64(resource.blob)))


def _embedded(block: types.EmbeddedResource) -> str:
    resource = block.resource
    if isinstance(resource, types.TextResourceContents):
        return resource.text
    mime = resource.mime_type or "application/octet-stream"
    return f"[resource: {resource.uri}, {mime}, {len(decode_b64(resource.blob))} bytes]"


def decode_b64(data: str) -> bytes:
    """A base64 field's bytes; a server that sent them unencoded is taken at its word."""
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return data.encode()
