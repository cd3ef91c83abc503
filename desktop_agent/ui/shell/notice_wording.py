"""Start-up and runtime warnings in the window's language (no English
engine line inside the Chinese UI).

The engines say each warning as a :class:`~desktop_agent.core.notice.Notice`:
the English line (what the log and the headless mode print) with the UI text
that words it. The English window shows the line itself, so it reads as it
always did; a plain ``str`` (no key) is shown as it is in any language.
"""

from __future__ import annotations

from desktop_agent.core.notice import Notice
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.texts import Texts, keys
from desktop_agent.ui.common.os_wording import with_os_reason
from desktop_agent.ui.settings.mcp_wording import problem as mcp_problem


def notice_text(texts: Texts, line: str) -> str:
    """``line`` worded in ``texts``' language."""
    if not isinstance(line, Notice) or texts.language == "en" or line.key not in keys():
        return str(line)
    fields = with_os_reason(texts, line.fields)
    if isinstance(line.cause, McpConfigError):
        fields["problem"] = mcp_problem(texts, line.cause)
    text = texts.tr(line.key, **fields)
    if line.frame is None:
        return text
    fields["problem"] = text
    return texts.tr(line.frame, **fields)


__all__ = ["notice_text"]
