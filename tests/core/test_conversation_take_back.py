"""Taking back the last exchange (Regenerate and Edit): the
history loses the user's last message and everything after it, as if that
turn never happened."""

from __future__ import annotations

import asyncio

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.hooks import HOOK_KEY
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply
from desktop_agent.testing.views import NullView


def chat(*replies: str) -> tuple[Conversation, ScriptedLLM]:
    llm = ScriptedLLM([text_reply(r) for r in replies])
    return Conversation(AgentClient(llm, ToolRouter([]), system_prompt=None)), llm


async def test_the_last_exchange_is_taken_back_and_its_words_returned() -> None:
    conv, _ = chat("Hi.<no_tool>", "Hello!", "Sure.<no_tool>", "Four.")
    async with asyncio.timeout(5):
        await conv.run_turn("hello", NullView())
        await conv.run_turn("what is 2+2?", NullView())

    assert conv.last_user_text() == "what is 2+2?"
    assert conv.take_back_last_exchange() == "what is 2+2?"
    assert history_json(conv.history) == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hi."},
        {"role": "assistant", "content": "Hello!"},
    ]


async def test_asking_again_sends_the_same_words_after_the_earlier_history_only() -> None:
    conv, llm = chat("Sure.<no_tool>", "Five.", "Sure.<no_tool>", "Four.")
    async with asyncio.timeout(5):
        await conv.run_turn("what is 2+2?", NullView())
        text = conv.take_back_last_exchange()
        assert text is not None
        await conv.run_turn(text, NullView())

    firsts = [r["messages"] for r in llm.requests[0::2]]
    assert [[m for m in messages if m["role"] != "system"] for messages in firsts] == [
        [{"role": "user", "content": "what is 2+2?"}],
        [{"role": "user", "content": "what is 2+2?"}],
    ]
    assert history_json(conv.history) == [
        {"role": "user", "content": "what is 2+2?"},
        {"role": "assistant", "content": "Sure."},
        {"role": "assistant", "content": "Four."},
    ]


def test_a_user_role_hook_is_not_the_users_message_and_nothing_is_taken_before_a_turn() -> None:
    conv, _ = chat()
    assert (conv.last_user_text(), conv.take_back_last_exchange()) == (None, None)
    conv.history = history_items([
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "Be brief.", HOOK_KEY: "brief"},
        {"role": "assistant", "content": "Hello."},
    ])
    assert conv.take_back_last_exchange() == "hi"
    assert history_json(conv.history) == []
