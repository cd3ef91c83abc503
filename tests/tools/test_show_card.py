from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from desktop_agent.core.ports import ToolResult
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.tools.show_card import ShowCardTool

if TYPE_CHECKING:
    from tests.tools.conftest import WatchedContext

Drain = Callable[[RecordingBus], list[dict[str, Any]]]


async def test_the_card_is_pushed_on_the_bus_with_every_field(
    ctx: WatchedContext, bus: RecordingBus, drain: Drain, tmp_path: Path
) -> None:
    image = tmp_path / "cat.png"
    image.write_bytes(b"\x89PNG")
    args = {
        "title": "Weather",
        "body": "**Sunny**, 25 °C",
        "image_path": str(image),
        "fields": [{"label": "Wind", "value": "3 m/s"}, {"label": "Humidity", "value": 40}],
    }

    async with asyncio.timeout(5):
        result = await ShowCardTool().run(args, ctx)

    assert result == ToolResult("Card shown.")
    assert drain(bus) == [
        {
            "type": "card",
            "tool_call_id": "call-1",
            "card": {
                "title": "Weather",
                "body": "**Sunny**, 25 °C",
                "image_path": str(image.resolve()),
                "fields": [{"label": "Wind", "value": "3 m/s"}, {"label": "Humidity", "value": "40"}],
            },
        }
    ]


async def test_a_minimal_card_has_no_image_and_no_fields(
    ctx: WatchedContext, bus: RecordingBus, drain: Drain
) -> None:
    async with asyncio.timeout(5):
        result = await ShowCardTool().run({"title": "Hi", "body": ""}, ctx)

    assert result == ToolResult("Card shown.")
    assert drain(bus) == [
        {
            "type": "card",
            "tool_call_id": "call-1",
            "card": {"title": "Hi", "body": "", "image_path": None, "fields": []},
        }
    ]


async def test_a_missing_image_shows_the_card_without_it_and_says_so(
    ctx: WatchedContext, bus: RecordingBus, drain: Drain, tmp_path: Path
) -> None:
    missing = str(tmp_path / "nope.png")

    async with asyncio.timeout(5):
        result = await ShowCardTool().run({"title": "T", "body": "b", "image_path": missing}, ctx)

    assert result == ToolResult(f"Card shown without image (image_path not found: {missing}).")
    assert drain(bus) == [
        {
            "type": "card",
            "tool_call_id": "call-1",
            "card": {"title": "T", "body": "b", "image_path": None, "fields": []},
        }
    ]


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"body": "b"}, "title is required"),
        ({"title": " ", "body": "b"}, "title must be a non-empty string, got ' '"),
        ({"title": "T"}, "body is required"),
        ({"title": "T", "body": 5}, "body must be a string, got 5"),
        ({"title": "T", "body": "b", "image_path": 1}, "image_path must be a string, got 1"),
        ({"title": "T", "body": "b", "fields": {"a": "b"}}, "fields must be a list, got an object"),
        ({"title": "T", "body": "b", "fields": ["x"]}, "fields[0] must be an object, got 'x'"),
        ({"title": "T", "body": "b", "fields": [{"value": "v"}]}, "fields[0].label is required"),
        ({"title": "T", "body": "b", "fields": [{"label": "L"}]}, "fields[0].value is required"),
        (
            {"title": "T", "body": "b", "fields": [{"label": "L", "value": None}]},
            "fields[0].value must be a string, got None",
        ),
    ],
)
async def test_invalid_arguments_push_nothing_and_give_an_error_naming_the_problem(
    ctx: WatchedContext, bus: RecordingBus, drain: Drain, arguments: dict[str, Any], error: str
) -> None:
    async with asyncio.timeout(5):
        result = await ShowCardTool().run(arguments, ctx)

    assert result == ToolResult(f"show_card: invalid arguments: {error}", is_error=True)
    assert drain(bus) == []


def test_the_tool_skips_approval() -> None:
    spec = ShowCardTool().spec
    assert (spec.name, spec.skip_approval, spec.server) == ("show_card", True, None)
