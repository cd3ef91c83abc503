"""Skills in a turn's requests (contracts §9): the catalogue at messages[1] of
every request, no block without enabled skills, ``/skill-name`` loading the
skill into the turn while the user's text stays as typed, and get_skill
results never truncated in later turns."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.history import TOOL_CONTEXT_MAX_LEN
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import normalize
from desktop_agent.skills_engine import SkillLibrary, scan_skills
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.testing.skill_folders import write_skill
from desktop_agent.testing.views import NullView
from desktop_agent.tools.get_skill import GetSkillTool

LONG_BODY = "# Briefing\n\n" + "".join(f"{n}. Step number {n} of the briefing, said in full.\n" for n in range(1, 40))


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    write_skill(tmp_path / "b", "daily-briefing", description="Date, time and a card.", body=LONG_BODY)
    write_skill(tmp_path / "b", "other", description="Something else.", body="Other steps.\n")
    return SkillLibrary(scan_skills(tmp_path / "b", tmp_path / "u"))


def conversation(library: SkillLibrary, script: list[Reply], *, system_prompt: str | None = "MAIN") -> tuple[
    Conversation, ScriptedLLM
]:
    llm = ScriptedLLM(script)
    agent = AgentClient(llm, ToolRouter([GetSkillTool(library)]), system_prompt=system_prompt, skills=library)
    return Conversation(agent), llm


async def turn(conv: Conversation, text: str) -> None:
    async with asyncio.timeout(5):
        await conv.run_turn(text, NullView())


def roles(request: dict[str, Any]) -> list[str]:
    return [str(m["role"]) for m in request["messages"]]


async def test_the_catalogue_is_messages_1_of_every_request_right_after_the_system_prompt(
    library: SkillLibrary,
) -> None:
    conv, llm = conversation(library, [
        text_reply("Sure.<need_tool>"),
        tool_reply("get_skill", {"name": "daily-briefing"}),
        text_reply("Done."),
    ])
    await turn(conv, "daily briefing")
    catalogue = library.catalogue()
    assert len(llm.requests) == 3
    for request in llm.requests:
        assert request["messages"][0] == {"role": "system", "content": "MAIN"}
        assert request["messages"][1] == {"role": "system", "content": catalogue}
        assert [m for m in request["messages"] if m.get("content") == catalogue] == [request["messages"][1]]
    assert roles(llm.requests[0]) == ["system", "system", "user", "system"]  # the planning prompt last
    # The history keeps neither the catalogue nor the system prompt.
    assert all(m["role"] != "system" for m in history_json(conv.history))


async def test_without_a_system_prompt_the_catalogue_leads(library: SkillLibrary) -> None:
    conv, llm = conversation(library, [text_reply("Hi.<no_tool>"), text_reply("Hello.")], system_prompt=None)
    await turn(conv, "hi")
    assert llm.requests[0]["messages"][0] == {"role": "system", "content": library.catalogue()}


async def test_no_enabled_skill_means_no_block(library: SkillLibrary) -> None:
    library.set_enabled(())
    conv, llm = conversation(library, [text_reply("Hi.<no_tool>"), text_reply("Hello.")])
    await turn(conv, "/daily-briefing")
    assert roles(llm.requests[0]) == ["system", "user", "system"]
    assert llm.requests[0]["messages"][1] == {"role": "user", "content": "/daily-briefing"}


async def test_on_the_wire_the_catalogue_joins_the_leading_system_message(library: SkillLibrary) -> None:
    conv, llm = conversation(library, [text_reply("Hi.<no_tool>"), text_reply("Hello.")])
    await turn(conv, "hi")
    wire = normalize(llm.requests[0]["messages"])
    assert wire[0]["role"] == "system" and str(wire[0]["content"]).startswith("MAIN\n\n# Skills")
    assert [m["role"] for m in wire] == ["system", "user"]


async def test_slash_skill_name_loads_the_skill_into_the_turn_and_keeps_the_users_text(
    library: SkillLibrary,
) -> None:
    conv, llm = conversation(library, [
        text_reply("Here goes.<need_tool>"),
        text_reply("Your briefing."),
        text_reply("Ok.<no_tool>"),
        text_reply("Fine."),
    ])
    await turn(conv, "/daily-briefing for Berlin")
    first = llm.requests[0]["messages"]
    assert first[2] == {"role": "user", "content": "/daily-briefing for Berlin"}
    assert first[3]["role"] == "system"
    assert first[3]["content"].startswith('The user invoked the skill "daily-briefing" explicitly')
    assert LONG_BODY.strip() in first[3]["content"]
    assert first[4] == {"role": "system", "content": prompts.PLANNING_PROMPT}
    assert first[3] in llm.requests[1]["messages"]  # every request of that turn
    # History: the text as typed, no block; the next turn does not get it again.
    assert history_json(conv.history)[0] == {"role": "user", "content": "/daily-briefing for Berlin"}
    await turn(conv, "thanks")
    assert not any("invoked the skill" in str(m.get("content")) for m in llm.requests[2]["messages"])


async def test_an_unknown_slash_name_is_plain_text(library: SkillLibrary) -> None:
    conv, llm = conversation(library, [text_reply("Hm.<no_tool>"), text_reply("Plain.")])
    await turn(conv, "/usr/bin is a folder")
    assert roles(llm.requests[0]) == ["system", "system", "user", "system"]
    assert llm.requests[0]["messages"][2] == {"role": "user", "content": "/usr/bin is a folder"}


async def test_get_skill_results_are_never_truncated_in_later_requests(library: SkillLibrary) -> None:
    conv, llm = conversation(library, [
        text_reply("Let me read it.<need_tool>"),
        tool_reply("get_skill", {"name": "daily-briefing"}),
        text_reply("Done."),
        text_reply("Again.<no_tool>"),
        text_reply("Sure."),
    ])
    await turn(conv, "daily briefing")
    await turn(conv, "and tomorrow?")
    (answer,) = [m for m in llm.requests[3]["messages"] if m["role"] == "tool"]
    assert len(LONG_BODY) > TOOL_CONTEXT_MAX_LEN
    assert LONG_BODY.strip() in answer["content"] and "truncated" not in answer["content"]
