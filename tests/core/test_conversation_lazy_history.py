"""A conversation opened from a saved history makes its typed items only
as they are needed: the window's questions at open (is there a last
message to regenerate?) read the last few; the first send, a take-back or
a save of what is new works exactly as with the whole list."""

from __future__ import annotations

import asyncio

from benchmarks.bench_conversations import history_json_list
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.storage.history_json import StoredHistory, history_items, history_json
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply
from desktop_agent.testing.views import NullView

SAVED = history_json_list(2000)


def _opened(*replies: str) -> tuple[Conversation, StoredHistory, ScriptedLLM]:
    llm = ScriptedLLM([text_reply(r) for r in replies])
    stored = StoredHistory(SAVED)
    return Conversation(AgentClient(llm, ToolRouter([]), system_prompt=None), history=stored), stored, llm


def test_the_last_users_words_are_read_from_the_last_messages_alone() -> None:
    conversation, stored, _ = _opened()

    assert conversation.last_user_text() == SAVED[-2]["content"]  # a question, then its answer
    assert stored.made <= 3  # before: all 2,000 made as the conversation opened
    assert len(conversation.history_view()) == 2000 and stored.made <= 3


def test_the_whole_history_is_made_when_first_asked_for_and_reads_as_the_list() -> None:
    conversation, stored, _ = _opened()

    assert conversation.turn_count() == 750 and conversation.user_text_of(0) == SAVED[0]["content"]
    assert conversation.history == history_items(SAVED) and stored.made == 2000
    assert conversation.history is conversation.history and conversation.history_view() is conversation.history


async def test_the_first_send_carries_the_saved_history_as_a_list_given_would() -> None:
    lazy, _, lazy_llm = _opened("Sure.<no_tool>", "Done.")
    whole_llm = ScriptedLLM([text_reply("Sure.<no_tool>"), text_reply("Done.")])
    whole = Conversation(AgentClient(whole_llm, ToolRouter([]), system_prompt=None), history=history_items(SAVED))

    async with asyncio.timeout(10):
        await lazy.run_turn("one more", NullView())
        await whole.run_turn("one more", NullView())

    assert lazy_llm.requests == whole_llm.requests
    assert history_json(lazy.history) == history_json(whole.history) == [
        *SAVED, {"role": "user", "content": "one more"}, {"role": "assistant", "content": "Sure."},
        {"role": "assistant", "content": "Done."}]


def test_taking_back_the_last_exchange_of_a_saved_history() -> None:
    conversation, _, _ = _opened()

    assert conversation.take_back_last_exchange() == SAVED[-2]["content"]
    assert conversation.history == history_items(SAVED[:-2]) and conversation.rewound == (1998, 0)
