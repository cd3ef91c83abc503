"""Run one shell command in its own process group, stream its output, and
really stop it (contracts §4: "subprocess group killed").

Why a low-level ``SubprocessProtocol`` instead of ``create_subprocess_exec``
and reader tasks: on Python 3.11, ``Process.wait()`` only returns once every
pipe is closed, so ``sleep 1000 &`` inside the command (which inherits
stdout) would hold the wait until the timeout. The protocol tells us when
the shell itself exited, and each output chunk arrives synchronously, so the
partial-output cache is updated in the same loop frame as the data.

Why a watchdog in the group (POSIX): the app stops the group when a call is
cancelled or times out, but a killed app (SIGKILL, a crash, the OOM killer)
runs no code, and ``PR_SET_PDEATHSIG`` would reach only the shell, not the
``sleep`` it forked. So the shell first starts a tiny ``sh`` in its own group
that reads a pipe whose only writer is the app: when the app dies the
kernel closes that end, the read sees end-of-file and the watchdog kills the
whole group (itself included). When the command ends normally the app writes
a newline instead, and the watchdog leaves quietly, so background work the
command meant to leave running is not touched. Portable to macOS too, and no
``preexec_fn`` (unsafe in a process with threads).
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.messages import OutputStream

log = logging.getLogger(__name__)

TAIL_CHARS = 16 * 1024
"""Characters of each stream kept (the tail); older output is counted, not kept."""

OutputCallback = Callable[[OutputStream, str, str], None]
"""``(stream name, the new text, the kept tail so far)``, on every chunk."""

_STREAMS: dict[int, OutputStream] = {1: "stdout", 2: "stderr"}
_SIGKILL = getattr(signal, "SIGKILL", signal.SIGTERM)  # Windows has no SIGKILL
_terminating: set[asyncio.Task[None]] = set()  # keeps shielded kills alive


@dataclass(frozen=True, slots=True)
class StreamText:
    text: str
    cut: int
    """Characters dropped from the head of the stream."""


@dataclass(frozen=True, slots=True)
class ShellOutcome:
    returncode: int | None
    stdout: StreamText
    stderr: StreamText
    timed_out: bool = False
    abandoned: bool = False
    """The shell exited but background processes kept its output open; the
    group was stopped."""


class _Tail:
    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.text = ""
        self.cut = 0

    def feed(self, data: bytes, final: bool = False) -> str:
        """Decode ``data``; returns the new text (the tail is kept here)."""
        new = self._decoder.decode(data, final)
        self.text += new
        excess = len(self.text) - TAIL_CHARS
        if excess > 0:
            self.text = self.text[excess:]
            self.cut += excess
        return new


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(self, on_output: OutputCallback) -> None:
        self._on_output = on_output
        self.tails = {fd: _Tail() for fd in _STREAMS}
        self._open = set(_STREAMS)
        self.exited = asyncio.Event()
        self.eof = asyncio.Event()
        self.muted = False
        """Set on cancellation: the call is over, its cache must not change."""

    def _emit(self, fd: int, new: str) -> None:
        if not self.muted:
            self._on_output(_STREAMS[fd], new, self.tails[fd].text)

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        if fd in self.tails:
            self._emit(fd, self.tails[fd].feed(bytes(data)))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self._open:
            self._emit(fd, self.tails[fd].feed(b"", final=True))
            self._open.discard(fd)
            if not self._open:
                self.eof.set()

    def process_exited(self) -> None:
        self.exited.set()

    def text(self, fd: int) -> StreamText:
        return StreamText(self.tails[fd].text, self.tails[fd].cut)


async def run_shell(
    command: str,
    *,
    cwd: str | None,
    timeout_s: float,
    on_output: OutputCallback,
    eof_grace_s: float = 1.0,
    kill_grace_s: float = 2.0,
    env: Mapping[str, str] | None = None,
) -> ShellOutcome:
    """Run ``command`` through the shell. Raises OSError when it cannot start;
    on cancellation the whole group is stopped and reaped, then
    CancelledError propagates."""
    loop = asyncio.get_running_loop()
    protocol = _Protocol(on_output)
    watchdog = _Watchdog()
    # Shielded: cancelled mid-start, the stdlib kills only the shell and then
    # waits for its pipes, which a grandchild (``sleep 100``) holds open — a
    # hang until the grandchild exits. Instead let the start finish and stop
    # the whole group below.
    starting = asyncio.ensure_future(
        loop.subprocess_exec(
            lambda: protocol,
            *watchdog.argv(_argv(command)),
            stdin=watchdog.stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,  # None: inherit; run_command passes one without the app's secrets
            **_group_kwargs(),
        )
    )
    cancelled_at_start = False
    try:
        try:
            transport, _ = await asyncio.shield(starting)
        except asyncio.CancelledError:
            cancelled_at_start = True
            transport, _ = await starting
    except BaseException:
        watchdog.close(release=False)
        raise
    watchdog.started()
    timed_out = abandoned = finished = False
    try:
        if cancelled_at_start:
            raise asyncio.CancelledError
        try:
            async with asyncio.timeout(timeout_s):
                await protocol.exited.wait()
        except TimeoutError:
            timed_out = True
        if not timed_out:
            abandoned = not await _wait(protocol.eof, eof_grace_s)
        if timed_out or abandoned:
            await _terminate(transport, protocol, kill_grace_s)
        finished = not (timed_out or abandoned)
    except asyncio.CancelledError:
        protocol.muted = True
        _signal_group(transport, signal.SIGTERM)  # at once, before any await
        task = asyncio.ensure_future(_terminate(transport, protocol, kill_grace_s))
        _terminating.add(task)
        task.add_done_callback(_terminating.discard)
        await asyncio.shield(task)
        raise
    finally:
        # Unless the command ended by itself, whatever is left of the group
        # dies now (also when a second cancellation cut the stopping short).
        watchdog.close(release=finished)
        transport.close()
    return ShellOutcome(
        transport.get_returncode(),
        protocol.text(1),
        protocol.text(2),
        timed_out=timed_out,
        abandoned=abandoned,
    )


async def _terminate(transport: asyncio.SubprocessTransport, protocol: _Protocol, grace_s: float) -> None:
    """SIGTERM the group, SIGKILL it after the grace, reap the shell, and let
    the pipes drain (their holders are dead now)."""
    _signal_group(transport, signal.SIGTERM)
    await _wait(protocol.exited, grace_s)
    # The shell if it ignored SIGTERM, and whatever in the group survived it.
    _signal_group(transport, _SIGKILL)
    if not await _wait(protocol.exited, grace_s):
        log.error("process %s did not exit after SIGKILL", transport.get_pid())
    # A process that left the group (setsid) may still hold the pipes.
    await _wait(protocol.eof, grace_s)


async def _wait(event: asyncio.Event, timeout_s: float) -> bool:
    try:
        async with asyncio.timeout(timeout_s):
            await event.wait()
    except TimeoutError:
        return False
    return True


def _argv(command: str) -> list[str]:
    if sys.platform == "win32":
        return [os.environ.get("COMSPEC", "cmd.exe"), "/c", command]
    return ["/bin/sh", "-c", command]


_WATCHDOG_SCRIPT = (
    # stdin is the watchdog pipe: keep it as fd 3 for the watchdog only; the
    # command then runs as before (``sh -c COMMAND``, same pid, stdin /dev/null).
    'exec 3<&0 </dev/null; '
    '/bin/sh -c "read _ <&3 || kill -KILL 0" desktop-agent-watchdog >/dev/null 2>&1 & '
    'exec 3<&-; exec /bin/sh -c "$1"'
)


class _Watchdog:
    """The pipe that ties the command's group to the app's life (see the
    module docstring). A no-op on Windows."""

    def __init__(self) -> None:
        self._read: int | None = None
        self._write: int | None = None
        if sys.platform != "win32":
            self._read, self._write = os.pipe()  # not inherited, but for the stdin given

    @property
    def stdin(self) -> int:
        return self._read if self._read is not None else subprocess.DEVNULL

    def argv(self, argv: list[str]) -> list[str]:
        if self._read is None or argv[:2] != ["/bin/sh", "-c"]:
            return argv
        return ["/bin/sh", "-c", _WATCHDOG_SCRIPT, "/bin/sh", argv[2]]

    def started(self) -> None:
        """The child holds the read end now; the app keeps only the writer."""
        if self._read is not None:
            os.close(self._read)
            self._read = None

    def close(self, *, release: bool) -> None:
        """``release``: let the group be (the command ended by itself);
        otherwise the watchdog kills what is left of it."""
        self.started()
        if self._write is None:
            return
        try:
            if release:
                os.write(self._write, b"\n")
        except OSError:
            pass  # the watchdog is gone already (the group was stopped)
        finally:
            os.close(self._write)
            self._write = None


def _group_kwargs() -> dict[str, Any]:
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def _signal_group(transport: asyncio.SubprocessTransport, sig: int) -> None:
    """Signal the whole process group (its id is the shell's pid)."""
    pid = transport.get_pid()
    if sys.platform == "win32":
        # Windows has no process-group kill; this stops the shell only.
        if transport.get_returncode() is None:
            transport.kill()
        return
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass  # the group is gone already
    except PermissionError:
        log.warning("not allowed to signal process group %s", pid)
