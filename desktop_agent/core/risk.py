"""What a tool says about its own risk, and the one rule that lets
an approval be answered without asking.

MCP servers describe their tools with ``ToolAnnotations`` (``readOnlyHint``,
``destructiveHint``, ``idempotentHint``, ``openWorldHint``); built-in tools
declare the same four. They are *claims*: a server can say anything, so
they only ever make a card more careful (red for destructive, a note for
open-world) and grant nothing by themselves. The one thing a claim can
grant, answering a read-only tool's approval without asking, needs the user
to trust that server (``Settings.trusted_read_only_servers``), per server
and revocable.

Only hints the tool states count: the MCP spec's defaults (a tool that says
nothing is presumed destructive and open-world) would paint every card of
every unannotated server red, and a warning on everything warns of nothing.
A tool that claims to be both read-only and destructive is read as
destructive, never as read-only.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

Hint = Literal["read_only", "destructive", "idempotent", "open_world"]

AutoDecider = Literal["always_allow", "read_only_setting", "headless_flag"]
"""Who answers an approval when nobody is asked."""


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """A tool's own account of what it does; None: it does not say."""

    read_only: bool | None = None
    """It does not change its environment (``readOnlyHint``)."""
    destructive: bool | None = None
    """It may delete or overwrite data (``destructiveHint``)."""
    idempotent: bool | None = None
    """Calling it twice with the same arguments does no more than once."""
    open_world: bool | None = None
    """It reaches outside this computer: the web, other services (``openWorldHint``)."""

    @property
    def is_destructive(self) -> bool:
        return self.destructive is True

    @property
    def is_read_only(self) -> bool:
        return self.read_only is True and self.destructive is not True

    @property
    def reaches_outside(self) -> bool:
        return self.open_world is True

    def hints(self) -> tuple[Hint, ...]:
        """The hints that hold, in a fixed order (for the audit record)."""
        held: list[Hint] = []
        if self.is_read_only:
            held.append("read_only")
        if self.is_destructive:
            held.append("destructive")
        if self.idempotent is True:
            held.append("idempotent")
        if self.reaches_outside:
            held.append("open_world")
        return tuple(held)


def read_only_trusted(
    server: str | None, annotations: ToolAnnotations | None, trusted_servers: Collection[str]
) -> bool:
    """Whether the user's setting answers this tool's approval: an MCP tool
    that claims to be read-only, from a server the user trusts for that.
    Built-in tools are never answered this way (they have no server to trust)."""
    return (
        server is not None
        and server in trusted_servers
        and annotations is not None
        and annotations.is_read_only
    )
