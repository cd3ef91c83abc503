"""The sign-in's loopback listener: only the answer with the sign-in's own
state ends the wait; anything else gets an error page and is ignored."""

from __future__ import annotations

import httpx2
import pytest

from desktop_agent.mcp_engine.oauth_loopback import Callback, LoopbackListener


async def test_the_answer_with_the_expected_state_ends_the_wait() -> None:
    listener = LoopbackListener()
    await listener.open()
    try:
        assert listener.redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
        listener.expect("s1")
        async with httpx2.AsyncClient() as client:
            stray = await client.get(f"{listener.redirect_uri}?code=evil&state=other")
            elsewhere = await client.get(f"http://127.0.0.1:{listener.port}/favicon.ico")
            page = await client.get(f"{listener.redirect_uri}?code=abc&state=s1&iss=http%3A%2F%2Fas")
        assert (stray.status_code, elsewhere.status_code, page.status_code) == (400, 404, 200)
        assert "You can close this tab" in page.text
        assert await listener.wait(5) == Callback(code="abc", state="s1", iss="http://as")
    finally:
        await listener.aclose()


async def test_a_refusal_comes_back_as_the_servers_error() -> None:
    listener = LoopbackListener()
    await listener.open()
    try:
        listener.expect("s2")
        async with httpx2.AsyncClient() as client:
            page = await client.get(f"{listener.redirect_uri}?error=access_denied&state=s2")
        assert "access_denied" in page.text
        answer = await listener.wait(5)
        assert (answer.code, answer.error) == (None, "access_denied")
    finally:
        await listener.aclose()


async def test_no_answer_is_a_bounded_wait() -> None:
    listener = LoopbackListener()
    await listener.open()
    try:
        listener.expect("s3")
        with pytest.raises(TimeoutError):
            await listener.wait(0.05)
    finally:
        await listener.aclose()


async def test_it_listens_on_the_loopback_address_only() -> None:
    listener = LoopbackListener()
    await listener.open()
    try:
        assert listener._server is not None
        assert {s.getsockname()[0] for s in listener._server.sockets} == {"127.0.0.1"}
    finally:
        await listener.aclose()
