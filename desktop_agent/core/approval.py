"""ApprovalManager (seed 000 §4): pending approvals as asyncio Events.

``register`` is synchronous so that it happens in the same loop frame as the
chunk that asks for approval: ``cancel_session`` can never sweep past a
half-registered approval. ``cancel_session`` sets *and pops* every pending
event, so an entry registered but not yet waited on cannot leak.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass
class _Pending:
    event: asyncio.Event = field(default_factory=asyncio.Event)
    approved: bool = False
    shown: asyncio.Event = field(default_factory=asyncio.Event)
    """The user can see the request now (its card is on screen)."""


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


def split_allow_key(key: str) -> tuple[str | None, str]:
    """``(server, tool)`` of an entry; server None for a bare tool name (an
    entry saved before entries named their server: it approves nothing
    until it is tied to a server)."""
    server, slash, tool = key.partition("/")
    return (server, tool) if slash else (None, key)


class ApprovalManager:
    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}

    def register(self, session_id: str, task_id: str) -> str:
        key = approval_key(session_id, task_id)
        self._pending[key] = _Pending()
        return key

    def shown(self, key: str) -> None:
        """The request is in front of the user: its timeout starts now (for
        a :meth:`wait` with ``from_shown``)."""
        pending = self._pending.get(key)
        if pending is not None:
            pending.shown.set()

    async def wait(self, key: str, timeout: float = 300.0, *, from_shown: bool = False) -> bool:
        """True when approved; False on rejection, cancel or timeout.

        ``from_shown``: the timeout counts from :meth:`shown`, not from now —
        the playback queue may still be speaking the sentences before the
        card, and the user cannot answer what is not on screen yet.
        """
        pending = self._pending.get(key)
        if pending is None:
            return False
        try:
            if from_shown:
                await _first(pending.shown, pending.event)
            async with asyncio.timeout(timeout):
                await pending.event.wait()
        except TimeoutError:
            return False
        finally:
            if self._pending.get(key) is pending:
                del self._pending[key]
        return pending.approved

    def respond(self, key: str, approved: bool) -> bool:
        """Answer a pending approval; False when there is none under ``key``."""
        pending = self._pending.get(key)
        if pending is None or pending.event.is_set():
            return False
        pending.approved = approved
        pending.event.set()
        return True

    def cancel_session(self, session_id: str) -> None:
        prefix = f"{session_id}:"
        for key in [k for k in self._pending if k.startswith(prefix)]:
            pending = self._pending.pop(key)
            pending.approved = False
            pending.event.set()

    def pending_keys(self) -> list[str]:
        return list(self._pending)


async def _first(*events: asyncio.Event) -> None:
    """Return once any of ``events`` is set."""
    waiters = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()

