"""The clock and timers behind the core's timeouts and pacing, as a port.

In the app they are the running event loop's (``loop.time()``,
``loop.call_later``); a test passes a ``FakeClock``
(``desktop_agent.testing.fake_clock``), whose time moves only when the test
says so, so "nothing happened for 10 s" takes no wall time and is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class Cancellable(Protocol):
    """A scheduled call (``asyncio.TimerHandle``, ``FakeTimer``)."""

    def cancel(self) -> None: ...


class Timers(Protocol):
    def time(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], object]) -> Cancellable: ...
