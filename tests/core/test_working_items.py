"""The agent's working list as typed items: one-time hook notes dropped,
skill blocks inserted, requests fitted, all on items; JSON only when sent."""

from __future__ import annotations

from desktop_agent.core.budget import CONTEXT_CUT_MARK, fit_request, item_size
from desktop_agent.core.history_items import (
    AssistantMessage,
    ToolAnswer,
    ToolCall,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import ONCE_KEY, HookNote
from desktop_agent.core.skill_blocks import insert_skill_blocks
from desktop_agent.core.wire import IMAGES_KEY, history_messages, user_message
from desktop_agent.core.working_items import (
    Instruction,
    WorkingItem,
    answered_ids,
    drop_once,
    role_of,
    text_of,
)
from desktop_agent.storage.history_json import history_item

PNG = b"\x89PNG\r\n\x1a\n"


class Skills:
    """The skills port with one skill, ``/brief``."""

    def catalogue(self) -> str | None:
        return "CATALOGUE"

    def invoked(self, user_text: str) -> str | None:
        return "BRIEF BODY" if user_text.startswith("/brief") else None


def test_an_instruction_is_a_system_message_only_when_sent() -> None:
    prompt = Instruction("planning", "plan first")

    assert role_of(prompt) == "system" and text_of(prompt) == "plan first"
    assert history_messages([prompt]) == [{"role": "system", "content": "plan first"}]


def test_equal_instructions_are_two_items_so_a_temporary_one_is_removed_as_itself() -> None:
    assert Instruction("planning", "p") != Instruction("planning", "p")


def test_drop_once_removes_one_time_notes_typed_or_unread_and_keeps_the_rest() -> None:
    kept = HookNote("system", "kept", "k", True)
    items: list[WorkingItem] = [
        UserMessage("u"), HookNote("user", "once", "o", False), kept,
        UnreadMessage({"role": "user", "content": "old once", ONCE_KEY: "x"}),
    ]

    drop_once(items)

    assert items == [UserMessage("u"), kept]


def test_answered_ids_reads_typed_and_unread_tool_answers() -> None:
    items: list[WorkingItem] = [
        ToolAnswer("a", "r"), ToolAnswer("", "no id"),
        UnreadMessage({"role": "tool", "tool_call_id": "b", "content": "r"}),
    ]

    assert answered_ids(items) == {"a", "b"}


def test_skill_blocks_are_instructions_after_the_users_message_not_after_a_hook_note() -> None:
    note = HookNote("user", "/brief is not the user's", "n", False)
    items: list[WorkingItem] = [Instruction("system", "MAIN"), UserMessage("/brief now"), note]

    insert_skill_blocks(items, Skills())

    assert [(role_of(i), text_of(i)) for i in items] == [
        ("system", "MAIN"), ("system", "CATALOGUE"), ("user", "/brief now"), ("system", "BRIEF BODY"),
        ("user", "/brief is not the user's"),
    ]
    assert all(isinstance(items[i], Instruction) for i in (0, 1, 3))


def test_an_item_is_sized_as_the_message_it_is_sent_as() -> None:
    call = AssistantMessage("thinking", (ToolCall("c1", "echo", '{"text": "汉字"}'),))
    unread = history_item({"role": "user", "content": [{"type": "text", "text": "parts"}]})

    assert item_size(call) == 16 + len("thinking") + 32 + len("echo") + len('{"text": "汉字"}'.encode())
    assert item_size(unread) == 16 + len("parts")


def test_an_earlier_message_left_out_as_an_item_takes_its_images_typed_or_unread() -> None:
    old = history_item(user_message("old " * 2000, [("image/png", PNG)]))
    unread = UnreadMessage({"role": "user", "content": "older " * 2000, IMAGES_KEY: [], "extra": 1})
    items: list[WorkingItem] = [unread, AssistantMessage("seen"), old, AssistantMessage("seen"), UserMessage("now")]

    fitted = fit_request(items, 2000)

    first, _, third, *_ = fitted.items
    assert isinstance(third, UserMessage) and third.images == () and third.content.startswith("[")
    assert isinstance(first, UnreadMessage) and first.message == {
        "role": "user", "content": CONTEXT_CUT_MARK.format(left=f"{len('older ' * 2000):,}"), "extra": 1,
    }
    assert fitted.items[-1] is items[-1] and items[2] is old  # the list given is never changed
