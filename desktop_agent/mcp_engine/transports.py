"""Opening the byte pipe to one server: stdio, SSE or streamable HTTP.

Kept apart from the session logic so the owner task in :mod:`connection`
never branches on the transport. A per-conversation instance gets its own
scratch folder; ``${sandbox_dir}`` in ``args``/``env``/``cwd`` and the
``MCP_SANDBOX_DIR`` variable point the server at it (so, for example, each
conversation's Playwright server gets its own user-data-dir).

A remote server's HTTP client carries the connection's sign-in
(``auth``: an ``httpx2.Auth``, :mod:`desktop_agent.mcp_engine.oauth`),
made anew for each session so it reads the keyring as it is now.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TextIO

import httpx2
from mcp import StdioServerParameters, stdio_client
from mcp.client._transport import TransportStreams
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from desktop_agent.mcp_engine.bundles import fill_secrets
from desktop_agent.mcp_engine.config import ServerConfig

SANDBOX_PLACEHOLDER = "${sandbox_dir}"
_CONNECT_TIMEOUT_S = 30.0
AuthFactory = Callable[[ServerConfig], httpx2.Auth | None]


def _fill(value: str, sandbox_dir: Path | None) -> str:
    if sandbox_dir is None:
        return value
    return value.replace(SANDBOX_PLACEHOLDER, str(sandbox_dir))


def stdio_parameters(config: ServerConfig, sandbox_dir: Path | None = None) -> StdioServerParameters:
    assert config.command is not None
    env = {key: fill_secrets(_fill(value, sandbox_dir)) for key, value in config.env.items()}
    if sandbox_dir is not None:
        env.setdefault("MCP_SANDBOX_DIR", str(sandbox_dir))
    return StdioServerParameters(
        command=config.command,
        args=[fill_secrets(_fill(arg, sandbox_dir)) for arg in config.args],
        env=env or None,
        cwd=_fill(config.cwd, sandbox_dir) if config.cwd else None,
    )


@asynccontextmanager
async def open_transport(
    config: ServerConfig, errlog: TextIO, sandbox_dir: Path | None = None, auth: AuthFactory | None = None
) -> AsyncIterator[TransportStreams]:
    """Yield the (read, write) streams; closing reaps the process or the HTTP session.

    ``auth``: makes the remote server's sign-in provider (None: no sign-in)."""
    # The HTTP read timeout must outlast our own idle timeout, which is the
    # one that decides when a silent call has hung.
    read_timeout = max(300.0, config.timeout_s + 30.0)
    if config.transport == "stdio":
        async with stdio_client(stdio_parameters(config, sandbox_dir), errlog=errlog) as streams:
            yield streams
        return
    provider = auth(config) if auth is not None else None
    if config.transport == "sse":
        assert config.url is not None
        async with sse_client(
            config.url,
            headers=dict(config.headers) or None,
            timeout=_CONNECT_TIMEOUT_S,
            sse_read_timeout=read_timeout,
            auth=provider,
        ) as streams:
            yield streams
    else:
        assert config.url is not None
        client = create_mcp_http_client(
            headers=dict(config.headers) or None,
            timeout=httpx2.Timeout(_CONNECT_TIMEOUT_S, read=read_timeout),
            auth=provider,
        )
        async with client, streamable_http_client(config.url, http_client=client) as streams:
            yield streams
