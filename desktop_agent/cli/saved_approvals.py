"""The user's standing answers, honoured by a headless run as by the window.

The always-allow entries (a tool, a command rule ``builtin/run_command:git
status``, a server's ``sampling:SERVER``) and the servers trusted for their
read-only tools are kept in the settings the window writes; a headless
``--approve ask`` or ``--approve voice`` run answers what they cover without
asking, recorded as the window records it (``always_allow``,
``read_only_setting``). ``--approve all`` approves everything (the flag
answers), ``--approve none`` rejects everything: the flag is the run's
whole policy, so the settings are not read then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_agent.core.approval import auto_decider, call_decider
from desktop_agent.core.nested_call import is_request_allow_key

if TYPE_CHECKING:
    from desktop_agent.core.messages import ToolCallMessage
    from desktop_agent.core.risk import AutoDecider, ToolAnnotations
    from desktop_agent.storage.settings import Settings


class SavedApprovals:
    """``auto`` and ``call`` are a turn's ``auto_approve`` and ``approve_call``."""

    def __init__(
        self,
        approve: str,
        settings: Callable[[], Settings],
        server_of: Callable[[str], str | None],
        annotations_of: Callable[[str], ToolAnnotations | None],
    ) -> None:
        self._approve = approve
        self._settings = settings
        self._server_of = server_of
        self._annotations_of = annotations_of

    @property
    def _reads_settings(self) -> bool:
        return self._approve not in ("all", "none")

    def auto(self, subject: str) -> AutoDecider | None:
        """Who answers ``subject`` (a tool's name, a server's request's entry) unasked."""
        if self._approve == "all":
            return "headless_flag"
        if not self._reads_settings:
            return None
        settings = self._settings()
        if is_request_allow_key(subject):
            return "always_allow" if subject in settings.always_allow else None
        return auto_decider(
            subject, self._server_of(subject), self._annotations_of(subject),
            always_allow=settings.always_allow, trusted_read_only_servers=settings.trusted_read_only_servers,
        )

    def call(self, message: ToolCallMessage) -> AutoDecider | None:
        """Who answers this call by its arguments (a command's rule) unasked."""
        if not self._reads_settings:
            return None
        name = message.tool_name
        return call_decider(name, self._server_of(name), message.arguments, always_allow=self._settings().always_allow)


__all__ = ["SavedApprovals"]
