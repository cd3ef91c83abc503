"""Services: the composition shared by the window and the headless mode."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from desktop_agent.llm.demo import DemoModel
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.services import build_services


@pytest.fixture
def no_servers(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    return path


async def test_without_an_endpoint_the_demo_model_is_used_and_said(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        assert isinstance(services.llm, DemoModel)
        assert services.demo_notice is not None and "--base-url" in services.demo_notice
        assert services.tts is None
        names = [s.name for s in services.router.specs()]
        assert names == ["ask_user_question", "show_card", "run_command"]
    finally:
        await services.aclose()


async def test_edited_settings_apply_to_running_conversations(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        conversation = services.new_conversation()
        edited = replace(services.settings, base_url="http://127.0.0.1:9/v1", model="m1",
                         tts_engine="espeak", max_steps=3)
        applied = services.apply_settings(edited)
        assert (applied.model, applied.is_demo, applied.error) == ("m1", False, None)
        assert isinstance(conversation.agent.llm, OpenAIProvider) and conversation.agent.llm is services.llm
        assert conversation.agent.max_steps == 3
        assert services.tts is not None and services.tts.name == "espeak"

        broken = services.apply_settings(replace(edited, base_url="ftp://nowhere", model="m2"))
        assert broken.error is not None and "http://" in broken.error and "\n" not in broken.error
        assert broken.model == "m1"  # the working model stays
    finally:
        await services.aclose()


async def test_a_bad_mcp_file_is_one_clear_error(tmp_path: Path) -> None:
    from desktop_agent.mcp_engine import McpConfigError

    bad = tmp_path / "mcp.json"
    bad.write_text('{"mcpServers": {"fs": {"command": 5}}}')
    with pytest.raises(McpConfigError, match='"fs"'):
        await build_services(mcp_config=bad, tts="none")


async def test_the_window_services_keep_conversations_across_restarts(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    first = services.resume_conversation()
    assert first.history == []
    first.history.extend([{"role": "user", "content": "remember me"}, {"role": "assistant", "content": "ok"}])
    services.save_conversation(first)
    await services.aclose()

    again = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    try:
        restored = again.resume_conversation()
        assert restored.conversation_id == first.conversation_id
        assert restored.history == first.history
    finally:
        await again.aclose()


async def test_settings_that_leave_the_endpoint_alone_keep_the_model(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none", base_url="http://127.0.0.1:9/v1",
                                    model="from-the-command-line", api_key="sk-cli")
    try:
        conversation = services.new_conversation()
        model = services.llm
        applied = services.apply_settings(replace(services.settings, muted=True, always_allow=("echo",), max_steps=2))
        assert services.llm is model and conversation.agent.llm is model
        assert (applied.model, applied.error) == ("from-the-command-line", None)
        assert services.settings.always_allow == ("echo",) and conversation.agent.max_steps == 2

        services.apply_settings(services.settings, key_changed=True)  # a new key: reconnect
        assert services.llm is not model and conversation.agent.llm is services.llm
    finally:
        await services.aclose()
