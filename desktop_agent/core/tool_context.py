"""What an executing tool writes besides its result: the bus-backed
:class:`BusToolContext`, and the :class:`PartialOutput` it owns.

The partial output is a plain object of the call's context, not shared bus
state: the chat handler keeps the context of the call it is running and,
on interrupt, reads ``context.partial.snapshot()`` synchronously (so no
tool writer can interleave) into ``tool_rejected.partial_result``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import Card, CardMessage, ToolProgressMessage


class PartialOutput:
    """Named pieces of a running tool's output (``stdout``, ``progress``…)."""

    def __init__(self) -> None:
        self._fields: dict[str, Any] = {}

    def set(self, key: str, value: Any) -> None:
        self._fields[key] = value

    def snapshot(self) -> dict[str, Any] | None:
        """A copy of what was recorded, or None when nothing was."""
        return dict(self._fields) if self._fields else None


class BusToolContext:
    """ToolContext that writes into the session bus."""

    def __init__(
        self,
        bus: SessionMessageBus,
        tool_call_id: str,
        conversation_id: str,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._bus = bus
        self._tool_call_id = tool_call_id
        self._conversation_id = conversation_id
        self._progress_log: list[str] = []
        self._rate = _ProgressRate(clock)
        self.partial = PartialOutput()

    @property
    def session_id(self) -> str:
        return self._bus.session_id

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    @property
    def tool_call_id(self) -> str:
        return self._tool_call_id

    def set_partial(self, key: str, value: Any) -> None:
        self.partial.set(key, value)

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        eta = self._rate.eta(progress, total)
        self._bus.push(
            ToolProgressMessage(self._tool_call_id, progress, total, message, eta)
        )
        line = f"{progress:g}/{total:g}" if total else f"{progress:g}"
        if message:
            line += f" {message}"
        self._progress_log.append(line)
        self.set_partial("progress", list(self._progress_log))

    def push_card(self, card: Card) -> None:
        self._bus.push(CardMessage(self._tool_call_id, card))


class _ProgressRate:
    """ETA from the observed progress rate since the first report of a run.

    A report whose ``total`` differs from the previous one, or whose progress
    goes backwards, starts a new run (a tool moving on to a second phase):
    the old rate says nothing about the new work, so the ETA waits for a
    second report of the new run instead of extrapolating a wrong one.
    """

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._now = clock or time.monotonic
        self._first: tuple[float, float] | None = None
        self._total: float | None = None
        self._last = 0.0

    def eta(self, progress: float, total: float | None) -> float | None:
        now = float(self._now())
        if self._first is None or total != self._total or progress < self._last:
            self._first = (now, progress)
            self._total = total
            self._last = progress
            return None
        self._last = progress
        if not total:
            return None
        t0, p0 = self._first
        done = progress - p0
        elapsed = now - t0
        if done <= 0 or elapsed <= 0:
            return None
        remaining = max(total - progress, 0.0)
        return round(remaining * elapsed / done, 1)
