"""The MCP servers as the composition root hands them to the window: their
states (the status bar), a failed one's retry, and, where the servers file
can be changed without a restart, that file and the reload (Settings →
Tools). The window without this feature shows no servers. Type-only
imports: the window imports this before it shows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from desktop_agent.core.mentions import ExpandedMessage
    from desktop_agent.mcp_engine import Readiness, ServerStatus
    from desktop_agent.mcp_engine.catalog import ResourceContent
    from desktop_agent.mcp_engine.oauth import SignInState
    from desktop_agent.mcp_engine.server_log import LogLine
    from desktop_agent.ui.chat.mention_source import MentionSource

    ReadResource = Callable[[str, str], Awaitable[ResourceContent]]
    """(server, uri) → the resource as read."""
    from desktop_agent.ui.settings.tools_page import McpControl


def _no_retry(_name: str) -> bool:
    return False


def _all_ready() -> Readiness:
    from desktop_agent.mcp_engine import Readiness

    return Readiness()


@dataclass(frozen=True)
class McpFeature:
    statuses: Callable[[], Iterable[ServerStatus]]
    """Each MCP server's state."""
    retry: Callable[[str], bool] = _no_retry
    """Start a failed MCP server again (its status item's Retry)."""
    before_turn: Callable[[], Readiness] = _all_ready
    """Asked as a turn starts: the servers it goes without (still starting,
    or failed and now retried in the background); never waits
    (``Services.before_turn``)."""
    expand: Callable[[str, str | None], Awaitable[ExpandedMessage | None]] | None = None
    """A message's MCP prompt command and resource mentions expanded
    before its turn (``Services.expand_message``; raises ``MentionError``);
    None: messages go as typed."""
    servers_file: Callable[[], Path] | None = None
    """The MCP servers file in use (Settings → Tools edits it)."""
    reload: Callable[[], Awaitable[None]] | None = None
    """Run what the servers file says now, without a restart
    (``Services.reload_mcp``); None: the Tools page cannot change servers."""
    mentions: MentionSource | None = None
    """The servers' prompts, resources and completions for the input's ``/``
    and ``@`` lists (reading whichever engine runs now); None: none listed."""
    sign_ins: Callable[[], Mapping[str, SignInState]] | None = None
    """Each remote server's sign-in; None: the Tools page shows none."""
    sign_in: Callable[[str], Awaitable[str | None]] | None = None
    """Sign in to a remote server (the browser opens), then restart it."""
    sign_out: Callable[[str], Awaitable[None]] | None = None
    logs: Callable[[str], Sequence[LogLine]] = lambda _name: ()
    """A server's MCP log messages (``McpEngine.server_logs``; Tools → Log…)."""
    read_resource: ReadResource | None = None
    """Read a server's resource (``McpEngine.read_resource``): a tool card's link, opened."""

    def control(self) -> McpControl | None:
        """The Tools page's hold on the servers, when they can be changed."""
        if self.servers_file is None or self.reload is None:
            return None
        from desktop_agent.ui.settings.tools_page import McpControl

        return McpControl(
            self.servers_file(), self.statuses, self.reload,
            sign_ins=self.sign_ins, sign_in=self.sign_in, sign_out=self.sign_out, logs=self.logs,
        )


__all__ = ["McpFeature"]
