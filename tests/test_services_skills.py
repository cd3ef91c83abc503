"""Services and skills (contracts §9): the enabled set from --skills or the
setting, shared by every conversation, and changed by Settings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from desktop_agent.services import build_services
from desktop_agent.storage.settings import Settings, SettingsStore


@pytest.fixture
def no_servers(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    return path


async def test_the_flag_wins_over_the_setting_and_conversations_share_the_library(no_servers: Path) -> None:
    SettingsStore().save(Settings(enabled_skills=("bilingual-reply",)))
    services = await build_services(mcp_config=no_servers, tts="none", skills="daily-briefing")
    try:
        assert services.skills is not None
        assert [s.name for s in services.skills.enabled()] == ["daily-briefing"]
        assert services.new_conversation().agent.skills is services.skills
        assert services.tool_server("get_skill") is None and services.router.lookup("get_skill") is not None
    finally:
        await services.aclose()


async def test_without_the_flag_the_setting_decides_and_settings_change_it(no_servers: Path) -> None:
    SettingsStore().save(Settings(enabled_skills=("bilingual-reply",)))
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        assert services.skills is not None
        assert [s.name for s in services.skills.enabled()] == ["bilingual-reply"]
        services.apply_settings(replace(services.settings, enabled_skills=None))
        assert [s.name for s in services.skills.enabled()] == ["bilingual-reply", "daily-briefing", "explain-command"]
        services.apply_settings(replace(services.settings, enabled_skills=()))
        assert services.skills.catalogue() is None
    finally:
        await services.aclose()


async def test_with_no_setting_every_skill_is_enabled(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        assert services.skills is not None
        assert [s.name for s in services.skills.enabled()] == ["bilingual-reply", "daily-briefing", "explain-command"]
        assert services.startup_warnings == []
    finally:
        await services.aclose()
