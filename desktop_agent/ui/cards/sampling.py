"""What the card of a server's sampling request says (contracts §10): which
server asks, its messages as readable lines (the role, then the text), and
the token limit, in the user's language. Pure functions of the card's state,
beside :mod:`~desktop_agent.ui.cards.wording`."""

from __future__ import annotations

from dataclasses import replace

from desktop_agent.mcp_engine.sampling import SamplingView, sampling_view
from desktop_agent.texts import Texts
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import ToolCardState
from desktop_agent.ui.cards.wording import title_for

MESSAGE_MAX_CHARS = 2000
"""A message longer than this is cut on the card (the model gets all of it)."""


def sampling_of(state: ToolCardState) -> SamplingView | None:
    """The request a card shows; None for a tool call."""
    return sampling_view(state.tool_name, state.parent_tool_call_id, state.arguments)


def sampling_title(texts: Texts, state: ToolCardState, view: SamplingView) -> str:
    if state.phase == CardPhase.APPROVAL:
        return texts.tr("card_sampling_approval", server=view.server)
    return title_for(texts, replace(state, tool_name=texts.tr("card_sampling", server=view.server)))


def sampling_text(texts: Texts, view: SamplingView) -> str:
    """``User: …`` per message, then the limit."""
    lines: list[str] = []
    for message in view.messages:
        key = f"card_sampling_role_{message.role}"
        role = texts.tr(key) if message.role in ("user", "assistant") else message.role
        text = message.text if len(message.text) <= MESSAGE_MAX_CHARS else message.text[:MESSAGE_MAX_CHARS] + "…"
        lines.append(f"{role}: {text}")
    limit = (
        texts.tr("card_sampling_limit", n=view.max_tokens) if view.max_tokens is not None
        else texts.tr("card_sampling_limit_unknown")
    )
    return "\n".join([*lines, "", limit])
