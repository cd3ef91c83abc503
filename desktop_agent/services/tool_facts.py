"""What the running services say of a tool by its name, as one object the
window asks (``WindowDeps.tool_facts``): the server offering it, its risk,
and the always-allow entry a bare saved name stands for. It reads the
services' router and MCP engine at each question, so an engine replaced by
a reload is the one asked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from desktop_agent.core.approval import allow_key
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.mcp_engine import McpEngine


@dataclass(frozen=True)
class RoutedToolFacts:
    """The tool facts of a router and the MCP engine behind it."""

    router: ToolRouter
    engine: Callable[[], McpEngine | None]
    """The MCP engine now (a reload replaces it); None: no MCP."""

    def server(self, tool_name: str) -> str | None:
        """The MCP server offering ``tool_name``; None for a built-in (or
        unknown) tool."""
        routed = self.router.lookup(tool_name)
        return routed.spec.server if routed is not None else None

    def annotations(self, tool_name: str) -> ToolAnnotations | None:
        """What the tool offering ``tool_name`` says of its risk (the cards and auto-approval read it);
        None when it says nothing (or there is no such tool)."""
        return self.router.annotations(tool_name)

    def allow_key(self, tool_name: str) -> str | None:
        """The always-allow entry a bare saved tool name stands for, when
        that is certain: a built-in tool, or an MCP tool while every enabled
        server is up (so the server offering it now is the one that offered
        it when the user allowed it, first server winning as then). None
        otherwise: the entry waits, approving nothing."""
        routed = self.router.lookup(tool_name)
        if routed is None:
            return None
        server = routed.spec.server
        engine = self.engine()
        if server is not None and engine is not None:
            if any(s.state not in ("ready", "disabled") for s in engine.statuses()):
                return None
        return allow_key(tool_name, server)
