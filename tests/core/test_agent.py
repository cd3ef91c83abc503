"""AgentClient on its own: the chunks it yields and the requests it sends.

The bus-level paths (approvals, interrupts, what the handler pushes) are in
test_chat_handler.py; here the generator is iterated directly, which
approves every call.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.events import (
    LLMChunk,
    NoticeChunk,
    RoundEndChunk,
    SegmentChunk,
    ToolCallChunk,
    ToolCallInfo,
)
from desktop_agent.core.ports import Tool, ToolContext, ToolResult, ToolSpec
from desktop_agent.core.stream_parser import Segment
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, ToolCallScript, text_reply, tool_reply

USER = {"role": "user", "content": "hi"}
PLANNING = {"role": "system", "content": prompts.PLANNING_PROMPT}
CONTINUATION = {"role": "system", "content": prompts.CONTINUATION_PROMPT}
CONTINUE = {"role": "user", "content": prompts.CONTINUE_MESSAGE}
ECHO_X = ToolCallScript("echo", '{"text": "x"}')


def seg(text: str, raw: str | None = None, voice: bool = False) -> SegmentChunk:
    return SegmentChunk(Segment(text, text if raw is None else raw, voice))


def call(state: Any, arguments: dict[str, Any] | None = None, **kw: Any) -> ToolCallChunk:
    name = kw.pop("name", "echo")
    call_id = kw.pop("id", "call_1")
    return ToolCallChunk(ToolCallInfo(call_id, name, state, arguments, **kw))


def echo_round(call_id: str = "call_1", task_id: str = "t1", text: str = "x") -> list[ToolCallChunk]:
    args = {"text": text}
    return [
        call("start", id=call_id),
        call("approval_required", args, id=call_id, task_id=task_id),
        call("executing", args, id=call_id),
        call("result", args, id=call_id, result=ToolResult(f"echo: {text}")),
    ]


@dataclass
class Run:
    llm: ScriptedLLM
    agent: AgentClient

    async def chunks(
        self, messages: Sequence[Mapping[str, Any]] = (USER,), *, until_start: bool = False
    ) -> list[LLMChunk]:
        """Every chunk of one turn (or up to the first tool call's ``start``)."""
        bus = RecordingBus("s1")
        out: list[LLMChunk] = []
        async with asyncio.timeout(5):
            stream = self.agent.chat_stream(history_items(messages), lambda call_id: BusToolContext(bus, call_id, "c1"))
            async with aclosing(stream) as chunks:
                async for chunk in chunks:
                    out.append(chunk)
                    if until_start and isinstance(chunk, ToolCallChunk):
                        break
        return out

    def sent(self) -> list[list[dict[str, Any]]]:
        return [request["messages"] for request in self.llm.requests]


def make(script: Sequence[Reply], tools: Sequence[Tool] = (), **kw: Any) -> Run:
    llm = ScriptedLLM(script)
    kw.setdefault("system_prompt", None)
    return Run(llm, AgentClient(llm, ToolRouter(tools), **kw))


async def test_no_tool_runs_planning_then_one_continuation_round_that_may_not_call_tools() -> None:
    run = make([text_reply("Sure, a joke. <no_tool>"), text_reply("Why? Because.")], [EchoTool()])

    assert await run.chunks() == [
        seg("Sure, a joke. ", "Sure, a joke. <no_tool>"),
        RoundEndChunk(0, "planning"),
        seg("Why? "),
        seg("Because."),
        RoundEndChunk(1, "continuation"),
    ]
    echo = [EchoTool().spec.to_openai()]
    assert [(r["tools"], r["tool_choice"]) for r in run.llm.requests] == [(echo, "none"), (echo, "none")]
    assert run.sent() == [
        [USER, PLANNING],
        [USER, {"role": "assistant", "content": "Sure, a joke. "}, CONTINUE, CONTINUATION],
    ]


async def test_need_tool_runs_the_tool_loop_until_a_round_without_calls() -> None:
    echo = EchoTool()
    run = make([text_reply("Let me check.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")], [echo])

    assert await run.chunks() == [
        seg("Let me check.", "Let me check.<need_tool>"),
        RoundEndChunk(0, "planning"),
        *echo_round(),
        RoundEndChunk(1, "tools"),
        seg("Done."),
        RoundEndChunk(2, "tools"),
    ]
    assert echo.calls == [{"text": "x"}]
    tools = [echo.spec.to_openai()]
    assert [(r["tools"], r["tool_choice"]) for r in run.llm.requests] == [
        (tools, "none"), (tools, "auto"), (tools, "auto")
    ]
    planned = [USER, {"role": "assistant", "content": "Let me check."}, CONTINUE]
    assert run.sent() == [
        [USER, PLANNING],
        planned,
        [
            *planned,
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": '{"text": "x"}'}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "echo: x"},
        ],
    ]


async def test_a_planning_reply_without_an_intent_tag_goes_to_the_tool_loop() -> None:
    run = make([text_reply("Hello."), text_reply("Nothing to do.")], [EchoTool()])

    assert await run.chunks() == [
        seg("Hello."),
        RoundEndChunk(0, "planning"),
        seg("Nothing to do."),
        RoundEndChunk(1, "tools"),
    ]
    assert [r["tool_choice"] for r in run.llm.requests] == ["none", "auto"]


async def test_an_empty_planning_reply_adds_nothing_to_the_next_request() -> None:
    run = make([text_reply(""), text_reply("Answer.")])

    assert await run.chunks() == [RoundEndChunk(0, "planning"), seg("Answer."), RoundEndChunk(1, "tools")]
    assert run.sent() == [[USER, PLANNING], [USER]]


async def test_the_temporary_prompts_are_sent_only_with_their_own_round() -> None:
    no_tool = make([text_reply("Ok.<no_tool>"), text_reply("Answer.")])
    tools = make([text_reply("Ok.<need_tool>"), tool_reply("echo", {}), tool_reply("echo", {}), text_reply("Done.")],
                 [EchoTool()])
    await no_tool.chunks()
    await tools.chunks()

    def temporary(messages: list[dict[str, Any]]) -> list[str]:
        return [m["content"] for m in messages if m in (PLANNING, CONTINUATION)]

    assert [temporary(m) for m in no_tool.sent()] == [[prompts.PLANNING_PROMPT], [prompts.CONTINUATION_PROMPT]]
    assert [temporary(m) for m in tools.sent()] == [[prompts.PLANNING_PROMPT], [], [], []]


async def test_intent_tags_are_stripped_from_every_assistant_message_sent_back() -> None:
    history = [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "content": "I looked.<need_tool> Found it."},
        USER,
    ]
    run = make(
        [text_reply("On it.<need_tool>"), tool_reply("echo", {"text": "x"}, text="Checking<no_tool>"),
         text_reply("Done.")],
        [EchoTool()],
    )

    await run.chunks(history)

    assert run.sent()[2] == [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "content": "I looked. Found it."},
        USER,
        {"role": "assistant", "content": "On it."},
        CONTINUE,
        {"role": "assistant", "content": "Checking", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": '{"text": "x"}'}},
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "echo: x"},
    ]
    assert history[1] == {"role": "assistant", "content": "I looked.<need_tool> Found it."}  # caller's copy kept


async def test_the_system_prompt_goes_first_unless_the_history_has_one() -> None:
    own = {"role": "system", "content": "be brief"}
    default = make([text_reply("Hi.<no_tool>"), text_reply("Hello.")], system_prompt="SYS")
    given_own = make([text_reply("Hi.<no_tool>"), text_reply("Hello.")], system_prompt="SYS")

    await default.chunks()
    await given_own.chunks([own, USER])

    assert default.sent()[0] == [{"role": "system", "content": "SYS"}, USER, PLANNING]
    assert given_own.sent()[0] == [own, USER, PLANNING]


@pytest.mark.parametrize(
    "narration",
    [
        pytest.param(("Let me check. ", "I will use the clock."), id="english-sentences"),
        pytest.param(("我用时间", "工具查一下。"), id="chinese"),
        pytest.param(("Let me", " check"), id="no-sentence-ender"),
    ],
)
async def test_narration_streamed_before_a_tool_call_comes_before_its_start(narration: tuple[str, ...]) -> None:
    run = make([text_reply("Ok.<need_tool>"), Reply(chunks=narration, tool_calls=(ECHO_X,))], [EchoTool()])

    chunks = await run.chunks(until_start=True)

    texts = chunks[2:-1]
    assert all(isinstance(c, SegmentChunk) for c in texts)
    assert "".join(c.segment.text for c in texts if isinstance(c, SegmentChunk)) == "".join(narration)
    assert chunks[:2] == [seg("Ok.", "Ok.<need_tool>"), RoundEndChunk(0, "planning")]
    assert chunks[-1] == call("start")


async def test_chinese_narration_then_a_tool_call_yields_the_whole_round_in_order() -> None:
    run = make(
        [text_reply("好的。<need_tool>"), Reply(chunks=("我用时间", "工具查一下。"), tool_calls=(ECHO_X,)),
         text_reply("现在三点。")],
        [EchoTool()],
    )

    assert await run.chunks() == [
        seg("好的。", "好的。<need_tool>"),
        RoundEndChunk(0, "planning"),
        seg("我用时间工具查一下。"),
        *echo_round(),
        RoundEndChunk(1, "tools"),
        seg("现在三点。"),
        RoundEndChunk(2, "tools"),
    ]


async def test_narration_without_a_sentence_ender_is_flushed_before_the_call() -> None:
    run = make([text_reply("Ok.<need_tool>"), Reply(chunks=("Let me", " check"), tool_calls=(ECHO_X,)),
                text_reply("Done.")], [EchoTool()])

    assert await run.chunks() == [
        seg("Ok.", "Ok.<need_tool>"),
        RoundEndChunk(0, "planning"),
        seg("Let me check"),
        *echo_round(),
        RoundEndChunk(1, "tools"),
        seg("Done."),
        RoundEndChunk(2, "tools"),
    ]


async def test_invalid_json_and_an_unknown_tool_become_error_results_and_the_loop_continues() -> None:
    echo = EchoTool()
    bad = Reply(tool_calls=(ToolCallScript("echo", '{"text": '), ToolCallScript("nope", "{}")))
    run = make([text_reply("Ok.<need_tool>"), bad, text_reply("Sorry.")], [echo])

    chunks = await run.chunks()

    invalid = ToolResult(
        "Error: the arguments are not valid JSON (Expecting value at position 9): '{\"text\": '. "
        "The tool was not run.",
        is_error=True,
    )
    unknown = ToolResult("Error: unknown tool 'nope'; available tools: echo. The tool was not run.", is_error=True)
    assert chunks == [
        seg("Ok.", "Ok.<need_tool>"),
        RoundEndChunk(0, "planning"),
        call("start"),
        call("start", id="call_2", name="nope"),
        call("result", None, result=invalid),
        call("result", {}, id="call_2", name="nope", result=unknown),
        RoundEndChunk(1, "tools"),
        seg("Sorry."),
        RoundEndChunk(2, "tools"),
    ]
    assert echo.calls == []
    assert run.sent()[2][-2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": invalid.text},
        {"role": "tool", "tool_call_id": "call_2", "content": unknown.text},
    ]


async def test_arguments_that_are_not_an_object_are_an_error_result() -> None:
    run = make([text_reply("Ok.<need_tool>"), Reply(tool_calls=(ToolCallScript("echo", "[1]"),)),
                text_reply("Sorry.")], [EchoTool()])

    chunks = await run.chunks()

    assert chunks[2:4] == [
        call("start"),
        call("result", None, result=ToolResult(
            "Error: the arguments must be a JSON object, got list. The tool was not run.", is_error=True)),
    ]


@dataclass
class BrokenTool:
    name: str = "broken"

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "Always fails.", skip_approval=True)

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        raise ValueError("disk on fire")


async def test_a_tool_that_raises_gives_an_error_result_and_the_loop_continues() -> None:
    run = make([text_reply("Ok.<need_tool>"), tool_reply("broken", {}), text_reply("It failed.")], [BrokenTool()])

    chunks = await run.chunks()

    failed = ToolResult("Error: tool 'broken' failed: disk on fire", is_error=True)
    assert chunks[2:] == [
        call("start", name="broken"),
        call("executing", {}, name="broken"),
        call("result", {}, name="broken", result=failed),
        RoundEndChunk(1, "tools"),
        seg("It failed."),
        RoundEndChunk(2, "tools"),
    ]


async def test_max_steps_ends_the_loop_with_a_warning() -> None:
    quiet = EchoTool(skip_approval=True)
    run = make([text_reply("Ok.<need_tool>"), tool_reply("echo", {}), tool_reply("echo", {})], [quiet], max_steps=2)

    chunks = await run.chunks()

    def quiet_round(call_id: str) -> list[ToolCallChunk]:
        return [
            call("start", id=call_id),
            call("executing", {}, id=call_id),
            call("result", {}, id=call_id, result=ToolResult("echo: ")),
        ]

    assert chunks[2:] == [
        *quiet_round("call_1"),
        RoundEndChunk(1, "tools"),
        *quiet_round("call_2"),
        RoundEndChunk(2, "tools"),
        NoticeChunk("warning", "stopped after 2 tool rounds (the max steps limit); ask again to continue",
                    "max_steps"),
    ]
    assert len(run.llm.requests) == 3


async def test_an_llm_error_flushes_the_text_so_far_then_ends_with_an_error_notice() -> None:
    run = make([text_reply("Ok."), text_reply("Part one. Part two", chunk_size=5, drop_after=3)])

    assert await run.chunks() == [
        seg("Ok."),
        RoundEndChunk(0, "planning"),
        seg("Part one. "),
        seg("Part "),
        NoticeChunk("error", "the stream from the scripted model was cut off mid-reply", "stream_dropped"),
    ]


async def test_an_llm_error_in_the_planning_round_is_the_only_chunk() -> None:
    run = make([Reply(status=429, error_message="slow down")])

    assert await run.chunks() == [NoticeChunk("error", "429 from scripted model: slow down", "rate_limit")]


async def test_an_llm_error_after_a_tool_round_ends_the_turn_after_the_result() -> None:
    run = make([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"})], [EchoTool()])

    chunks = await run.chunks()  # the script is exhausted on the third request

    assert chunks[2:] == [
        *echo_round(),
        RoundEndChunk(1, "tools"),
        NoticeChunk("error", "scripted model: script exhausted", "server"),
    ]


# ------------------------------------------------------------------ property

ENDINGS = ["。", ".", '."', "。」", ")", "）", ""]


@st.composite
def chunked_narrations(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    body = draw(st.sampled_from(["Let me check the time", "我用时间工具查一下", "One moment, please", "好的，稍等"]))
    narration = body + draw(st.sampled_from(ENDINGS))
    cuts = sorted(draw(st.sets(st.integers(1, len(narration) - 1), max_size=6)))
    bounds = [0, *cuts, len(narration)]
    return narration, tuple(narration[a:b] for a, b in itertools.pairwise(bounds))


@given(chunked_narrations())
async def test_any_chunking_of_narration_yields_its_segments_then_the_call_start(
    case: tuple[str, tuple[str, ...]],
) -> None:
    narration, pieces = case
    run = make([text_reply("Ok.<need_tool>"), Reply(chunks=pieces, tool_calls=(ECHO_X,))], [EchoTool()])

    chunks = (await run.chunks(until_start=True))[2:]

    texts = [c.segment.text for c in chunks[:-1] if isinstance(c, SegmentChunk)]
    assert len(texts) == len(chunks) - 1
    assert "".join(texts) == narration
    assert chunks[-1] == call("start")
