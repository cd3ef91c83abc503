"""The reply limit and the request timeout reach every request (contracts
§2a, §10): through the real openai SDK against the scripted server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from desktop_agent.core.ports import LLMError
from desktop_agent.llm.openai_provider import OpenAIProvider, token_key_for
from desktop_agent.services import build_llm
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, text_reply

HI = [{"role": "user", "content": "hi"}]
UNSUPPORTED = (
    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
)


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


async def reply_of(provider: OpenAIProvider, **kw: Any) -> tuple[str, list[str]]:
    """The reply's text and the finish reasons it was told."""
    finished: list[str] = []
    async with asyncio.timeout(10):
        parts = [getattr(d, "text", "") async for d in provider.stream(HI, on_finish=finished.append, **kw)]
    return "".join(parts), finished


def provider(server: ScriptedLLMServer, **kw: Any) -> OpenAIProvider:
    return OpenAIProvider(base_url=server.base_url, api_key="k", model="m", retry_base_delay_s=0.0, **kw)


async def test_every_request_carries_the_reply_limit(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("a"), text_reply("b"), text_reply("c")])
    default, chosen = provider(server), provider(server, max_tokens=77)
    try:
        await reply_of(default)
        await reply_of(chosen)
        await reply_of(chosen, max_tokens=5)  # a server's sampling request sets its own
    finally:
        await default.aclose()
        await chosen.aclose()
    assert [r.get("max_tokens") for r in server.requests] == [4096, 77, 5]


async def test_a_reply_cut_at_the_limit_says_length(server: ScriptedLLMServer) -> None:
    server.set_script([Reply(text="and so on and so on", finish_reason="length")])
    llm = provider(server)
    try:
        assert await reply_of(llm) == ("and so on and so on", ["length"])
    finally:
        await llm.aclose()


def refuse_max_tokens(request: Mapping[str, Any]) -> str | None:
    return UNSUPPORTED if "max_tokens" in request else None


async def test_a_server_that_refuses_max_tokens_gets_max_completion_tokens_from_then_on() -> None:
    async with ScriptedLLMServer([text_reply("one"), text_reply("two")], refuse=refuse_max_tokens) as server:
        llm = provider(server, max_tokens=300)
        try:
            assert (await reply_of(llm))[0] == "one"
            assert (await reply_of(llm))[0] == "two"
        finally:
            await llm.aclose()
    sent = [(r.get("max_tokens"), r.get("max_completion_tokens")) for r in server.requests]
    assert sent == [(300, None), (None, 300), (None, 300)]


async def test_a_limit_the_model_cannot_take_is_not_asked_again_under_the_other_name() -> None:
    too_large = "max_tokens is too large: 4096. This model supports at most 2048 completion tokens."
    async with ScriptedLLMServer([], refuse=lambda request: too_large) as server:
        llm = provider(server, max_retries=0)
        try:
            with pytest.raises(LLMError) as info:
                await reply_of(llm)
        finally:
            await llm.aclose()
    assert len(server.requests) == 1
    assert "too large" in info.value.message


def test_openai_itself_gets_max_completion_tokens_and_every_other_server_max_tokens() -> None:
    assert token_key_for("https://api.openai.com/v1") == "max_completion_tokens"
    assert token_key_for("https://me.openai.azure.com/openai/v1") == "max_completion_tokens"
    for url in ("http://127.0.0.1:8080/v1", "https://api.deepseek.com/v1", "http://localhost:11434/v1", "x"):
        assert token_key_for(url) == "max_tokens"


async def test_the_settings_limit_and_timeout_reach_the_provider(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("ok"), *[Reply(hang=True)] * 3])  # the SDK asks twice more
    settings = Settings(base_url=server.base_url, model="m", max_tokens=123, request_timeout_s=0.3)
    llm = build_llm(settings, stored_key=lambda: "k")
    assert isinstance(llm, OpenAIProvider)
    try:
        await reply_of(llm)
        with pytest.raises(LLMError) as info:
            async with asyncio.timeout(10):
                async for _delta in llm.stream(HI):
                    pass
    finally:
        await llm.aclose()
    assert server.requests[0]["max_tokens"] == 123
    assert info.value.code == "connection"
    assert "timed out after 0.3s" in info.value.message
