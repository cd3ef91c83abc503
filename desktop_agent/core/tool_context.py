"""What an executing tool writes besides its result: the bus-backed
:class:`BusToolContext`, and the :class:`PartialOutput` it owns.

The partial output is a plain object of the call's context, not shared bus
state: the chat handler keeps the context of the call it is running and,
on interrupt, reads ``context.partial.snapshot()`` synchronously (so no
tool writer can interleave) into ``tool_rejected.partial_result``.

Live output (``tool_output``, contracts §5) is coalesced by an
:class:`OutputCoalescer`: a chatty command printing 200,000 lines must not
become 200,000 bus messages (each one a queue step and a widget update), yet
no line may be lost. Output is sent in whole lines, at most one batch per
``OUTPUT_INTERVAL_S``, in the order it was produced across both streams;
the chat handler calls :meth:`BusToolContext.flush_output` before it pushes
the call's ``result`` or ``tool_rejected``, so nothing is left behind.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.json_types import JSONObject, JSONValue
from desktop_agent.core.messages import (
    Card,
    CardMessage,
    FormRequestMessage,
    OutputStream,
    ToolOutputMessage,
    ToolProgressMessage,
)
from desktop_agent.core.timers import Cancellable, Timers
from desktop_agent.core.tool_router import SubAgentHost

OUTPUT_INTERVAL_S = 0.1
"""At most one ``tool_output`` batch per this many seconds (~10 a second)."""
OPEN_LINE_MAX_CHARS = 4096
"""An unfinished line longer than this is sent without waiting for its end
(a progress bar drawn with ``\r``, a binary dump)."""


@runtime_checkable
class FormHost(Protocol):
    """A running call's context that can ask the user a form of its own:
    how an MCP server's elicitation request reaches the user while the
    server's tool call runs (contracts §10). The form goes on the call's bus;
    whoever asked cancels it from :meth:`on_close`, so an interrupted call
    leaves no form waiting."""

    @property
    def tool_call_id(self) -> str: ...

    @property
    def answer_timeout_s(self) -> float | None: ...

    def push_form(self, message: FormRequestMessage) -> None: ...

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the call is over (its result or
        ``tool_rejected`` comes next)."""
        ...


class PartialOutput:
    """Named pieces of a running tool's output (``stdout``, ``progress``…):
    JSON, since they become ``tool_rejected.partial_result`` on the bus."""

    def __init__(self) -> None:
        self._fields: JSONObject = {}

    def set(self, key: str, value: JSONValue) -> None:
        self._fields[key] = value

    def snapshot(self) -> JSONObject | None:
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
        *,
        answer_timeout_s: float | None = None,
        parent_tool_call_id: str | None = None,
        sub_agents: SubAgentHost | None = None,
        output_timers: Timers | None = None,
    ) -> None:
        """``parent_tool_call_id``: set for a sub-agent's call (its messages
        carry it). ``sub_agents``: how a ``sub_agent`` call runs its nested
        agent (None where nesting is not allowed: inside a sub-agent).
        ``output_timers``: the clock that paces live output (None: the
        running loop's)."""
        self._bus = bus
        self._parent = parent_tool_call_id
        self.sub_agents = sub_agents
        self._answer_timeout_s = answer_timeout_s
        self._tool_call_id = tool_call_id
        self._conversation_id = conversation_id
        self._progress_log: list[str] = []
        self._rate = _ProgressRate(clock)
        self.partial = PartialOutput()
        self._output = OutputCoalescer(self._push_output, timers=output_timers)
        self._closing: list[Callable[[], None]] = []

    @property
    def session_id(self) -> str:
        return self._bus.session_id

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    @property
    def tool_call_id(self) -> str:
        return self._tool_call_id

    @property
    def answer_timeout_s(self) -> float | None:
        return self._answer_timeout_s

    def set_partial(self, key: str, value: JSONValue) -> None:
        self.partial.set(key, value)

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        eta = self._rate.eta(progress, total)
        self._bus.push(
            ToolProgressMessage(self._tool_call_id, progress, total, message, eta, self._parent)
        )
        line = f"{progress:g}/{total:g}" if total else f"{progress:g}"
        if message:
            line += f" {message}"
        self._progress_log.append(line)
        self.set_partial("progress", list(self._progress_log))

    def push_card(self, card: Card) -> None:
        self._bus.push(CardMessage(self._tool_call_id, card))

    def output(self, stream: OutputStream, text: str) -> None:
        self._output.write(stream, text)

    def push_form(self, message: FormRequestMessage) -> None:
        self._bus.push(message)

    def on_close(self, callback: Callable[[], None]) -> None:
        self._closing.append(callback)

    def close(self) -> None:
        """The call is over: run the :meth:`on_close` callbacks, once."""
        closing, self._closing = self._closing, []
        for callback in closing:
            callback()

    def _push_output(self, stream: OutputStream, text: str) -> None:
        self._bus.push(ToolOutputMessage(self._tool_call_id, stream, text, self._parent))

    def flush_output(self) -> None:
        """Send every line still held, including an unfinished last one."""
        self._output.flush(final=True)


class OutputCoalescer:
    """Batches a running tool's output into whole-line ``tool_output`` pushes.

    The first write after a quiet spell is sent at once (so a slow command's
    lines appear as they come); later writes within ``interval_s`` wait for
    one timer. A batch holds the runs of each stream in the order they were
    written, so interleaved stdout and stderr keep their order. Outside a
    running event loop (a synchronous test) every write is sent at once,
    unless ``timers`` is given (None: the running loop's clock and timers).
    """

    def __init__(
        self,
        push: Callable[[OutputStream, str], None],
        interval_s: float = OUTPUT_INTERVAL_S,
        *,
        timers: Timers | None = None,
    ) -> None:
        self._push = push
        self._interval_s = interval_s
        self._timers = timers
        self._runs: list[tuple[OutputStream, str]] = []
        """Held output: complete lines, then maybe an unfinished one last."""
        self._open: dict[OutputStream, str] = {}
        """Each stream's unfinished last line."""
        self._timer: Cancellable | None = None
        self._last_sent = -1e9

    def write(self, stream: OutputStream, text: str) -> None:
        if not text:
            return
        text = self._open.pop(stream, "") + text
        cut = text.rfind("\n") + 1
        done, rest = text[:cut], text[cut:]
        if len(rest) > OPEN_LINE_MAX_CHARS:
            done, rest = text, ""
        if done:
            self._hold(stream, done)
        if rest:
            self._open[stream] = rest
        if done:
            self._schedule()

    def flush(self, final: bool = False) -> None:
        """Send what is held now; ``final`` also sends unfinished lines."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if final:
            for stream, rest in self._open.items():
                self._hold(stream, rest)
            self._open.clear()
        runs, self._runs = self._runs, []
        for stream, text in runs:
            self._push(stream, text)
        if runs:
            self._last_sent = self._now()

    def _hold(self, stream: OutputStream, text: str) -> None:
        if self._runs and self._runs[-1][0] == stream:
            self._runs[-1] = (stream, self._runs[-1][1] + text)
        else:
            self._runs.append((stream, text))

    def _schedule(self) -> None:
        if self._timer is not None:
            return
        timers = self._timers
        if timers is None:
            try:
                timers = asyncio.get_running_loop()
            except RuntimeError:
                self.flush()
                return
        wait = self._last_sent + self._interval_s - timers.time()
        if wait <= 0:
            self.flush()
        else:
            self._timer = timers.call_later(wait, self.flush)

    def _now(self) -> float:
        if self._timers is not None:
            return self._timers.time()
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return time.monotonic()


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
