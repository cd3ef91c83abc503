"""The services load the hooks once and hand the enabled ones to every
conversation's agent; the settings switch them live; a broken file is one
start-up warning."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from desktop_agent.services import build_services
from desktop_agent.storage.settings import Settings, SettingsStore


def user_hooks(*entries: dict[str, object]) -> Path:
    folder = Path(os.environ["DESKTOP_AGENT_HOME"]) / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hooks.json").write_text(json.dumps(list(entries)), encoding="utf-8")
    (folder / "p.md").write_text("Be brief.", encoding="utf-8")
    return folder


def entry(name: str, *, enabled: bool = True, prompt_file: str = "p.md") -> dict[str, object]:
    return {"name": name, "checkpoint": "turn_start", "role": "system", "persistent": False,
            "prompt_file": prompt_file, "enabled": enabled}


async def test_enabled_hooks_reach_each_conversation_and_the_settings_switch_them(tmp_path: Path) -> None:
    user_hooks(entry("on"), entry("off", enabled=False))
    SettingsStore().save(replace(Settings(), hooks_enabled={"on": False}))
    no_servers = tmp_path / "mcp.json"
    no_servers.write_text('{"mcpServers": {}}')
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        conversation = services.new_conversation()
        assert not conversation.agent.hooks
        assert {i.name: i.enabled for i in services.hook_infos() if i.source == "user"} == {
            "on": False, "off": False}

        services.apply_settings(replace(services.settings, hooks_enabled={"off": True}))

        assert [h.name for h in conversation.agent.hooks] == ["on", "off"]
        fresh = services.new_conversation()
        assert [h.name for h in fresh.agent.hooks] == ["on", "off"]
    finally:
        await services.aclose()


async def test_a_broken_hook_is_one_start_up_warning_naming_its_file(tmp_path: Path) -> None:
    folder = user_hooks(entry("gone", prompt_file="gone.md"))
    no_servers = tmp_path / "mcp.json"
    no_servers.write_text('{"mcpServers": {}}')
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        hook_warnings = [w for w in services.startup_warnings if "hook" in w]
        assert hook_warnings == [
            f"hooks file {folder / 'hooks.json'}: hook 'gone': prompt file {folder / 'gone.md'} is missing"]
        assert services.new_conversation().agent.hooks == ()
    finally:
        await services.aclose()
