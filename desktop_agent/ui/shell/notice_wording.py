"""Start-up and runtime warnings in the window's language (no English
engine line inside the Chinese UI).

The engines say each warning as a :class:`~desktop_agent.core.notice.Notice`:
the English line (what the log and the headless mode print) with the UI text
that words it. The English window shows the line itself, so it reads as it
always did; a plain ``str`` (no key) is shown as it is in any language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

from desktop_agent.core.notice import Notice
from desktop_agent.texts import Texts, keys
from desktop_agent.ui.common.os_wording import with_os_reason

if TYPE_CHECKING:
    from desktop_agent.mcp_engine.config_errors import McpConfigError


def notice_text(texts: Texts, line: str) -> str:
    """``line`` worded in ``texts``' language."""
    if not isinstance(line, Notice) or texts.language == "en" or line.key not in keys():
        return str(line)
    fields = with_os_reason(texts, line.fields)
    if line.cause is not None and _is_mcp_config_error(line.cause):
        from desktop_agent.ui.settings.mcp_wording import problem as mcp_problem

        fields["problem"] = mcp_problem(texts, line.cause)
    text = texts.tr(line.key, **fields)
    if line.frame is None:
        return text
    fields["problem"] = text
    return texts.tr(line.frame, **fields)


def _is_mcp_config_error(cause: object) -> TypeGuard[McpConfigError]:
    """The MCP wording is imported only for such a cause, not at the top:
    the window shows its notice line before any MCP code is loaded
    (``mcp_engine`` brings the MCP SDK, about a second of start-up)."""
    from desktop_agent.mcp_engine.config_errors import McpConfigError

    return isinstance(cause, McpConfigError)


__all__ = ["notice_text"]
