"""What the model sees of an MCP result: text as is, media as placeholders."""

from __future__ import annotations

import base64

import mcp_types as types

from desktop_agent.core.messages import ImageContent, ResourceRef
from desktop_agent.core.ports import ToolResult
from desktop_agent.mcp_engine.results import to_tool_result


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_text_image_audio_and_resources_become_text_and_placeholders() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 20
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="look:"),
            types.ImageContent(type="image", data=_b64(png), mime_type="image/png"),
            types.AudioContent(type="audio", data=_b64(b"RIFF1234"), mime_type="audio/wav"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(
                    uri="file:///a.txt", mime_type="text/plain", text="inline text"
                ),
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="file:///a.gz", mime_type="application/gzip", blob=_b64(b"12345")
                ),
            ),
            types.ResourceLink(type="resource_link", name="readme", uri="file:///README.md"),
        ]
    )

    assert to_tool_result(result, server="s", tool="t") == ToolResult(
        text=(
            "look:\n"
            "[image: image/png, 28 bytes]\n"
            "[audio: audio/wav, 8 bytes]\n"
            "inline text\n"
            "[resource: file:///a.gz, application/gzip, 5 bytes]\n"
            "[resource link: readme file:///README.md]"
        ),
        images=(ImageContent(mime="image/png", data=png),),
        resources=(
            ResourceRef("file:///a.txt", "a.txt", "text/plain", text="inline text"),
            ResourceRef("file:///a.gz", "a.gz", "application/gzip", size=5),
            ResourceRef("file:///README.md", "readme"),
        ),
    )


def test_an_error_result_keeps_the_servers_message() -> None:
    result = types.CallToolResult(content=[types.TextContent(type="text", text="disk full")], is_error=True)

    assert to_tool_result(result, server="s", tool="t") == ToolResult(text="disk full", is_error=True)


def test_an_error_result_without_text_says_which_tool_failed() -> None:
    result = types.CallToolResult(content=[], is_error=True)

    assert to_tool_result(result, server="fs", tool="rm") == ToolResult(
        text='tool "rm" of mcp server "fs" failed without a message', is_error=True
    )


def test_structured_content_alone_is_shown_as_json() -> None:
    result = types.CallToolResult(content=[], structured_content={"temperature": 21.5, "城市": "北京"})

    assert to_tool_result(result, server="s", tool="t") == ToolResult(
        text='{"temperature": 21.5, "城市": "北京"}', structured={"temperature": 21.5, "城市": "北京"}
    )


def test_a_plain_return_value_wrapped_as_result_is_not_repeated_as_structured_content() -> None:
    wrapped = types.CallToolResult(
        content=[types.TextContent(type="text", text="4735")], structured_content={"result": "4735"}
    )
    listed = types.CallToolResult(
        content=[types.TextContent(type="text", text="[1, 2]")], structured_content={"result": [1, 2]}
    )
    other = types.CallToolResult(
        content=[types.TextContent(type="text", text="done")], structured_content={"result": "4735"}
    )

    assert to_tool_result(wrapped, server="s", tool="t").structured is None
    assert to_tool_result(listed, server="s", tool="t").structured is None
    assert to_tool_result(other, server="s", tool="t").structured == {"result": "4735"}
