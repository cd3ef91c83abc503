"""Stream chunks reach the provider as their JSON (llm/light_chunks.py),
not built into the SDK's models, through the real openai SDK and the real
scripted server; what the provider makes of them is unchanged."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import openai._base_client
import pytest

from desktop_agent.core.ports import TextDelta, ToolCallDelta
from desktop_agent.llm.light_chunks import Fields, LightChunksClient
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.testing.scripted_replies import ToolCallScript, text_reply
from desktop_agent.testing.scripted_server import ScriptedLLMServer


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


def test_fields_read_a_json_object_as_the_sdks_unvalidated_models_do() -> None:
    chunk = Fields({"choices": [{"delta": {"content": "hi", "tool_calls": [{"index": 0, "function": {"name": "f"}}]},
                                 "finish_reason": None}], "usage": None})
    choice = chunk.choices[0]
    assert choice.delta.content == "hi" and choice.finish_reason is None
    assert choice.delta.tool_calls[0].function.name == "f"
    assert choice.delta.tool_calls[0].function.arguments is None  # not there: None
    assert chunk.model is None and chunk.usage is None
    assert Fields({"choices": "oops"}).choices == "oops"  # anything else as it came (the provider calls it a wrong shape)


async def test_a_streamed_reply_builds_no_sdk_model_per_chunk(
    server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Any] = []
    construct = vars(openai._base_client)["construct_type"]

    def counting(*, type_: Any, value: object) -> Any:
        built.append(type_)
        return construct(type_=type_, value=value)

    monkeypatch.setattr(openai._base_client, "construct_type", counting)
    call = ToolCallScript(name="get_time", arguments='{"zone": "UTC"}')
    server.set_script([text_reply("Hello there, streaming world.", chunk_size=4, tool_calls=(call,))])
    provider = OpenAIProvider(base_url=server.base_url, api_key="k", model="m", retry_base_delay_s=0.0)
    assert isinstance(provider._client, LightChunksClient)
    try:
        async with asyncio.timeout(10):
            got = [delta async for delta in provider.stream([{"role": "user", "content": "hi"}])]
    finally:
        await provider.aclose()
    assert "".join(d.text for d in got if isinstance(d, TextDelta)) == "Hello there, streaming world."
    calls = [d for d in got if isinstance(d, ToolCallDelta)]
    assert calls and calls[0].name == "get_time" and "".join(d.arguments for d in calls) == '{"zone": "UTC"}'
    assert built == []  # the SDK's model building was never asked for a chunk
