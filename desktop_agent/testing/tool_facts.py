"""Stand-ins for what the services tell the window (``WindowDeps.key``,
``WindowDeps.tool_facts``), for window and turn-logic tests that run without
services: a fixed key, and tool facts from a table and a router."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.storage.secrets import KeyStorage


@dataclass(frozen=True)
class FixedKey:
    """A stored key that is always ``key`` (None: none stored)."""

    key: str | None
    where: KeyStorage | str = ""

    def api_key(self) -> str | None:
        return self.key

    def note(self) -> KeyStorage | str:
        return self.where


@dataclass(frozen=True)
class ToolFactsTable:
    """Tools' servers from a table (others built in), their risk from a
    router's tools (as the app's come from its router); no saved bare name
    is certain."""

    servers: Mapping[str, str] = field(default_factory=dict)
    router: ToolRouter | None = None

    def server(self, tool_name: str) -> str | None:
        return self.servers.get(tool_name)

    def annotations(self, tool_name: str) -> ToolAnnotations | None:
        return self.router.annotations(tool_name) if self.router is not None else None

    def allow_key(self, tool_name: str) -> str | None:
        return None
