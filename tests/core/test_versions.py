"""Versions of turns (Regenerate and Edit keep what they replace): the
conversation holds the version shown, which is what the next turn sends;
switching puts another in its place; versions kept in a later turn travel
with the tail they were made in."""

from __future__ import annotations

import asyncio

from desktop_agent.core import versions
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.transcript import UserText
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply
from desktop_agent.testing.views import NullView


def chat(*replies: str) -> tuple[Conversation, ScriptedLLM]:
    llm = ScriptedLLM([text_reply(r) for r in replies])
    return Conversation(AgentClient(llm, ToolRouter([]), system_prompt=None)), llm


def words(conv: Conversation) -> list[str]:
    """The history's user and assistant words, in order."""
    return [str(m.get("content")) for m in history_json(conv.history)]


def users(conv: Conversation) -> list[str]:
    return [e.text for e in conv.events if isinstance(e, UserText)]


async def turn(conv: Conversation, text: str) -> None:
    async with asyncio.timeout(5):
        await conv.run_turn(text, NullView())


async def test_regenerate_keeps_the_old_reply_and_the_one_shown_is_what_the_next_turn_sends() -> None:
    conv, llm = chat("Hi.<no_tool>", "Hello!", "A<no_tool>", "Four.", "B<no_tool>", "4!", "C<no_tool>", "Done.")
    await turn(conv, "hello")
    await turn(conv, "2+2?")
    assert versions.keep(conv, 1) == "2+2?"
    assert words(conv) == ["hello", "Hi.", "Hello!"] and users(conv) == ["hello"]
    await turn(conv, "2+2?")
    assert words(conv)[3:] == ["2+2?", "B", "4!"] and conv.versions.at(1) == (2, 2)

    assert versions.switch(conv, 1, 0)
    assert words(conv)[3:] == ["2+2?", "A", "Four."] and conv.versions.at(1) == (1, 2)
    assert users(conv) == ["hello", "2+2?"] and conv.rewound is not None
    await turn(conv, "thanks")
    sent = [m["content"] for m in llm.requests[-2]["messages"] if m["role"] != "system"]
    assert sent == ["hello", "Hi.", "Hello!", "2+2?", "A", "Four.", "thanks"]  # the version shown, not the newest

    assert versions.switch(conv, 1, 1)  # the other one back; "thanks" went with version 1
    assert words(conv)[3:] == ["2+2?", "B", "4!"] and conv.turn_count() == 2
    assert versions.switch(conv, 1, 0)
    assert words(conv)[-3:] == ["thanks", "C", "Done."] and conv.turn_count() == 3


async def test_editing_an_earlier_message_keeps_the_rest_as_a_version_with_the_versions_made_in_it() -> None:
    conv, _ = chat(*[f"r{i}" for i in range(10)])
    for text in ("one", "two", "three"):
        await turn(conv, text)
    assert versions.keep(conv, 2) == "three"  # a Regenerate of the last
    await turn(conv, "three")
    assert conv.versions.at(2) == (2, 2)
    assert versions.keep(conv, 1) == "two"  # an Edit of the second message
    assert conv.turn_count() == 1 and conv.versions.at(2) is None  # it went with the tail it was made in
    await turn(conv, "TWO")
    assert conv.versions.at(1) == (2, 2) and conv.user_text_of(1) == "TWO"
    assert versions.switch(conv, 1, 0)
    assert [conv.user_text_of(t) for t in range(3)] == ["one", "two", "three"] and conv.versions.at(2) == (2, 2)
    assert versions.switch(conv, 2, 0) and conv.versions.at(2) == (1, 2)


async def test_nothing_is_kept_or_switched_while_a_turn_runs_or_without_the_turn() -> None:
    conv, _ = chat("Hi.<no_tool>", "Hello!")
    assert versions.keep(conv, 0) is None and not versions.switch(conv, 0, 0)
    await turn(conv, "hello")
    assert versions.keep(conv, 3) is None and conv.versions.at(0) is None
    assert not versions.switch(conv, 0, 1)
    assert words(conv) == ["hello", "Hi.", "Hello!"] and not conv.versions.changed
