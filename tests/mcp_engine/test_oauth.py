"""Signing in to a remote server: the engine against a local OAuth
authorization server and the MCP server it protects (the mcp SDK's own
server-side auth, :mod:`desktop_agent.testing.oauth_servers`), the keyring
an in-memory backend. The test plays the browser: it fetches the
authorization URL the engine "opens" and follows the redirect to the
engine's loopback listener."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.oauth import OAuthManager, SignInState
from desktop_agent.testing import everything
from desktop_agent.testing.memory_keyring import MemoryKeyring, memory_keyring
from desktop_agent.testing.oauth_servers import MemoryAuthServer, ProtectedServer, run_protected_server
from tests.mcp_engine.conftest import CallContext

pytestmark = [pytest.mark.integration, pytest.mark.npm]
NEEDED = 'mcp server "remote" needs you to sign in (Settings → Tools, or --sign-in remote)'
AGAIN = 'mcp server "remote": the sign-in has expired; sign in again (Settings → Tools, or --sign-in remote)'


@pytest.fixture
def ring() -> Iterator[MemoryKeyring]:
    with memory_keyring() as ring:
        yield ring


@pytest.fixture
def protected() -> Iterator[ProtectedServer]:
    with run_protected_server(MemoryAuthServer()) as server:
        yield server


@pytest.fixture
def protected_sse() -> Iterator[ProtectedServer]:
    with run_protected_server(MemoryAuthServer(), "sse") as server:
        yield server


class Browser:
    """Opens what the engine asks it to: one GET of the authorization URL,
    following the redirect to the loopback listener."""

    def __init__(self) -> None:
        self.pages: list[tuple[int, str]] = []
        self.opened: list[tuple[str, str]] = []
        self._tasks: list[asyncio.Task[None]] = []

    def open(self, server: str, url: str) -> None:
        self.opened.append((server, url))
        self._tasks.append(asyncio.ensure_future(self._visit(url)))

    async def _visit(self, url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as client:
            response = await client.get(url)
            self.pages.append((response.status_code, response.text))

    async def settle(self) -> None:
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=10)


def _engine(server: ProtectedServer, browser: Browser, *, with_other: bool = False) -> McpEngine:
    servers = [ServerConfig(name="remote", transport=server.transport, url=server.url, timeout_s=30)]
    if with_other:
        servers.append(everything.everything_stdio("local"))
    return McpEngine(McpConfig(servers=tuple(servers)), oauth=OAuthManager(open_url=browser.open))


async def _call(engine: McpEngine, make_ctx: Callable[..., CallContext], tool: str = "whoami") -> tuple[str, bool]:
    result = await engine.call_in("shared", tool, {}, make_ctx().ctx)
    return result.text, result.is_error


def _state(engine: McpEngine, name: str = "remote") -> str:
    return next(s.state for s in engine.statuses() if s.name == name)


async def test_first_sign_in_then_the_tool_call_works(
    ring: MemoryKeyring, protected: ProtectedServer, make_ctx: Callable[..., CallContext]
) -> None:
    browser = Browser()
    engine = _engine(protected, browser, with_other=True)
    try:
        async with asyncio.timeout(60):
            warnings = await engine.start()
            # Waiting for a sign-in holds up neither start-up nor the other server.
            assert warnings == [NEEDED]
            assert _state(engine) == "sign_in"
            assert _state(engine, "local") == "ready"
            assert engine.oauth.state("remote") == SignInState("needed")
            assert not ring.entries  # nothing stored before the user signs in
            assert engine.before_turn().missing is False

            assert await engine.sign_in("remote") is None
            await browser.settle()
            assert [server for server, _ in browser.opened] == ["remote"]
            assert "code_challenge_method=S256" in browser.opened[0][1]
            assert browser.pages[0][0] == 200 and "You can close this tab" in browser.pages[0][1]
            assert engine.oauth.state("remote") == SignInState("signed_in")
            assert await _call(engine, make_ctx) == ("signed in", False)
            assert _state(engine) == "ready"
            assert protected.auth.registrations == 1
            assert sorted(user for _, user in ring.entries) == [
                f"mcp-oauth-client:{protected.url}",
                f"mcp-oauth-tokens:{protected.url}",
            ]
    finally:
        await engine.aclose()


async def test_the_sign_in_survives_an_engine_restart(
    ring: MemoryKeyring, protected: ProtectedServer, make_ctx: Callable[..., CallContext]
) -> None:
    browser = Browser()
    first = _engine(protected, browser)
    try:
        async with asyncio.timeout(60):
            await first.start()
            assert await first.sign_in("remote") is None
    finally:
        await first.aclose()
    again = _engine(protected, Browser())
    try:
        async with asyncio.timeout(60):
            assert await again.start() == []
            assert _state(again) == "ready"
            assert again.oauth.state("remote") == SignInState("signed_in")
            assert await _call(again, make_ctx) == ("signed in", False)
            assert protected.auth.registrations == 1  # the stored client is used again
    finally:
        await again.aclose()


async def test_an_expired_access_token_is_refreshed(
    ring: MemoryKeyring, protected: ProtectedServer, make_ctx: Callable[..., CallContext]
) -> None:
    engine = _engine(protected, Browser())
    try:
        async with asyncio.timeout(60):
            await engine.start()
            assert await engine.sign_in("remote") is None
            assert await _call(engine, make_ctx) == ("signed in", False)
            stored = dict(ring.entries)
            protected.auth.expire_access_tokens()
            assert await _call(engine, make_ctx) == ("signed in", False)
            assert protected.auth.refreshes == 1
            assert ring.entries != stored  # the new tokens are kept
            assert _state(engine) == "ready"
    finally:
        await engine.aclose()


async def test_a_refused_refresh_asks_to_sign_in_again(
    ring: MemoryKeyring, protected: ProtectedServer, make_ctx: Callable[..., CallContext]
) -> None:
    engine = _engine(protected, Browser())
    try:
        async with asyncio.timeout(60):
            await engine.start()
            assert await engine.sign_in("remote") is None
            assert await _call(engine, make_ctx) == ("signed in", False)
            protected.auth.expire_access_tokens()
            protected.auth.refuse_refresh = True
            line = AGAIN
            assert await _call(engine, make_ctx) == (line, True)
            status = next(s for s in engine.statuses() if s.name == "remote")
            assert (status.state, status.error) == ("sign_in", line)
            assert engine.oauth.state("remote") == SignInState("again")
            assert f"mcp-oauth-tokens:{protected.url}" not in {user for _, user in ring.entries}
            assert engine.before_turn().missing is False  # not retried on its own
            protected.auth.refuse_refresh = False
            assert await engine.sign_in("remote") is None
            assert await _call(engine, make_ctx) == ("signed in", False)
            assert protected.auth.registrations == 1  # the same client, on the same loopback port
    finally:
        await engine.aclose()


@pytest.mark.parametrize("refusal", ["access_denied", "invalid_client"])
async def test_a_refusing_server_is_one_line_and_the_rest_goes_on(
    refusal: str, ring: MemoryKeyring, protected: ProtectedServer, make_ctx: Callable[..., CallContext]
) -> None:
    protected.auth.refuse = refusal  # type: ignore[assignment]
    engine = _engine(protected, Browser(), with_other=True)
    try:
        async with asyncio.timeout(60):
            await engine.start()
            line = f'sign-in to "remote" failed: the server refused: {refusal}'
            assert await engine.sign_in("remote") == line
            status = next(s for s in engine.statuses() if s.name == "remote")
            assert (status.state, status.error) == ("sign_in", line)
            assert engine.oauth.state("remote") == SignInState("failed", f"the server refused: {refusal}", refusal)
            result = await engine.call_in("shared", "get-sum", {"a": 2, "b": 3}, make_ctx().ctx)  # the turn goes on
            assert not result.is_error and "5" in result.text
            protected.auth.refuse = None
            assert await engine.sign_in("remote") is None
            assert await _call(engine, make_ctx) == ("signed in", False)
    finally:
        await engine.aclose()


async def test_sign_out_forgets_the_tokens_and_needs_a_sign_in(
    ring: MemoryKeyring, protected: ProtectedServer, make_ctx: Callable[..., CallContext]
) -> None:
    engine = _engine(protected, Browser())
    try:
        async with asyncio.timeout(60):
            await engine.start()
            assert await engine.sign_in("remote") is None
            assert await _call(engine, make_ctx) == ("signed in", False)
            await engine.sign_out("remote")
            assert not ring.entries
            assert engine.oauth.state("remote") == SignInState("needed")
            text, is_error = await _call(engine, make_ctx)
            assert (text, is_error) == (NEEDED, True)
            assert _state(engine) == "sign_in"
    finally:
        await engine.aclose()


async def test_a_server_that_wants_no_sign_in_never_reads_the_keyring(
    ring: MemoryKeyring, make_ctx: Callable[..., CallContext]
) -> None:
    with everything.run_everything("streamableHttp", "/mcp") as server:
        config = ServerConfig(name="open", transport="http", url=server.url)
        engine = McpEngine(McpConfig(servers=(config,)), oauth=OAuthManager(open_url=Browser().open))
        try:
            async with asyncio.timeout(60):
                assert await engine.start() == []
                result = await engine.call_in("shared", "echo", {"message": "hi"}, make_ctx().ctx)
                assert not result.is_error
        finally:
            await engine.aclose()
    assert ring.reads == []
    assert engine.oauth.state("open") is None


async def test_sign_in_over_sse(
    ring: MemoryKeyring, protected_sse: ProtectedServer, make_ctx: Callable[..., CallContext]
) -> None:
    engine = _engine(protected_sse, Browser())
    try:
        async with asyncio.timeout(60):
            assert await engine.start() == [NEEDED]
            assert _state(engine) == "sign_in"
            assert await engine.sign_in("remote") is None
            assert await _call(engine, make_ctx) == ("signed in", False)
            protected_sse.auth.expire_access_tokens()
            assert await _call(engine, make_ctx) == ("signed in", False)
            assert protected_sse.auth.refreshes == 1
    finally:
        await engine.aclose()


async def test_no_answer_from_the_browser_is_a_bounded_wait(ring: MemoryKeyring, protected: ProtectedServer) -> None:
    opened: list[str] = []
    oauth = OAuthManager(open_url=lambda _server, url: opened.append(url), consent_timeout_s=0.2)
    config = ServerConfig(name="remote", transport="http", url=protected.url)
    engine = McpEngine(McpConfig(servers=(config,)), oauth=oauth)
    try:
        async with asyncio.timeout(60):
            await engine.start()
            assert await engine.sign_in("remote") == 'sign-in to "remote" failed: no answer from the browser within 0.2 s'
            assert len(opened) == 1 and _state(engine) == "sign_in"
    finally:
        await engine.aclose()


async def test_two_sign_ins_at_once_open_one_browser(ring: MemoryKeyring, protected: ProtectedServer) -> None:
    browser = Browser()
    engine = _engine(protected, browser)
    try:
        async with asyncio.timeout(60):
            await engine.start()
            assert list(await asyncio.gather(engine.sign_in("remote"), engine.sign_in("remote"))) == [None, None]
            assert len(browser.opened) == 1
    finally:
        await engine.aclose()


async def test_an_unreachable_server_is_one_line(ring: MemoryKeyring) -> None:
    url = f"http://127.0.0.1:{everything.free_port()}/mcp"
    engine = McpEngine(
        McpConfig(servers=(ServerConfig(name="gone", transport="http", url=url, timeout_s=5),)),
        oauth=OAuthManager(open_url=Browser().open),
    )
    try:
        async with asyncio.timeout(60):
            await engine.start()
            assert _state(engine, "gone") == "failed"
            assert await engine.sign_in("gone") == 'sign-in to "gone" failed: could not reach the server (ConnectError)'
            assert _state(engine, "gone") == "failed"  # still retried as a failed server is
    finally:
        await engine.aclose()


async def test_a_cancelled_sign_in_closes_its_listener_and_goes_back(
    ring: MemoryKeyring, protected: ProtectedServer
) -> None:
    opened: list[str] = []
    browser_open = asyncio.Event()

    def open_url(_server: str, url: str) -> None:
        opened.append(url)
        browser_open.set()

    oauth = OAuthManager(open_url=open_url)
    engine = McpEngine(McpConfig(servers=(ServerConfig(name="remote", transport="http", url=protected.url),)), oauth=oauth)
    try:
        async with asyncio.timeout(60):
            await engine.start()
            signing = asyncio.ensure_future(engine.sign_in("remote"))
            await browser_open.wait()
            assert oauth.state("remote") == SignInState("signing_in")
            signing.cancel()
            await asyncio.wait({signing})
            assert oauth.state("remote") == SignInState("needed")
            redirect = parse_qs(urlsplit(opened[0]).query)["redirect_uri"][0]
            with pytest.raises(httpx2.ConnectError):  # nobody listens there any more
                async with httpx2.AsyncClient() as client:
                    await client.get(redirect)
    finally:
        await engine.aclose()
