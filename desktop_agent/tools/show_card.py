"""show_card: the model shows the user a card (title, markdown body, an
optional image and label/value fields).

It skips approval: it changes nothing and asks nothing of the user (seed 000
"skip_approval"), and it returns at once so the turn is not held up.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop_agent.core.ports import JSONDict, ToolContext, ToolResult, ToolSpec
from desktop_agent.tools._args import ArgumentError, optional_list, optional_str, require_str

log = logging.getLogger(__name__)

NAME = "show_card"

SPEC = ToolSpec(
    name=NAME,
    description=(
        "Show the user a card: a title, a markdown body, optionally a local image "
        "and a list of label/value fields. Use it to present a result at a glance; "
        "it does not wait for the user."
    ),
    parameters={
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "body": {"type": "string", "description": "Markdown."},
            "image_path": {"type": "string", "description": "Path of a local image file (optional)."},
            "fields": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"label": {"type": "string"}, "value": {"type": "string"}},
                    "required": ["label", "value"],
                },
            },
        },
        "required": ["title", "body"],
    },
    skip_approval=True,
)


def parse_card(arguments: Mapping[str, Any]) -> JSONDict:
    """The card as pushed on the bus: ``title``, ``body``, ``image_path``
    (str or None), ``fields`` (list of ``{label, value}``), all keys present."""
    title = require_str(arguments, "title")
    body = optional_str(arguments, "body")
    if body is None:
        raise ArgumentError("body must be a string (markdown)")
    image_path = optional_str(arguments, "image_path")
    fields: list[dict[str, str]] = []
    for i, item in enumerate(optional_list(arguments, "fields") or []):
        if not isinstance(item, Mapping):
            raise ArgumentError(f"fields[{i}] must be an object with label and value")
        label = require_str(item, "label", f"fields[{i}].")
        value = item.get("value")
        # Models often send numbers as values; show them as written.
        if not isinstance(value, str | int | float):
            raise ArgumentError(f"fields[{i}].value must be a string, got {value!r}")
        fields.append({"label": label, "value": str(value)})
    return {"title": title, "body": body, "image_path": image_path or None, "fields": fields}


class ShowCardTool:
    """Built-in ``show_card``; implements Tool."""

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            card = parse_card(arguments)
        except ArgumentError as exc:
            return ToolResult(f"{NAME}: invalid arguments: {exc}", is_error=True)
        note = ""
        if card["image_path"] is not None:
            found = _existing_file(card["image_path"])
            if found is None:
                log.info("show_card: image %s not found; showing the card without it", card["image_path"])
                note = f" without image (image_path not found: {card['image_path']})"
            card["image_path"] = found
        ctx.push_card(card)
        return ToolResult(f"Card shown{note}.")


def _existing_file(path: str) -> str | None:
    # A local stat: cheap enough to do on the loop.
    file = Path(path).expanduser()
    return str(file.resolve()) if file.is_file() else None
