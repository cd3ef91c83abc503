"""ApprovalManager: register/wait/respond/cancel_session (contracts §4)."""

from __future__ import annotations

import asyncio

from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.testing.fake_clock import FakeClock


async def test_respond_wakes_the_waiter_with_the_answer() -> None:
    manager = ApprovalManager()
    key = manager.register("s", "t1")
    waiter = asyncio.create_task(manager.wait(key, timeout=5))
    await asyncio.sleep(0)
    assert manager.respond(key, True)
    assert await waiter is True
    assert manager.pending_keys() == []


async def test_answer_before_wait_starts_is_kept() -> None:
    manager = ApprovalManager()
    key = manager.register("s", "t1")
    assert manager.respond(key, False)
    assert await manager.wait(key, timeout=5) is False


def test_respond_to_unknown_key_returns_false() -> None:
    assert ApprovalManager().respond(approval_key("s", "nope"), True) is False


async def test_timeout_counts_as_rejection_and_cleans_up() -> None:
    clock = FakeClock()
    manager = ApprovalManager(timers=clock)
    key = manager.register("s", "t1")
    waiter = asyncio.create_task(manager.wait(key, timeout=300))
    async with asyncio.timeout(5):
        await clock.wait_scheduled()
    clock.advance(299.9)
    assert manager.pending_keys() == [key]  # not a moment early
    clock.advance(0.1)
    async with asyncio.timeout(5):
        assert await waiter is False
    assert manager.pending_keys() == []
    assert manager.respond(key, True) is False


async def test_cancel_session_pops_entries_even_before_wait() -> None:
    manager = ApprovalManager()
    key = manager.register("s", "t1")
    other = manager.register("s2", "t1")
    manager.cancel_session("s")
    assert manager.pending_keys() == [other]
    # wait() on a swept key returns False at once.
    assert await manager.wait(key, timeout=5) is False


async def test_cancel_session_wakes_a_running_wait() -> None:
    manager = ApprovalManager()
    key = manager.register("s", "t1")
    waiter = asyncio.create_task(manager.wait(key, timeout=5))
    await asyncio.sleep(0)
    manager.cancel_session("s")
    assert await waiter is False
