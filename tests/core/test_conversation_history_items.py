"""A conversation's history as typed items: what a restored one sends, and
what Edit and Regenerate get back."""

from __future__ import annotations

import asyncio

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    ToolCall,
    UnreadMessage,
    UserMessage,
    user_item,
)
from desktop_agent.core.hooks import HookNote
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import TYPED_KEY, history_messages
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply
from desktop_agent.testing.views import NullView

IMPORTED = UnreadMessage({"role": "system", "content": "Imported: answer in French."})
HISTORY: list[HistoryItem] = [
    IMPORTED,
    user_item("Weather in Paris?", typed="/mcp__ev__weather city=Paris"),
    AssistantMessage(None, (ToolCall("c1", "weather", '{"city": "' + "P" * 400 + '"}'),)),
    ToolAnswer("c1", "sunny " * 100),
    HookNote("system", "Be brief.", "brief", True),
    AssistantMessage("Sunny."),
]


def test_a_restored_history_is_sent_with_its_unread_message_as_it_came_and_old_results_cut() -> None:
    conv = Conversation(AgentClient(ScriptedLLM([]), ToolRouter([])), history=list(HISTORY))
    sent = history_messages(conv.messages_for("and tomorrow?"))
    assert sent[0] is IMPORTED.message
    assert sent[1] == {"role": "user", "content": "Weather in Paris?", TYPED_KEY: "/mcp__ev__weather city=Paris"}
    assert str(sent[3]["content"]).endswith("…[truncated]") and len(str(sent[3]["content"])) < 320
    assert sent[4] == {"role": "system", "content": "Be brief.", "_hook": "brief"}
    assert sent[-1] == {"role": "user", "content": "and tomorrow?"}
    assert conv.history == HISTORY  # the history itself keeps everything whole


def test_the_last_exchange_gives_back_the_words_typed_not_the_expansion() -> None:
    conv = Conversation(AgentClient(ScriptedLLM([]), ToolRouter([])), history=list(HISTORY))
    assert conv.last_user_text() == "/mcp__ev__weather city=Paris"
    assert conv.take_back_last_exchange() == "/mcp__ev__weather city=Paris"
    assert conv.history == [IMPORTED]
    assert conv.take_back_last_exchange() is None  # an unread system message is nobody's words


async def test_a_turn_appends_typed_items() -> None:
    conv = Conversation(AgentClient(ScriptedLLM([text_reply("Hi.<no_tool>"), text_reply("Hello.")]),
                                    ToolRouter([]), system_prompt=None))
    async with asyncio.timeout(5):
        await conv.run_turn("hi", NullView())
    assert conv.history[0] == UserMessage("hi")
    assert all(isinstance(item, UserMessage | AssistantMessage) for item in conv.history)
