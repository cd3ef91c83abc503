"""ApprovalManager (contracts §4): pending approvals as asyncio Events.

``register`` is synchronous so that it happens in the same loop frame as the
chunk that asks for approval: ``cancel_session`` can never sweep past a
half-registered approval. ``cancel_session`` sets *and pops* every pending
event, so an entry registered but not yet waited on cannot leak.

Every outcome is decided here — :meth:`respond` (with who answered), a
timeout in :meth:`wait`, :meth:`cancel_session` — so this is where the
approval audit (``core/audit.py``) is written: the first decision
of each approval is recorded once, whichever front end or sub-agent asked.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from desktop_agent.core.audit import (
    ApprovalRecord,
    ApprovalRequest,
    AuditSink,
    Decider,
    Decision,
    arguments_preview,
    arguments_sha256,
    timestamp,
)
from desktop_agent.core.command_risk import RUN_COMMAND
from desktop_agent.core.command_rules import offered_prefix, rule_key, rules_allow, rules_in
from desktop_agent.core.json_types import JSONMapping
from desktop_agent.core.risk import AutoDecider, ToolAnnotations, read_only_trusted
from desktop_agent.core.timers import Timers, wait_set


@dataclass
class _Pending:
    session_id: str
    request: ApprovalRequest | None
    asked_at: float
    event: asyncio.Event = field(default_factory=asyncio.Event)
    approved: bool = False
    shown: asyncio.Event = field(default_factory=asyncio.Event)
    """The user can see the request now (its card is on screen)."""
    decided: bool = False
    """Its outcome is recorded; later answers change nothing."""
    decision: Decision | None = None
    keeps_turn: bool = False
    """Refusing it does not end the turn (``register``)."""


def approval_key(session_id: str, task_id: str) -> str:
    return f"{session_id}:{task_id}"


BUILTIN = "builtin"
"""The "server" of the built-in tools in always-allow keys."""


def allow_key(tool_name: str, server: str | None) -> str:
    """The always-allow entry for a tool: ``<server>/<tool>`` for an MCP
    tool, ``builtin/<tool>`` for a built-in one. Keyed by the server too, so
    a second server offering the same name (when the first one failed to
    start) is never approved by the first one's entry. Built-ins win every
    name clash (routing), so an MCP server called ``builtin`` cannot pose as
    one."""
    return f"{server or BUILTIN}/{tool_name}"


def auto_decider(
    tool_name: str,
    server: str | None,
    annotations: ToolAnnotations | None,
    *,
    always_allow: Collection[str],
    trusted_read_only_servers: Collection[str],
) -> AutoDecider | None:
    """Who answers this tool's approval without asking: its
    always-allow entry, or the user's trust in its server's read-only tools;
    None: the user is asked. The approval is still pushed (and carded, and
    audited) either way; nothing here skips it."""
    if allow_key(tool_name, server) in always_allow:
        return "always_allow"
    if read_only_trusted(server, annotations, trusted_read_only_servers):
        return "read_only_setting"
    return None


def call_decider(
    tool_name: str, server: str | None, arguments: JSONMapping | None, *, always_allow: Collection[str]
) -> AutoDecider | None:
    """Who answers one call by its arguments: a built-in ``run_command``
    call every part of whose command the user's command rules cover
    (``core/command_rules.py``) is always-allowed; None: ask."""
    command = _command_of(tool_name, server, arguments)
    if command is None:
        return None
    return "always_allow" if rules_allow(rules_in(always_allow), command) else None


def call_allow_key(tool_name: str, server: str | None, arguments: JSONMapping | None) -> str | None:
    """The always-allow entry a call's "Always allow" box adds: its
    command's rule for ``run_command`` (None when no one rule covers it,
    never the whole tool), else the tool's (:func:`allow_key`)."""
    if tool_name == RUN_COMMAND and server is None:
        command = _command_of(tool_name, server, arguments)
        prefix = offered_prefix(command) if command is not None else None
        return rule_key(prefix) if prefix is not None else None
    return allow_key(tool_name, server)


def _command_of(tool_name: str, server: str | None, arguments: JSONMapping | None) -> str | None:
    if tool_name != RUN_COMMAND or server is not None or not arguments:
        return None
    command = arguments.get("command")
    return command if isinstance(command, str) else None


def split_allow_key(key: str) -> tuple[str | None, str]:
    """``(server, tool)`` of an entry; server None for a bare tool name (an
    entry saved before entries named their server: it approves nothing
    until it is tied to a server)."""
    server, slash, tool = key.partition("/")
    return (server, tool) if slash else (None, key)


class ApprovalManager:
    def __init__(
        self,
        *,
        audit: AuditSink | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        timers: Timers | None = None,
    ) -> None:
        """``audit``: where each decision is recorded (None: nowhere).
        ``clock`` measures the wait, ``wall_clock`` dates the record,
        ``timers`` run the timeouts (None: the running loop's)."""
        self._pending: dict[str, _Pending] = {}
        self.audit = audit
        self._clock = clock
        self._wall_clock = wall_clock
        self._timers = timers

    def register(
        self, session_id: str, task_id: str, request: ApprovalRequest | None = None, *, keeps_turn: bool = False
    ) -> str:
        """``request``: what is asked, for the audit record (None: not recorded).
        ``keeps_turn``: a front end's rejection fails only this request,
        not the turn (a server's sampling request, ``core/nested_call.py``)."""
        key = approval_key(session_id, task_id)
        self._pending[key] = _Pending(session_id, request, self._clock(), keeps_turn=keeps_turn)
        return key

    def keeps_turn(self, key: str) -> bool:
        """Whether rejecting the pending approval ``key`` leaves the turn running."""
        pending = self._pending.get(key)
        return pending is not None and pending.keeps_turn

    def shown(self, key: str) -> None:
        """The request is in front of the user: its timeout starts now (for
        a :meth:`wait` with ``from_shown``)."""
        pending = self._pending.get(key)
        if pending is not None:
            pending.shown.set()

    async def wait(self, key: str, timeout: float = 300.0, *, from_shown: bool = False) -> bool:
        """True when approved; False on rejection, cancel or timeout (see
        :meth:`wait_decision`)."""
        return await self.wait_decision(key, timeout, from_shown=from_shown) == "approved"

    async def wait_decision(self, key: str, timeout: float = 300.0, *, from_shown: bool = False) -> Decision:
        """How the approval ended: approved, rejected, timed out, interrupted.

        ``from_shown``: the timeout counts from :meth:`shown`, not from now —
        the playback queue may still be speaking the sentences before the
        card, and the user cannot answer what is not on screen yet.
        """
        pending = self._pending.get(key)
        if pending is None:
            return "interrupted"
        try:
            if from_shown:
                await _first(pending.shown, pending.event)
            if not await wait_set(pending.event, timeout, self._timers):
                self._decide(pending, "timed_out", "timeout")
                return "timed_out"
        finally:
            if self._pending.get(key) is pending:
                del self._pending[key]
        if pending.approved:
            return "approved"
        decision = pending.decision
        return "interrupted" if decision is None or decision == "approved" else decision

    def respond(self, key: str, approved: bool, *, by: Decider = "user") -> bool:
        """Answer a pending approval; False when there is none under ``key``
        (or it was decided already). ``by``: who answered (the audit)."""
        pending = self._pending.get(key)
        if pending is None or pending.event.is_set() or pending.decided:
            return False
        decision: Decision = "approved" if approved else (
            "interrupted" if by == "interrupt" else "rejected"
        )
        self._decide(pending, decision, by)
        pending.approved = approved
        pending.event.set()
        return True

    def cancel_session(self, session_id: str) -> None:
        prefix = f"{session_id}:"
        for key in [k for k in self._pending if k.startswith(prefix)]:
            pending = self._pending.pop(key)
            if not pending.event.is_set():
                self._decide(pending, "interrupted", "interrupt")
            pending.approved = False
            pending.event.set()

    def pending_keys(self) -> list[str]:
        return list(self._pending)

    def _decide(self, pending: _Pending, decision: Decision, by: Decider) -> None:
        """Record the first decision of ``pending`` (once)."""
        if pending.decided:
            return
        pending.decided = True
        pending.decision = decision
        request = pending.request
        if self.audit is None or request is None:
            return
        self.audit.record(
            ApprovalRecord(
                time=timestamp(self._wall_clock()),
                conversation_id=request.conversation_id,
                session_id=pending.session_id,
                tool_call_id=request.tool_call_id,
                tool_name=request.tool_name,
                server=request.server,
                arguments_preview=arguments_preview(request.arguments),
                arguments_sha256=arguments_sha256(request.arguments),
                decision=decision,
                decided_by=by,
                waited_s=round(max(0.0, self._clock() - pending.asked_at), 3),
                parent_tool_call_ids=request.parents,
                hints=request.hints,
            )
        )


async def _first(*events: asyncio.Event) -> None:
    """Return once any of ``events`` is set."""
    waiters = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()

