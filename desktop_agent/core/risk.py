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
destructive, never as read-only. So "reaches outside" is said only of a tool
that states ``openWorldHint: true``, never by the spec's default; the
built-in tools run here, and ``run_command`` says it per call (only a line
that uses the network, ``core/command_risk.py``).

``run_command`` can run anything, so its own annotations say the worst;
:func:`call_annotations` reads each call's command instead, so that
``date`` is not as red as ``rm -rf ~``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from desktop_agent.core.command_risk import RUN_COMMAND, classify_command, reaches_outside
from desktop_agent.core.json_types import JSONMapping

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
    def may_change(self) -> bool:
        """It says it changes things but does not delete them: the card is
        cautious, not alarmed (both hints stated, as a run_command call's are)."""
        return self.read_only is False and self.destructive is False

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


def call_annotations(
    tool_name: str, server: str | None, annotations: ToolAnnotations | None, arguments: JSONMapping | None
) -> ToolAnnotations | None:
    """What one call may do: a built-in ``run_command`` call's is read from
    its command (read-only, may change things, destructive; reaching
    outside only when it uses the network); any other tool's are its own."""
    if tool_name != RUN_COMMAND or server is not None or not arguments:
        return annotations
    command = arguments.get("command")
    if not isinstance(command, str) or not command.strip():
        return annotations
    risk = classify_command(command)
    return ToolAnnotations(
        read_only=risk == "read_only",
        destructive=risk == "destructive",
        idempotent=True if risk == "read_only" else None,
        open_world=reaches_outside(command),
    )
