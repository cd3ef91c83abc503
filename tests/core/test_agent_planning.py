"""The planning and continuation rounds carry the turn's tools with
``tool_choice: "none"`` (contracts §2, §2a); a call the model makes there
anyway is read as ``<need_tool>``; a reply cut at ``max_tokens`` is said."""

from __future__ import annotations

from desktop_agent.core import prompts
from desktop_agent.core.events import NoticeChunk, RoundEndChunk
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_replies import Reply, ToolCallScript, text_reply, tool_reply
from tests.core.test_agent import echo_round, make, seg

CUT = NoticeChunk("warning", prompts.MAX_TOKENS_WARNING, "max_tokens")


async def test_a_call_in_the_planning_round_is_not_run_and_leads_to_the_tool_round() -> None:
    echo = EchoTool()
    planning = Reply(text="On it.<no_tool>", tool_calls=(ToolCallScript("echo", '{"text": "early"}'),))
    run = make([planning, tool_reply("echo", {"text": "x"}), text_reply("Done.")], [echo])

    assert await run.chunks() == [
        seg("On it.", "On it.<no_tool>"),
        RoundEndChunk(0, "planning"),
        *echo_round("call_2"),
        RoundEndChunk(1, "tools"),
        seg("Done."),
        RoundEndChunk(2, "tools"),
    ]
    assert echo.calls == [{"text": "x"}]  # the planning round's call never ran
    tools = [echo.spec.to_openai()]
    assert [(r["tools"], r["tool_choice"]) for r in run.llm.requests] == [
        (tools, "none"), (tools, "auto"), (tools, "auto")
    ]
    # Nothing of the planning round's call reaches the next request.
    assert all("tool_calls" not in m for m in run.sent()[1])


async def test_every_round_of_a_turn_carries_the_same_tools() -> None:
    echo = EchoTool()
    run = make([text_reply("Sure.<no_tool>"), text_reply("Here.")], [echo])
    await run.chunks()
    assert [r["tools"] for r in run.llm.requests] == [[echo.spec.to_openai()]] * 2


async def test_without_tools_no_round_sends_any() -> None:
    run = make([text_reply("Hi.<need_tool>"), text_reply("Nothing to call.")])
    await run.chunks()
    assert [r["tools"] for r in run.llm.requests] == [None, None]


async def test_a_reply_cut_at_the_limit_ends_its_round_with_a_warning() -> None:
    echo = EchoTool()
    script = [Reply(text="Let me", finish_reason="length"), Reply(text="and then", finish_reason="length")]
    run = make(script, [echo])
    assert await run.chunks() == [
        seg("Let me"), CUT, RoundEndChunk(0, "planning"),
        seg("and then"), CUT, RoundEndChunk(1, "tools"),
    ]


async def test_a_tool_round_cut_at_the_limit_still_runs_its_complete_call() -> None:
    echo = EchoTool()
    cut_call = Reply(tool_calls=(ToolCallScript("echo", '{"text": "x"}'),), finish_reason="length")
    run = make([text_reply("Ok.<need_tool>"), cut_call, text_reply("Done.")], [echo])
    chunks = await run.chunks()
    assert chunks[2:7] == [*echo_round()[:1], CUT, *echo_round()[1:]]
    assert echo.calls == [{"text": "x"}]
