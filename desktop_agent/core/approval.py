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


def approval_key(session_id: str, task_id: str) -> str:
    return f"{session_id}:{task_id}"


class ApprovalManager:
    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}

    def register(self, session_id: str, task_id: str) -> str:
        key = approval_key(session_id, task_id)
        self._pending[key] = _Pending()
        return key

    async def wait(self, key: str, timeout: float = 300.0) -> bool:
        """True when approved; False on rejection, cancel or timeout."""
        pending = self._pending.get(key)
        if pending is None:
            return False
        try:
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
