"""What the ``/`` and ``@`` pickers read of the MCP servers: their prompts,
resources and resource templates, and the servers' completion of an
argument's value.

A Protocol of the pickers' own, shaped like the engine's catalogue
(``McpEngine.prompts()``, ``resources()``, ``templates()``, ``complete()``)
so the input box can be tested with a fake and the window stays importable
before the MCP engine is (start-up: the window shows first). The item
Protocols are read-only views the engine's frozen records satisfy as they
are; :mod:`desktop_agent.ui.chat.engine_mentions` adapts the running engine,
which a reload replaces, so it is looked up on every call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol


class PromptArgumentEntry(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def required(self) -> bool: ...


class PromptEntry(Protocol):
    """A server's prompt, typed as :attr:`command` (``/mcp__SERVER__NAME``)."""

    @property
    def server(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str | None: ...

    @property
    def description(self) -> str: ...

    @property
    def arguments(self) -> Sequence[PromptArgumentEntry]: ...

    @property
    def command(self) -> str: ...


class ResourceEntry(Protocol):
    """A resource the server lists, attached as ``@SERVER:URI``."""

    @property
    def server(self) -> str: ...

    @property
    def uri(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str | None: ...

    @property
    def description(self) -> str: ...


class TemplateEntry(Protocol):
    """A family of resources: each of :attr:`variables` is asked, then :meth:`expand`."""

    @property
    def server(self) -> str: ...

    @property
    def uri_template(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str | None: ...

    @property
    def description(self) -> str: ...

    @property
    def variables(self) -> Sequence[str]: ...

    def expand(self, values: Mapping[str, str]) -> str: ...


class MentionSource(Protocol):
    """Every ready server's lists (never waits) and their completions."""

    def prompts(self) -> Sequence[PromptEntry]: ...

    def resources(self) -> Sequence[ResourceEntry]: ...

    def templates(self) -> Sequence[TemplateEntry]: ...

    async def complete(
        self, server: str, ref: PromptEntry | TemplateEntry, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        """The server's suggestions for ``argument`` starting from ``value``
        (``context``: the other arguments given so far); [] when it offers none."""
        ...


class NoMentions:
    """No MCP servers: the pickers list only the app's commands and skills."""

    def prompts(self) -> Sequence[PromptEntry]:
        return ()

    def resources(self) -> Sequence[ResourceEntry]:
        return ()

    def templates(self) -> Sequence[TemplateEntry]:
        return ()

    async def complete(
        self, server: str, ref: PromptEntry | TemplateEntry, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        return []
