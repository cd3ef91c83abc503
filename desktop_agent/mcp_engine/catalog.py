"""What a server offers besides tools: its prompts, resources and resource
templates, as small frozen records the UI and the user-message expansion
read (``docs/contracts.md`` §10, "MCP in a user message").

Why records of our own instead of the SDK's models: the pickers and the
headless listings must not import ``mcp``, and a record that is equal when
nothing changed lets the engine tell listeners only about real changes.

Lists are read when a session opens, and again on the server's
``notifications/prompts/list_changed`` / ``resources/list_changed``
(:mod:`~desktop_agent.mcp_engine.connection` does the reading, here is the
how): each kind only when the server's capabilities offer it, page by page
like the tool list.

Reading a prompt or a resource turns the SDK's result into
:class:`ExpandedPrompt` / :class:`ResourceContent`: text for the model,
images as images, other binary content as a one-line placeholder, and a
resource's text capped at :data:`MAX_RESOURCE_CHARS` (the model is told, and
``truncated`` says so) so one huge file cannot fill the context.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

import mcp_types as types
from mcp import ClientSession

from desktop_agent.core.messages import ImageContent
from desktop_agent.mcp_engine.errors import McpEngineError
from desktop_agent.mcp_engine.results import decode_b64, media_text

MAX_RESOURCE_CHARS = 100_000
"""A resource's text beyond this many characters is cut (and the model told so)."""
MAX_IMAGE_BYTES = 5_000_000
"""A resource's image bigger than this is not attached (a line says so):
it would go with every later request of the conversation."""
_MAX_PAGES = 100
"""A paginator that never ends must not hang a listing."""


class McpCatalogError(McpEngineError):
    """A prompt, resource or completion request failed; ``str()`` is one line
    naming the server and what failed."""


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    description: str
    required: bool


@dataclass(frozen=True, slots=True)
class PromptInfo:
    """A server's prompt, typed by the user as :attr:`command`."""

    server: str
    name: str
    title: str | None
    description: str
    arguments: tuple[PromptArgument, ...]

    @property
    def command(self) -> str:
        return f"/mcp__{self.server}__{self.name}"


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """A resource the server lists, attached as ``@SERVER:URI``."""

    server: str
    uri: str
    name: str
    title: str | None
    description: str
    mime_type: str | None


@dataclass(frozen=True, slots=True)
class TemplateInfo:
    """A family of resources: fill in :attr:`variables` and :meth:`expand`."""

    server: str
    uri_template: str
    name: str
    title: str | None
    description: str
    mime_type: str | None

    @property
    def variables(self) -> tuple[str, ...]:
        """The RFC 6570 variable names in the template, in order, each once."""
        names: list[str] = []
        for _, spec in _expressions(self.uri_template):
            for name, _ in spec:
                if name not in names:
                    names.append(name)
        return tuple(names)

    def expand(self, values: Mapping[str, str]) -> str:
        """The URI with ``values`` filled in (RFC 6570 levels 1-3; a
        variable without a value is left out, as the RFC says)."""
        return _TEMPLATE_EXPR.sub(lambda m: _expand_one(m.group(1), values), self.uri_template)


@dataclass(frozen=True, slots=True)
class ServerCatalog:
    """One server's lists as last read."""

    prompts: tuple[PromptInfo, ...] = ()
    resources: tuple[ResourceInfo, ...] = ()
    templates: tuple[TemplateInfo, ...] = ()
    completions: bool = False
    """The server answers ``completion/complete``."""


EMPTY = ServerCatalog()


@dataclass(frozen=True, slots=True)
class ExpandedPrompt:
    """A prompt's messages, ready to become the user's turn."""

    server: str
    name: str
    text: str
    """Every message's text, joined by blank lines (embedded resources as
    fenced blocks naming their URI, other media as placeholders)."""
    images: tuple[ImageContent, ...] = ()
    description: str = ""


@dataclass(frozen=True, slots=True)
class ResourceContent:
    """A resource as read: its text for the model and its images."""

    server: str
    uri: str
    text: str
    """All text parts joined; cut at :data:`MAX_RESOURCE_CHARS` with a last
    line saying so when :attr:`truncated`."""
    images: tuple[ImageContent, ...] = ()
    truncated: bool = False
    mime_type: str | None = None


# ------------------------------------------------------------------ listing


async def read_catalog(session: ClientSession, server: str) -> ServerCatalog:
    """Every list the server's capabilities offer (nothing it does not)."""
    caps = session.server_capabilities
    if caps is None:
        return EMPTY
    prompts: tuple[PromptInfo, ...] = ()
    resources: tuple[ResourceInfo, ...] = ()
    templates: tuple[TemplateInfo, ...] = ()
    if caps.prompts is not None:
        prompts = await list_prompts(session, server)
    if caps.resources is not None:
        resources = await list_resources(session, server)
        templates = await list_templates(session, server)
    return ServerCatalog(prompts, resources, templates, caps.completions is not None)


async def list_prompts(session: ClientSession, server: str) -> tuple[PromptInfo, ...]:
    found: list[PromptInfo] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await session.list_prompts(params=_page(cursor))
        found.extend(_prompt(server, p) for p in page.prompts)
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(found)


async def list_resources(session: ClientSession, server: str) -> tuple[ResourceInfo, ...]:
    found: list[ResourceInfo] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await session.list_resources(params=_page(cursor))
        found.extend(
            ResourceInfo(server, str(r.uri), r.name, r.title, r.description or "", r.mime_type)
            for r in page.resources
        )
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(found)


async def list_templates(session: ClientSession, server: str) -> tuple[TemplateInfo, ...]:
    found: list[TemplateInfo] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await session.list_resource_templates(params=_page(cursor))
        found.extend(
            TemplateInfo(server, t.uri_template, t.name, t.title, t.description or "", t.mime_type)
            for t in page.resource_templates
        )
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(found)


def _page(cursor: str | None) -> types.PaginatedRequestParams | None:
    return types.PaginatedRequestParams(cursor=cursor) if cursor else None


def _prompt(server: str, prompt: types.Prompt) -> PromptInfo:
    arguments = tuple(
        PromptArgument(a.name, a.description or "", bool(a.required)) for a in prompt.arguments or ()
    )
    return PromptInfo(server, prompt.name, prompt.title, prompt.description or "", arguments)


# --------------------------------------------------------------- conversion


def expanded_prompt(server: str, name: str, result: types.GetPromptResult) -> ExpandedPrompt:
    """The prompt's messages as one user message's text and images."""
    parts: list[str] = []
    images: list[ImageContent] = []
    for message in result.messages:
        block = message.content
        text = media_text(block, images)
        if text is not None:
            parts.append(text)
        elif isinstance(block, types.EmbeddedResource):
            content = resource_content(server, str(block.resource.uri), [block.resource])
            images.extend(content.images)
            parts.append(fenced(content.uri, content.text))
    return ExpandedPrompt(server, name, "\n\n".join(p for p in parts if p), tuple(images), result.description or "")


def resource_content(
    server: str,
    uri: str,
    contents: list[types.TextResourceContents | types.BlobResourceContents],
    limit: int = MAX_RESOURCE_CHARS,
) -> ResourceContent:
    """Text joined and capped at ``limit``; image blobs as images (one over
    :data:`MAX_IMAGE_BYTES` only as a line saying so, and ``truncated``);
    other blobs a placeholder line (a blob whose MIME type is text is
    decoded as text)."""
    parts: list[str] = []
    images: list[ImageContent] = []
    mime: str | None = None
    too_big = False
    for item in contents:
        mime = mime or item.mime_type
        if isinstance(item, types.TextResourceContents):
            parts.append(item.text)
            continue
        data = decode_b64(item.blob)
        kind = item.mime_type or "application/octet-stream"
        if kind.startswith("image/") and len(data) > MAX_IMAGE_BYTES:
            parts.append(f"[image: {kind}, {len(data):,} bytes, not attached: over {MAX_IMAGE_BYTES:,} bytes]")
            too_big = True
        elif kind.startswith("image/"):
            images.append(ImageContent(mime=kind, data=data))
            parts.append(f"[image: {kind}, {len(data)} bytes]")
        elif kind.startswith("text/"):
            parts.append(data.decode("utf-8", errors="replace"))
        else:
            parts.append(f"[binary resource: {item.uri}, {kind}, {len(data)} bytes]")
    text = "\n".join(parts)
    truncated = len(text) > limit
    if truncated:
        text = f"{text[:limit]}\n[truncated: showing the first {limit:,} of {len(text):,} characters]"
    return ResourceContent(server, uri, text, tuple(images), truncated or too_big, mime)


def fenced(uri: str, text: str) -> str:
    """``text`` in a Markdown fence whose info string names ``uri``; the fence
    is longer than any run of backticks inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{uri}\n{text}\n{fence}"


# ----------------------------------------------------------- URI templates

_TEMPLATE_EXPR = re.compile(r"\{([^{}]*)\}")
_OPERATORS = "+#./;?&"
# operator -> (first, separator, named, if-empty, allow reserved)
_RULES: dict[str, tuple[str, str, bool, str, bool]] = {
    "": ("", ",", False, "", False),
    "+": ("", ",", False, "", True),
    "#": ("#", ",", False, "", True),
    ".": (".", ".", False, "", False),
    "/": ("/", "/", False, "", False),
    ";": (";", ";", True, "", False),
    "?": ("?", "&", True, "=", False),
    "&": ("&", "&", True, "=", False),
}


def _expressions(template: str) -> list[tuple[str, list[tuple[str, int | None]]]]:
    found: list[tuple[str, list[tuple[str, int | None]]]] = []
    for match in _TEMPLATE_EXPR.finditer(template):
        found.append(_parse_expression(match.group(1)))
    return found


def _parse_expression(body: str) -> tuple[str, list[tuple[str, int | None]]]:
    op = body[0] if body and body[0] in _OPERATORS else ""
    specs: list[tuple[str, int | None]] = []
    for raw in body[len(op) :].split(","):
        name, _, prefix = raw.partition(":")
        name = name.rstrip("*").strip()
        if name:
            specs.append((name, int(prefix) if prefix.isdigit() else None))
    return op, specs


def _expand_one(body: str, values: Mapping[str, str]) -> str:
    op, specs = _parse_expression(body)
    first, sep, named, if_empty, reserved = _RULES[op]
    safe = ":/?#[]@!$&'()*+,;=" if reserved else ""
    pieces: list[str] = []
    for name, prefix in specs:
        if name not in values:
            continue
        value = values[name][:prefix] if prefix is not None else values[name]
        encoded = quote(value, safe=safe)
        if named:
            pieces.append(f"{name}={encoded}" if value else f"{name}{if_empty}")
        else:
            pieces.append(encoded)
    return first + sep.join(pieces) if pieces else ""
