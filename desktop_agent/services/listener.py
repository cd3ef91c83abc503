"""What the running services tell their front end, and the one-line notice
path every part of :class:`~desktop_agent.services.Services` shares."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop_agent.core.wire import WireProfile
    from desktop_agent.mcp_engine import ServerStatus
    from desktop_agent.voice import SpeechNotice

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AppliedSettings:
    """What the window shows after :meth:`Services.apply_settings`."""

    model: str
    is_demo: bool
    demo_notice: str | None
    error: str | None = None
    """One line when the new endpoint could not be used."""


class ServicesListener(Protocol):
    """What the running services tell their front end (the window's
    conversation and status bar, the terminal's stderr): one object instead
    of a callback per kind. A protocol, so the window's listener is written
    without importing this module (it is imported after the window shows)."""

    def notice(self, text: str) -> None:
        """Something said once while running (a conversation not saved, a
        tool hidden by another of the same name)."""

    def speech_notice(self, kind: SpeechNotice) -> None:
        """A speech notice (the online voice's fallback), once per session,
        as a kind the front end words in its language; the reason is in the
        log only."""

    def wire_profile(self, endpoint: str, profile: WireProfile) -> None:
        """An endpoint needed a stricter wire profile (contracts §2a): the
        front end persists it in the settings."""

    def mcp_status(self, status: ServerStatus) -> None:
        """An MCP server's status changed (the window's status bar)."""


class Notifying:
    """The base of the services' parts: each may say one line to the front
    end (and the log) through the same :attr:`listener`."""

    listener: ServicesListener | None

    def _notice(self, text: str) -> None:
        log.warning("%s", text)
        if self.listener is not None:
            self.listener.notice(text)
