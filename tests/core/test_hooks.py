"""Prompt hooks (contracts §9): every checkpoint's place and lifetime, checked
on the requests the model actually got, and what the history keeps."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.history import check_history
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.hooks import HOOK_KEY, ONCE_KEY, Hook, HookNote, hook_notes, is_hook
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import history_messages, normalize
from desktop_agent.core.working_items import WorkingItem, drop_once
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, ToolCallScript, text_reply, tool_reply
from desktop_agent.testing.views import NullView

PLANNING = {"role": "system", "content": prompts.PLANNING_PROMPT}
CONTINUATION = {"role": "system", "content": prompts.CONTINUATION_PROMPT}
CONTINUE = {"role": "user", "content": prompts.CONTINUE_MESSAGE}


class Approver(NullView):
    def __init__(self, approve: bool = True) -> None:
        self.conversation: Conversation | None = None
        self.approve = approve

    def approval_needed(self, message: ToolCallMessage) -> None:
        assert self.conversation is not None and message.task_id is not None
        self.conversation.answer_approval(message.task_id, self.approve)


def hook(name: str, checkpoint: Any, role: Any = "user", persistent: bool = False) -> Hook:
    return Hook(name, checkpoint, role, persistent, f"{name} prompt\n")


def setup(script: Sequence[Reply], hooks: Sequence[Hook]) -> tuple[Conversation, ScriptedLLM]:
    llm = ScriptedLLM(script)
    agent = AgentClient(llm, ToolRouter([EchoTool()]), system_prompt=None, hooks=hooks)
    return Conversation(agent), llm


async def turn(conv: Conversation, text: str, *, approve: bool = True) -> TurnOutcome:
    view = Approver(approve)
    view.conversation = conv
    async with asyncio.timeout(5):
        return await conv.run_turn(text, view)


def sent(llm: ScriptedLLM, index: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = llm.requests[index]["messages"]
    return messages


def once(name: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": f"{name} prompt", ONCE_KEY: name}


def kept(name: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": f"{name} prompt", HOOK_KEY: name}


TOOL_TURN = [text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")]
NO_TOOL_TURN = [text_reply("Hi.<no_tool>"), text_reply("Bye.")]
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": '{"text": "x"}'}},
]}
ANSWER = {"role": "tool", "tool_call_id": "call_1", "content": "echo: x"}

# ------------------------------------------------------------------ merging


def test_hooks_of_one_checkpoint_merge_per_role_and_persistence_in_file_order() -> None:
    hooks = [
        hook("a", "turn_start", "system", persistent=True),
        hook("b", "turn_start", "user"),
        hook("other", "turn_end", "user"),
        hook("c", "turn_start", "system", persistent=True),
        hook("d", "turn_start", "user", persistent=True),
        hook("e", "turn_start", "user"),
    ]

    assert history_messages(hook_notes(hooks, "turn_start")) == [
        {"role": "system", "content": "a prompt\n\nc prompt", HOOK_KEY: "a, c"},
        {"role": "user", "content": "b prompt\n\ne prompt", ONCE_KEY: "b, e"},
        {"role": "user", "content": "d prompt", HOOK_KEY: "d"},
    ]
    assert hook_notes(hooks, "before_tool_round") == []


def test_drop_once_removes_only_the_non_persistent_hook_messages() -> None:
    items: list[WorkingItem] = [
        UserMessage("u"), HookNote("user", "x prompt", "x", False), HookNote("user", "y prompt", "y", True),
        HookNote("system", "z prompt", "z", False),
    ]

    drop_once(items)

    messages = history_messages(items)
    assert messages == [{"role": "user", "content": "u"}, kept("y")]
    assert [is_hook(m) for m in messages] == [False, True]


def test_the_wire_form_carries_no_hook_marker() -> None:
    wire = normalize([{"role": "user", "content": "u"}, kept("y"), once("z")])

    assert all(HOOK_KEY not in m and ONCE_KEY not in m for m in wire)
    assert "y prompt" in json.dumps(wire) and "z prompt" in json.dumps(wire)


# -------------------------------------------------------------- turn_start


async def test_a_turn_start_user_hook_follows_the_users_message_in_the_planning_request_only() -> None:
    conv, llm = setup(TOOL_TURN, [hook("start", "turn_start")])

    await turn(conv, "hi")

    assert sent(llm, 0) == [{"role": "user", "content": "hi"}, once("start"), PLANNING]
    assert all(not is_hook(m) for i in (1, 2) for m in sent(llm, i))
    assert not any(is_hook(m) for m in history_json(conv.history))


async def test_a_persistent_turn_start_hook_stays_in_every_request_and_in_history_after_the_user() -> None:
    conv, llm = setup(TOOL_TURN, [hook("start", "turn_start", "system", persistent=True)])

    await turn(conv, "hi")

    for index in range(3):
        assert sent(llm, index)[:2] == [{"role": "user", "content": "hi"}, kept("start", "system")]
    assert history_json(conv.history) == [
        {"role": "user", "content": "hi"},
        kept("start", "system"),
        {"role": "assistant", "content": "Ok."},
        CALL,
        ANSWER,
        {"role": "assistant", "content": "Done."},
    ]
    check_history(conv.history)


# ------------------------------------------------------- before_tool_round


async def test_before_tool_round_is_at_the_end_of_every_tool_loop_request_and_nowhere_else() -> None:
    script = [text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")]
    conv, llm = setup(script, [hook("round", "before_tool_round")])

    await turn(conv, "hi")

    assert not any(is_hook(m) for m in sent(llm, 0))  # planning
    assert sent(llm, 1) == [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Ok."},
                            CONTINUE, once("round")]
    assert sent(llm, 2)[-1] == once("round")
    assert [m for m in sent(llm, 2) if is_hook(m)] == [once("round")]  # the first one was removed
    assert not any(is_hook(m) for m in history_json(conv.history))


async def test_no_tool_loop_means_no_before_tool_round_hook() -> None:
    conv, llm = setup(NO_TOOL_TURN, [hook("round", "before_tool_round", persistent=True)])

    await turn(conv, "hi")

    assert sent(llm, 1)[-1] == CONTINUATION
    assert not any(is_hook(m) for i in (0, 1) for m in sent(llm, i))
    assert not any(is_hook(m) for m in history_json(conv.history))


async def test_a_persistent_before_tool_round_hook_is_kept_once_per_round_in_history() -> None:
    script = [text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")]
    conv, llm = setup(script, [hook("round", "before_tool_round", "system", persistent=True)])

    await turn(conv, "hi")

    assert sent(llm, 2)[-4:] == [kept("round", "system"), CALL, ANSWER, kept("round", "system")]
    assert history_json(conv.history) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Ok."},
        kept("round", "system"),
        CALL,
        ANSWER,
        kept("round", "system"),
        {"role": "assistant", "content": "Done."},
    ]
    check_history(conv.history)


# ------------------------------------------------------- after_tool_result


async def test_after_tool_result_comes_after_the_rounds_last_tool_message_never_between() -> None:
    two_calls = Reply(tool_calls=(ToolCallScript("echo", '{"text": "a"}'), ToolCallScript("echo", '{"text": "b"}')))
    script = [text_reply("Ok.<need_tool>"), two_calls, text_reply("Done.")]
    conv, llm = setup(script, [hook("seen", "after_tool_result"), hook("kept", "after_tool_result", persistent=True)])

    await turn(conv, "hi")

    after_round = sent(llm, 2)
    roles = [m["role"] for m in after_round]
    assert roles[-4:] == ["tool", "tool", "user", "user"]
    assert after_round[-2:] == [once("seen"), kept("kept")]
    assert not any(is_hook(m) for i in (0, 1) for m in sent(llm, i))
    assert [m for m in history_json(conv.history) if is_hook(m)] == [kept("kept")]
    assert [m["role"] for m in history_json(conv.history)][-4:] == ["tool", "tool", "user", "assistant"]
    check_history(conv.history)


# ------------------------------------------------- after_rejection, turn_end


async def test_after_rejection_goes_with_the_next_turns_first_request_only() -> None:
    script = [*TOOL_TURN[:2], *NO_TOOL_TURN]
    conv, llm = setup(script, [hook("sorry", "after_rejection")])

    outcome = await turn(conv, "hi", approve=False)
    await turn(conv, "again")

    assert outcome.status == "rejected"
    first_of_next = sent(llm, 2)
    assert first_of_next[-3:] == [once("sorry"), {"role": "user", "content": "again"}, PLANNING]
    assert not any(is_hook(m) for m in sent(llm, 3))
    assert not any(is_hook(m) for m in history_json(conv.history))


async def test_after_rejection_is_not_used_when_nothing_was_rejected() -> None:
    conv, llm = setup([*NO_TOOL_TURN, *NO_TOOL_TURN], [hook("sorry", "after_rejection", persistent=True)])

    await turn(conv, "hi")
    await turn(conv, "again")

    assert not any(is_hook(m) for request in llm.requests for m in request["messages"])
    assert not any(is_hook(m) for m in history_json(conv.history))


async def test_turn_end_goes_with_the_next_turns_first_request_and_persists_where_asked() -> None:
    hooks = [hook("bye", "turn_end"), hook("note", "turn_end", "system", persistent=True)]
    conv, llm = setup([*NO_TOOL_TURN, *NO_TOOL_TURN], hooks)

    await turn(conv, "hi")
    await turn(conv, "again")

    assert not any(is_hook(m) for m in sent(llm, 0))
    assert sent(llm, 2) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hi."},
        {"role": "assistant", "content": "Bye."},
        kept("note", "system"),
        once("bye"),
        {"role": "user", "content": "again"},
        PLANNING,
    ]
    assert once("bye") not in sent(llm, 3)
    assert [m for m in history_json(conv.history) if is_hook(m)] == [kept("note", "system"), kept("note", "system")]
    assert history_json(conv.history)[3] == kept("note", "system")
    check_history(conv.history)


async def test_a_rejected_turn_keeps_persistent_after_rejection_then_turn_end_hooks() -> None:
    hooks = [hook("end", "turn_end", persistent=True), hook("sorry", "after_rejection", persistent=True)]
    conv, _ = setup(TOOL_TURN[:2], hooks)

    await turn(conv, "hi", approve=False)

    assert history_json(conv.history)[-2:] == [kept("sorry"), kept("end")]
    check_history(conv.history)


async def test_an_agent_built_without_hooks_sends_none() -> None:
    llm = ScriptedLLM(TOOL_TURN)
    conv = Conversation(AgentClient(llm, ToolRouter([EchoTool()]), system_prompt=None))

    await turn(conv, "hi")

    assert conv.agent.hooks == ()
    assert not any(is_hook(m) for request in llm.requests for m in request["messages"])
