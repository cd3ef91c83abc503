"""Per-conversation sandboxes (``isolation: per_conversation``, contracts
§8): each conversation gets its
own instance of every ``per_conversation`` server, started lazily on the
first call to one of its tools, with its own scratch folder.

Why LRU with a cap: a browser server per conversation is hundreds of
megabytes; a user flicking through twenty old chats must not leave twenty
browsers running. Beyond ``max_sandboxes`` the least recently used sandbox
that has no call in flight is closed (its processes reaped, its folders
removed). A busy sandbox is never evicted under its running call; the
registry may then hold one more than the cap until that call ends.
Eviction runs in the background (the new conversation's first call does not
wait for the old server to exit); shutdown waits for all of it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

from desktop_agent.mcp_engine.client_hooks import ClientHooks
from desktop_agent.mcp_engine.config import ServerConfig
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.mcp_engine.noise import StdoutNoise

log = logging.getLogger(__name__)


class Sandbox:
    """One conversation's private server instances."""

    def __init__(
        self,
        conversation_id: str,
        configs: Sequence[ServerConfig],
        on_change: Callable[[ServerConnection], None] | None = None,
        noise: Callable[[str], StdoutNoise] | None = None,
        hooks: ClientHooks | None = None,
    ) -> None:
        self.conversation_id = conversation_id
        self.connections = {
            c.name: ServerConnection(
                c,
                sandboxed=True,
                on_change=on_change,
                noise=noise(c.name) if noise is not None else None,
                hooks=hooks,
            )
            for c in configs
        }
        self.busy = 0

    async def aclose(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self.connections.values()))


class SandboxRegistry:
    def __init__(
        self,
        configs: Sequence[ServerConfig],
        max_sandboxes: int,
        on_change: Callable[[ServerConnection], None] | None = None,
        noise: Callable[[str], StdoutNoise] | None = None,
        hooks: ClientHooks | None = None,
    ) -> None:
        """``on_change``: told of every sandboxed connection's changes (a
        re-listed tool list among them). ``noise``: a server's counter of
        stdout lines that are not MCP, by its name."""
        self._configs = tuple(configs)
        self._max = max_sandboxes
        self._on_change = on_change
        self._noise = noise
        self._hooks = hooks
        self._sandboxes: OrderedDict[str, Sandbox] = OrderedDict()
        self._closing: set[asyncio.Task[None]] = set()
        self._closed = False

    def conversation_ids(self) -> list[str]:
        """Live sandboxes, least recently used first."""
        return list(self._sandboxes)

    def get(self, conversation_id: str) -> Sandbox | None:
        return self._sandboxes.get(conversation_id)

    @asynccontextmanager
    async def use(self, conversation_id: str) -> AsyncIterator[Sandbox]:
        """The conversation's sandbox, marked busy (never evicted) while in use."""
        if self._closed:
            raise RuntimeError("the sandbox registry is shut down")
        sandbox = self._sandboxes.get(conversation_id)
        if sandbox is None:
            sandbox = Sandbox(conversation_id, self._configs, self._on_change, self._noise, self._hooks)
            self._sandboxes[conversation_id] = sandbox
        self._sandboxes.move_to_end(conversation_id)
        sandbox.busy += 1
        try:
            self._evict()
            yield sandbox
        finally:
            sandbox.busy -= 1

    def _evict(self) -> None:
        while len(self._sandboxes) > self._max:
            victim = next((s for s in self._sandboxes.values() if s.busy == 0), None)
            if victim is None:
                return
            log.info(
                "mcp: evicting the sandbox of conversation %s (least recently used)", victim.conversation_id
            )
            del self._sandboxes[victim.conversation_id]
            self._close_later(victim)

    def _close_later(self, sandbox: Sandbox) -> asyncio.Task[None]:
        """Close in a task of its own: an eviction does not delay the call that
        caused it, and a caller's cancellation cannot abandon a half-closed
        sandbox. :meth:`aclose` waits for every such task, so nothing escapes."""
        task = asyncio.create_task(sandbox.aclose(), name=f"mcp-sandbox-close:{sandbox.conversation_id}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        return task

    async def wait_closed(self) -> None:
        """Wait until every eviction started so far has reaped its processes."""
        while self._closing:
            await asyncio.wait(set(self._closing))

    async def close(self, conversation_id: str) -> None:
        sandbox = self._sandboxes.pop(conversation_id, None)
        if sandbox is not None:
            await asyncio.shield(self._close_later(sandbox))

    async def aclose(self) -> None:
        self._closed = True
        sandboxes = list(self._sandboxes.values())
        self._sandboxes.clear()
        for sandbox in sandboxes:
            self._close_later(sandbox)
        await self.wait_closed()
