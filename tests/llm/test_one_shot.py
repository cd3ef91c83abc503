"""One whole reply without tools (``llm/one_shot.py``), what a server's
approved sampling request gets: the real openai SDK against the scripted
loopback server sends the server's limits and no tools; a provider that
cannot be told the limit has its text cut to it."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

from desktop_agent.core.ports import LLMDelta, TextDelta, ToolChoice
from desktop_agent.llm.one_shot import CHARS_PER_TOKEN, Completion, complete
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}]


async def test_the_limits_are_sent_and_the_answer_comes_whole() -> None:
    async with ScriptedLLMServer([text_reply("Hi there, friend.")]) as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key="k", model="scripted")
        try:
            done = await complete(provider, MESSAGES, max_tokens=12, temperature=0.2)
        finally:
            await provider.aclose()

    assert done == Completion("Hi there, friend.", "scripted", "endTurn")
    [request] = server.requests
    assert (request["max_tokens"], request["temperature"], request["messages"]) == (12, 0.2, MESSAGES)
    assert "tools" not in request


class Chatty:
    """A provider with no way to be told a limit (the offline demo is one)."""

    model = "chatty"
    is_demo = True

    async def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: ToolChoice = "auto",
        on_finish: Callable[[str], None] | None = None,
    ) -> AsyncGenerator[LLMDelta, None]:
        for _ in range(50):
            yield TextDelta("word ")

    def set_limits(self, max_tokens: int | None, timeout_s: float) -> None:
        """Settings' limits are not the one-shot's: ignored here as well."""


async def test_a_provider_that_cannot_be_told_the_limit_is_cut_to_it() -> None:
    done = await complete(Chatty(), MESSAGES, max_tokens=5)

    assert len(done.text) <= 5 * CHARS_PER_TOKEN
    assert (done.model, done.stop_reason) == ("chatty", "maxTokens")


async def test_the_offline_demo_answers_without_its_control_tags() -> None:
    from desktop_agent.llm.demo import DemoModel

    done = await complete(DemoModel(), MESSAGES, max_tokens=30)

    assert done.text and "<" not in done.text
