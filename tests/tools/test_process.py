"""The watchdog that ties a command's process group to the app's life
(so no command outlives the app; SIGKILL of the whole app is in ``tests/faults``)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import psutil
import pytest

from desktop_agent.testing.procs import live_processes
from desktop_agent.tools._process import run_shell

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and process groups")

WATCHDOG = "desktop-agent-watchdog"


def _ignore(_stream: str, _new: str, _tail: str) -> None:
    pass


async def _gone(marker: str, timeout_s: float = 5.0) -> bool:
    async with asyncio.timeout(timeout_s):
        while live_processes(marker):
            await asyncio.sleep(0.02)
    return True


async def test_a_command_that_ends_by_itself_keeps_its_detached_job_and_no_watchdog() -> None:
    marker = "sleep 46.911"
    outcome = await run_shell(f"{marker} >/dev/null 2>&1 & echo $!", cwd=None, timeout_s=10, on_output=_ignore)
    pid = int(outcome.stdout.text)
    try:
        assert outcome.returncode == 0 and not outcome.abandoned
        assert live_processes(marker) == [pid]  # meant to keep running: left alone, as before
        group = os.getpgid(pid)
        watchdogs = [p for p in psutil.process_iter(["cmdline"])
                     if WATCHDOG in " ".join(p.info["cmdline"] or ()) and _pgid(p.pid) == group]
        assert not [p for p in watchdogs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_the_command_sees_the_same_shell_and_no_extra_descriptor() -> None:
    # The shell's own descriptors, seen by a child before any pipe is made.
    outcome = await run_shell('echo "$0 $#"; ls -1 /proc/$$/fd; read x; echo "read=$?"',
                              cwd=None, timeout_s=10, on_output=_ignore)
    lines = outcome.stdout.text.splitlines()
    assert lines[0] == "/bin/sh 0"
    assert lines[1:-1] == ["0", "1", "2"]  # not the watchdog's pipe
    assert lines[-1] == "read=1"  # stdin is /dev/null, as before


async def test_a_stop_cut_short_by_a_second_cancellation_still_kills_the_group() -> None:
    marker = "sleep 46.912"
    # Ignores SIGTERM: the orderly stop would wait the whole grace for it.
    task = asyncio.ensure_future(run_shell(f"trap '' TERM; {marker}", cwd=None, timeout_s=60,
                                           on_output=_ignore, kill_grace_s=30))
    async with asyncio.timeout(10):
        while not live_processes(marker):
            await asyncio.sleep(0.02)
    task.cancel()
    await asyncio.sleep(0.2)  # the real process group mid-stop (a process, no event to wait on)
    task.cancel()  # the caller gives up on the stop
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _gone(marker, timeout_s=3)


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None
