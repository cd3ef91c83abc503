"""A message with MCP attachments (contracts §10) through a turn, the store
and back: the model reads the expanded text and images, the display log
keeps the typed words and the chips, a restored conversation shows the
chips and sends the same history, and Edit/Regenerate get the typed words."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.mentions import Attachment, ExpandedMessage
from desktop_agent.core.messages import ImageContent
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.transcript import UserText
from desktop_agent.core.wire import IMAGES_KEY, TYPED_KEY, history_messages, normalize
from desktop_agent.storage.conversation_events import event_json, item_from_json, items_of
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply
from desktop_agent.testing.views import NullView

TYPED = "What is in @cat:test://dot.png?"
CHIPS = (Attachment("resource", "cat", "test://dot.png"), Attachment("resource", "cat", "test://huge.txt", True))
EXPANDED = ExpandedMessage(
    f"{TYPED}\n\n```test://dot.png\n[image: image/png, 4 bytes]\n```",
    (ImageContent("image/png", b"\x89PNG"),),
    CHIPS,
)

PART = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}}


def _chat(*replies: str) -> tuple[Conversation, ScriptedLLM]:
    llm = ScriptedLLM([text_reply(r) for r in replies])
    return Conversation(AgentClient(llm, ToolRouter([]), system_prompt=None)), llm


def test_a_user_event_keeps_its_chips_and_an_old_one_has_none() -> None:
    saved = event_json(UserText(TYPED, 300.0, CHIPS, "expanded", (ImageContent("image/png", b"x"),)))
    assert saved == {
        "type": "user",
        "text": TYPED,
        "approval_timeout_s": 300.0,
        "attachments": [
            {"kind": "resource", "server": "cat", "name": "test://dot.png"},
            {"kind": "resource", "server": "cat", "name": "test://huge.txt", "truncated": True},
        ],
    }
    assert item_from_json(saved) == UserText(TYPED, 300.0, CHIPS)
    assert item_from_json({"type": "user", "text": "old"}) == UserText("old")
    damaged: JSONObject = {"type": "user", "text": "t", "attachments": [{"kind": "file"}, 3, {"kind": "prompt", "server": "s", "name": "p"}]}
    assert item_from_json(damaged) == UserText("t", None, (Attachment("prompt", "s", "p"),))


async def test_a_turn_sends_the_expansion_keeps_the_typed_words_and_restores_the_same(tmp_path: Path) -> None:
    conv, llm = _chat("Sure.<no_tool>", "A dot.", "Sure.<no_tool>", "Again.")
    async with asyncio.timeout(5):
        await conv.run_turn(TYPED, NullView(), expanded=EXPANDED)

    first = next(m for m in llm.requests[0]["messages"] if m["role"] == "user")
    assert first["content"] == EXPANDED.text and first[IMAGES_KEY] == [PART]
    assert history_json(conv.history)[0] == {
        "role": "user", "content": EXPANDED.text, TYPED_KEY: TYPED, IMAGES_KEY: [PART]
    }
    assert conv.last_user_text() == TYPED

    store = ConversationStore(tmp_path / "c.sqlite3")
    store.save(conv.conversation_id, conv.history, [event_json(e) for e in conv.events])
    loaded = store.load(conv.conversation_id)
    store.close()
    assert loaded is not None
    restored = Conversation(
        AgentClient(llm, ToolRouter([]), system_prompt=None),
        history=loaded.messages,
        events=items_of(loaded.events),
    )
    shown = [e for e in restored.events if isinstance(e, UserText)]
    assert [(e.text, e.attachments) for e in shown] == [(TYPED, CHIPS)]
    assert restored.history == conv.history
    sent = normalize(history_messages(restored.messages_for("and now?")))
    assert sent[0] == {"role": "user", "content": [{"type": "text", "text": EXPANDED.text}, PART]}
    assert restored.last_user_text() == TYPED
    assert restored.take_back_last_exchange() == TYPED
    assert restored.history == []


def test_a_display_log_rebuilt_from_history_shows_the_typed_words() -> None:
    from desktop_agent.storage.conversation_events import events_from_history

    history: list[JSONObject] = [
        {"role": "user", "content": "What's weather in Paris?", TYPED_KEY: "/mcp__ev__args-prompt city=Paris"},
        {"role": "assistant", "content": "Mild."},
    ]
    events = events_from_history(history_items(history))
    assert events[0] == {"type": "user", "text": "/mcp__ev__args-prompt city=Paris"}
