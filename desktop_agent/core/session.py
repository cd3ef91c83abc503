"""SessionManager: which turn is running, and how to cancel it.

``cancel`` runs the session's ``on_cancel`` callbacks (one of them is
``ApprovalManager.cancel_session``) and records why, so the chat handler can
tell a user interrupt from a rejection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_agent.core.messages import InterruptReason

log = logging.getLogger(__name__)

CancelCallback = Callable[[str, InterruptReason], None]
"""Called with (session_id, reason)."""


@dataclass
class _Session:
    callbacks: list[CancelCallback] = field(default_factory=list)
    cancel_reason: InterruptReason | None = None


class SessionManager:
    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._global_callbacks: list[CancelCallback] = []

    def on_cancel(self, callback: CancelCallback) -> None:
        """Run ``callback`` whenever any session is cancelled."""
        self._global_callbacks.append(callback)

    def start(self, session_id: str) -> None:
        self._sessions[session_id] = _Session()

    def add_callback(self, session_id: str, callback: CancelCallback) -> None:
        self._sessions[session_id].callbacks.append(callback)

    def is_active(self, session_id: str) -> bool:
        return session_id in self._sessions

    def cancel_reason(self, session_id: str) -> InterruptReason | None:
        session = self._sessions.get(session_id)
        return session.cancel_reason if session else None

    def cancel(self, session_id: str, reason: InterruptReason = "user") -> bool:
        """Cancel a running session; False when it is not running (or already cancelled)."""
        session = self._sessions.get(session_id)
        if session is None or session.cancel_reason is not None:
            return False
        session.cancel_reason = reason
        for callback in [*self._global_callbacks, *session.callbacks]:
            try:
                callback(session_id, reason)
            except Exception:  # a broken callback must not stop the others
                log.exception("cancel callback failed for session %s", session_id)
        return True

    def finish(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)
