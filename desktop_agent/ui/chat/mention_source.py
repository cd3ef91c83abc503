"""What the ``/`` and ``@`` pickers read of the MCP servers: their prompts,
resources and resource templates, and the servers' completion of an
argument's value.

A Protocol of the pickers' own, shaped like the engine's catalogue
(``McpEngine.prompts()``, ``resources()``, ``templates()``, ``complete()``)
so the input box can be tested with a fake. The items are the engine's own
frozen records (:mod:`desktop_agent.mcp_engine.catalog`), named for type
checking only: the window never imports the MCP engine at start-up (it shows
first). :mod:`desktop_agent.ui.chat.engine_mentions` adapts the running
engine, which a reload replaces, so it is looked up on every call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop_agent.mcp_engine.catalog import PromptInfo, ResourceInfo, TemplateInfo


class MentionSource(Protocol):
    """Every ready server's lists (never waits) and their completions."""

    def prompts(self) -> Sequence[PromptInfo]: ...

    def resources(self) -> Sequence[ResourceInfo]: ...

    def templates(self) -> Sequence[TemplateInfo]: ...

    async def complete(
        self, server: str, ref: PromptInfo | TemplateInfo, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        """The server's suggestions for ``argument`` starting from ``value``
        (``context``: the other arguments given so far); [] when it offers none."""
        ...


class NoMentions:
    """No MCP servers: the pickers list only the app's commands and skills."""

    def prompts(self) -> Sequence[PromptInfo]:
        return ()

    def resources(self) -> Sequence[ResourceInfo]:
        return ()

    def templates(self) -> Sequence[TemplateInfo]:
        return ()

    async def complete(
        self, server: str, ref: PromptInfo | TemplateInfo, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        return []
