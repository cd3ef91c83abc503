"""show_card: the model shows the user a card (title, markdown body, an
optional image and label/value fields).

It skips approval: it changes nothing and asks nothing of the user
(contracts §2), and it returns at once so the turn is not held up.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from desktop_agent.core.messages import Card
from desktop_agent.core.messages import CardField as CardItem
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.tools.arguments import ArgumentError, NonEmptyStr, parse_arguments, tool_parameters

log = logging.getLogger(__name__)

NAME = "show_card"


def _number_as_text(value: object) -> object:
    # Models often send numbers as values; show them as written.
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class CardField(BaseModel):
    label: NonEmptyStr
    value: Annotated[str, BeforeValidator(_number_as_text)]


class ShowCardArgs(BaseModel):
    title: NonEmptyStr
    body: str = Field(description="Markdown.")
    image_path: str | None = Field(None, description="Path of a local image file (optional).")
    fields: list[CardField] = Field(default_factory=list, description="Label/value pairs (optional).")


SPEC = ToolSpec(
    name=NAME,
    description=(
        "Show the user a card: a title, a markdown body, optionally a local image "
        "and a list of label/value fields. Use it to present a result at a glance; "
        "it does not wait for the user."
    ),
    parameters=tool_parameters(ShowCardArgs),
    skip_approval=True,
    annotations=ToolAnnotations(read_only=True, destructive=False, idempotent=False, open_world=False),
)


def parse_card(arguments: Mapping[str, Any]) -> Card:
    """The card as the model asked for it (``image_path`` not checked yet)."""
    args = parse_arguments(ShowCardArgs, arguments)
    return Card(
        args.title,
        args.body,
        args.image_path or None,
        tuple(CardItem(f.label, f.value) for f in args.fields),
    )


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
        if card.image_path is not None:
            found = _existing_file(card.image_path)
            if found is None:
                log.info("show_card: image %s not found; showing the card without it", card.image_path)
                note = f" without image (image_path not found: {card.image_path})"
            card = replace(card, image_path=found)
        ctx.push_card(card)
        return ToolResult(f"Card shown{note}.")


def _existing_file(path: str) -> str | None:
    # A local stat: cheap enough to do on the loop.
    file = Path(path).expanduser()
    return str(file.resolve()) if file.is_file() else None
