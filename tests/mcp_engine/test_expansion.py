"""A user message's MCP mentions expanded against real servers (contracts
§10): the prompt's text or the user's words, each resource fenced under its
URI, images, the chips; every failure one line before any request."""

from __future__ import annotations

import pytest

from desktop_agent.core.mentions import Attachment, ExpandedMessage, MentionError
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.expansion import expand_message
from desktop_agent.testing.everything import everything_stdio

from .conftest import SERVERS, everything_js, python_server

pytestmark = pytest.mark.integration

CATALOG_SERVER = SERVERS / "catalog_server.py"


async def test_prompts_resources_and_plain_text_expand_as_the_contract_says() -> None:
    everything_js()
    engine = McpEngine(McpConfig(servers=(everything_stdio("ev"), python_server("cat", CATALOG_SERVER))))
    try:
        await engine.start()
        plain = await expand_message(engine, "hello @bob:lunch")
        prompt = await expand_message(engine, "/mcp__ev__args-prompt city=Rome @cat:test://huge.txt")
        picture = await expand_message(engine, "/mcp__cat__picture")
        resource = await expand_message(engine, "  see @ev:demo://resource/dynamic/text/5.  ")
    finally:
        await engine.aclose()

    assert plain is None
    assert prompt is not None
    assert prompt.text.startswith("What's weather in Rome?\n\n```test://huge.txt\naaaa")
    assert prompt.text.endswith("a\n[truncated: showing the first 100,000 of 250,000 characters]\n```")
    assert prompt.attachments == (
        Attachment("prompt", "ev", "args-prompt"),
        Attachment("resource", "cat", "test://huge.txt", True),
    )
    assert picture is not None and [i.mime for i in picture.images] == ["image/png"]
    assert picture.attachments == (Attachment("prompt", "cat", "picture"),)
    assert resource is not None
    said, block = resource.text.split("\n\n", 1)
    assert said == "see @ev:demo://resource/dynamic/text/5."
    assert block.startswith("```demo://resource/dynamic/text/5\nResource 5: This is a plaintext resource")
    assert resource == ExpandedMessage(resource.text, (), (Attachment("resource", "ev", "demo://resource/dynamic/text/5"),))


async def test_a_bad_prompt_call_or_a_prompt_that_fails_is_one_line() -> None:
    everything_js()
    engine = McpEngine(
        McpConfig(servers=(everything_stdio("ev"), ServerConfig(name="off", command="node", enabled=False)))
    )
    errors: list[str] = []
    try:
        await engine.start()
        for text in (
            "/mcp__ev__args-prompt town=Rome",
            "/mcp__ev__args-prompt city=Rome city=Oslo",
            "/mcp__ev__completable-prompt department=Sales",
            "/mcp__ev__simple-prompt x=1",
            "/mcp__off__anything",
            "/mcp__ev__nope",
            "/mcp__ev__resource-prompt resourceType=Nope resourceId=1",
        ):
            with pytest.raises(MentionError) as caught:
                await expand_message(engine, text)
            errors.append(str(caught.value))
    finally:
        await engine.aclose()

    assert errors == [
        '/mcp__ev__args-prompt: no argument "town" (its arguments: city, state)',
        '/mcp__ev__args-prompt: "city" is given twice',
        "/mcp__ev__completable-prompt: missing name=…",
        '/mcp__ev__simple-prompt: no argument "x" (its arguments: none)',
        '/mcp__off__anything: mcp server "off" is disabled',
        '/mcp__ev__nope: mcp server "ev" has no prompt "nope"',
        'mcp server "ev": prompt "resource-prompt" failed: Invalid resourceType: Nope. Must be Text or Blob.',
    ]
