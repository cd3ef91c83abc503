"""The shared folders as a server's roots (``mcp_engine/roots.py``, the
engine's ``roots_changed``) against the real server-everything over stdio:
``get-roots-list`` shows the folders shared with that server, and after a
change the server asks again and shows the new list."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import mcp_types as types
import pytest

from desktop_agent.mcp_engine import McpConfig, McpEngine
from desktop_agent.mcp_engine.client_hooks import ClientHooks
from desktop_agent.mcp_engine.roots import roots_of
from desktop_agent.storage.settings import Settings
from desktop_agent.testing import everything
from tests.mcp_engine.conftest import CallContext

pytestmark = [pytest.mark.integration, pytest.mark.npm]


def test_folders_become_file_uris_named_after_their_last_part(tmp_path: Path) -> None:
    docs = tmp_path / "my docs"
    result = roots_of([str(docs), str(docs), "~"])
    assert [(str(r.uri), r.name) for r in result.roots] == [
        (docs.as_uri(), "my docs"), (Path.home().as_uri(), Path.home().name),
    ]


async def test_get_roots_list_shows_the_shared_folders_and_follows_a_change(
    tmp_path: Path, make_ctx: Callable[..., CallContext]
) -> None:
    docs, code, other = tmp_path / "docs", tmp_path / "code", tmp_path / "other"
    settings = Settings(shared_folders={str(docs): (), str(other): ("someone-else",)})
    asked: list[str] = []
    updated = asyncio.Event()

    async def roots(server: str) -> types.ListRootsResult:
        asked.append(server)
        return roots_of(settings.folders_for(server))

    def on_log(server: str, params: types.LoggingMessageNotificationParams) -> None:
        if "Roots updated" in str(params.data):
            updated.set()

    engine = McpEngine(
        McpConfig(servers=(everything.everything_stdio("everything"),)),
        hooks=ClientHooks(roots=roots, on_log=on_log),
    )
    try:
        assert await engine.start() == []
        source = engine.shared_source()
        first = await source.call("get-roots-list", {}, make_ctx().ctx)
        assert "(1 total)" in first.text
        assert docs.as_uri() in first.text and other.as_uri() not in first.text

        settings = Settings(shared_folders={str(docs): (), str(code): ("everything",)})
        updated.clear()
        await engine.roots_changed()
        async with asyncio.timeout(10):
            await updated.wait()
        second = await source.call("get-roots-list", {}, make_ctx().ctx)
        assert "(2 total)" in second.text
        assert docs.as_uri() in second.text and code.as_uri() in second.text
        assert asked == ["everything", "everything"]
    finally:
        await engine.aclose()
