"""A :class:`~desktop_agent.services.ServicesListener` for tests: it keeps
what the services said, and wakes a test waiting for the next thing."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from desktop_agent.core.wire import WireProfile
from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.voice import SpeechNotice


@dataclass
class RecordingListener:
    notices: list[str] = field(default_factory=list)
    speech_notices: list[SpeechNotice] = field(default_factory=list)
    wire_profiles: list[tuple[str, str]] = field(default_factory=list)
    """(endpoint, profile name)."""
    statuses: list[ServerStatus] = field(default_factory=list)
    heard: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at each thing said; a test clears it before waiting again."""

    def notice(self, text: str) -> None:
        self.notices.append(text)
        self.heard.set()

    def speech_notice(self, kind: SpeechNotice) -> None:
        self.speech_notices.append(kind)
        self.heard.set()

    def wire_profile(self, endpoint: str, profile: WireProfile) -> None:
        self.wire_profiles.append((endpoint, profile.name))
        self.heard.set()

    def mcp_status(self, status: ServerStatus) -> None:
        self.statuses.append(status)
        self.heard.set()

    async def next_status(self, state: str, timeout_s: float = 30.0) -> ServerStatus:
        """The first server status in ``state`` said from now on."""
        mark = len(self.statuses)
        async with asyncio.timeout(timeout_s):
            while True:
                found = [s for s in self.statuses[mark:] if s.state == state]
                if found:
                    return found[0]
                self.heard.clear()
                await self.heard.wait()
