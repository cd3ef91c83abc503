"""What the main window does for the Settings dialog beyond opening it:
the Tools page's hold on the running MCP servers, and the language and
theme applied to the window — at attach, when the dialog switches them
live, and when they are saved. Kept out of ``main_window`` so the window
stays a layout; it takes the window's ``retranslate``, not the window.
Light imports only (the window shows before the services are built)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from desktop_agent.ui.common.appearance import apply_appearance, resolve_language
from desktop_agent.ui.common.theme import theme_choice

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from desktop_agent.storage.settings import Settings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.settings.mcp_feature import McpFeature

log = logging.getLogger(__name__)
_reloads: set[Any] = set()
"""Reloads under way, asyncio tasks (a task nobody holds may be collected
mid-run). asyncio itself is imported when one starts: the window imports
this module before it shows, and asyncio costs it ~45 ms there."""


def reload_if_moved(mcp: McpFeature | None, before: Settings | None, after: Settings) -> None:
    """Another servers file was chosen (Settings → Tools): run its servers now."""
    if mcp is None or mcp.reload is None or before is None:
        return
    if before.mcp_config_path == after.mcp_config_path:
        return
    import asyncio

    task = asyncio.ensure_future(_reload(mcp.reload()))
    _reloads.add(task)
    task.add_done_callback(_reloads.discard)


async def _reload(reload: Awaitable[None]) -> None:
    try:
        await reload
    except Exception:  # a broken file keeps the servers that run; the log says why
        log.exception("could not load the newly chosen MCP servers file")


def apply_settings_appearance(
    shown: Texts, retranslate: Callable[[Texts], None], before: Settings | None, after: Settings
) -> None:
    """Language and theme from ``after`` when they are not what the window
    shows now (``shown``: its texts; ``before`` None: at attach, where
    ``system`` for both is what the window already shows). A Save after the
    Appearance page switched them live finds them applied already: nothing
    is done twice. ``retranslate`` is the window's (the chosen language's
    texts and the colours again)."""
    wanted = (after.language, after.theme)
    if before is None and wanted == ("system", "system"):
        return
    if (shown.language, theme_choice()) == (resolve_language(after.language), after.theme):
        return
    retranslate(apply_appearance(*wanted))
