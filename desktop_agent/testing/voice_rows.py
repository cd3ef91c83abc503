"""The rows of the voice session's tables (``tests/core/test_voice_session*``):
the events that set the scene, one more event, the whole list of actions it
must give, and the state fields it must leave."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_agent.core.voice_machine import VoiceSession
from desktop_agent.core.voice_session import Action, Event, VoiceConfig, VoiceState
from desktop_agent.testing.fake_clock import FakeClock

PCM = b"\x10\x00" * 160


@dataclass(frozen=True)
class Row:
    name: str
    setup: tuple[Event, ...]
    event: Event
    actions: list[Action]
    state: dict[str, object] = field(default_factory=dict)
    """Fields of :class:`VoiceState` (and ``button``) after the event."""
    config: VoiceConfig = field(default_factory=VoiceConfig)
    clock_at: float = 0.0
    """Where the clock stands for the event (the setup runs at 0)."""


def play(row: Row) -> tuple[list[Action], VoiceState]:
    clock = FakeClock()
    session = VoiceSession(clock.now, row.config)
    for event in row.setup:
        session.handle(event)
    clock.advance(row.clock_at)
    return session.handle(row.event), session.state


def check(row: Row) -> None:
    actions, state = play(row)
    assert actions == row.actions, row.name
    got = {name: getattr(state, name) for name in row.state}
    assert got == row.state, row.name
