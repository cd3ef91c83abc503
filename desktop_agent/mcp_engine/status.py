"""What the engine says about its servers: each one's state, and which
servers a turn starting now goes without.

Plain frozen values, so front ends (the status bar, the turn's notice line)
read them without knowing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

StatusState = Literal["starting", "ready", "failed", "stopped", "disabled", "sign_in"]
"""``sign_in``: a remote server that wants the user to sign in (none yet,
or the sign-in expired); it is not retried on its own, but waits for
**Sign in** (:mod:`desktop_agent.mcp_engine.oauth`)."""


@dataclass(frozen=True)
class ServerStatus:
    name: str
    state: StatusState
    tool_count: int = 0
    """How many tools the server offers (its ``disabled_tools`` left out)."""
    error: str | None = None
    """Why it failed, one line naming the server; None unless ``failed``
    (or ``sign_in``: that a sign-in is needed, or why the last one failed)."""
    tools: tuple[str, ...] = ()
    """The names of those tools, in the server's order."""


@dataclass(frozen=True)
class Readiness:
    """The servers whose tools a turn starting now goes without
    (:meth:`~desktop_agent.mcp_engine.engine.McpEngine.before_turn`)."""

    starting: tuple[str, ...] = ()
    """Still starting (the first start, or a retry), with no tools yet."""
    retrying: tuple[str, ...] = ()
    """Failed before offering any tool; a retry has just been started."""

    @property
    def missing(self) -> bool:
        return bool(self.starting or self.retrying)
