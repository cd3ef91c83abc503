"""get_skill (contracts §9): the whole body and the skill's files, no approval;
clear errors for unknown or disabled names; a skill's allowed-tools never
lets another tool skip approval."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.forms import FormManager
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.ports import ToolResult
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.skills_engine import SkillLibrary, scan_skills
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply, tool_reply
from desktop_agent.testing.skill_folders import write_skill
from desktop_agent.tools import builtin_tools
from desktop_agent.tools.get_skill import GetSkillTool

BODY = "# Echo twice\n\nCall `echo` with the user's words, then again.\n" + "More detail. " * 60


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    folder = write_skill(tmp_path / "b", "echo-twice", description="Echoes twice.", body=BODY,
                         extra="allowed-tools: echo run_command\n")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "twice.sh").write_text("echo $1; echo $1\n")
    write_skill(tmp_path / "b", "spare", description="Spare.")
    return SkillLibrary(scan_skills(tmp_path / "b", tmp_path / "u"))


async def call(library: SkillLibrary, **arguments: object) -> ToolResult:
    ctx = BusToolContext(RecordingBus("s1"), "call-1", "conv-1")
    return await GetSkillTool(library).run(arguments, ctx)


async def test_the_result_is_the_whole_body_and_the_list_of_files(library: SkillLibrary, tmp_path: Path) -> None:
    result = await call(library, name="echo-twice")
    folder = tmp_path / "b" / "echo-twice"
    assert result == ToolResult(
        f'<skill name="echo-twice" folder="{folder}">\n{BODY.strip(chr(10))}\n</skill>\n\n'
        "Files of this skill (relative to its folder):\n- SKILL.md\n- scripts/twice.sh"
    )


async def test_an_unknown_or_disabled_name_is_an_error_listing_the_enabled_skills(library: SkillLibrary) -> None:
    assert await call(library, name="nope") == ToolResult(
        "get_skill: no enabled skill is named 'nope'. Enabled skills: echo-twice, spare.", is_error=True
    )
    library.set_enabled(("spare",))
    assert await call(library, name="echo-twice") == ToolResult(
        "get_skill: no enabled skill is named 'echo-twice'. Enabled skills: spare.", is_error=True
    )
    library.set_enabled(())
    assert (await call(library, name="spare")).text.endswith("Enabled skills: none.")


async def test_bad_arguments_are_named(library: SkillLibrary) -> None:
    result = await call(library)
    assert result.is_error and result.text.startswith("get_skill: invalid arguments: name")


def test_get_skill_is_built_in_and_skips_approval(library: SkillLibrary) -> None:
    router = ToolRouter(builtin_tools(FormManager(), skills=library))
    routed = router.lookup("get_skill")
    assert routed is not None and routed.skip_approval and routed.spec.server is None
    assert routed.spec.parameters == {
        "type": "object",
        "properties": {"name": {"type": "string",
                                "description": "The skill's name, as listed in the skills catalogue."}},
        "required": ["name"],
    }
    assert [t.spec.name for t in builtin_tools(FormManager())] == ["ask_user_question", "show_card", "run_command"]


async def test_allowed_tools_never_lets_a_tool_skip_approval(library: SkillLibrary) -> None:
    echo = EchoTool()
    llm = ScriptedLLM([
        text_reply("Reading the skill.<need_tool>"),
        tool_reply("get_skill", {"name": "echo-twice"}),
        tool_reply("echo", {"text": "hi"}),
        text_reply("Done."),
    ])
    agent = AgentClient(llm, ToolRouter([GetSkillTool(library), echo]), system_prompt=None, skills=library)
    clock = FakeClock()  # runs the approval's timeout: nobody answers
    approvals = ApprovalManager(timers=clock)
    handler = ChatHandler(agent, approvals, SessionManager())
    bus = RecordingBus("s1")
    chat = asyncio.create_task(handler.handle_chat("s1", bus, [UserMessage("echo twice")],
                                                   approval_timeout_s=300))
    async with asyncio.timeout(5):
        await clock.wait_scheduled()
        clock.advance(300)
        outcome = await chat
    states = [(m["tool_name"], m["state"]) for m in bus.drain() if m["type"] == "tool_call"]
    assert states == [
        ("get_skill", "start"), ("get_skill", "executing"), ("get_skill", "result"),
        ("echo", "start"), ("echo", "approval_required"),
    ]
    assert echo.calls == [] and outcome.status != "completed"
