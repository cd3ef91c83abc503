"""The MCP servers file's problems and an import's outcome, in the window's
language (no English engine line inside the Chinese UI).

:class:`~desktop_agent.mcp_engine.config.McpConfigError` keeps its English
line for the log and the headless mode; its ``code`` and ``fields`` are
worded here as ``mcp_problem_<code>``, the same way the Skills page words a
:class:`~desktop_agent.skills_engine.skill_file.SkillFormatError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from desktop_agent.core.approval import BUILTIN, split_allow_key
from desktop_agent.core.command_rules import is_rule_key, rule_prefix
from desktop_agent.core.nested_call import is_request_allow_key
from desktop_agent.mcp_engine import servers_file
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.mcp_engine.servers_file import ImportOutcome
from desktop_agent.texts import Texts, keys
from desktop_agent.ui.common.error_wording import worded_error
from desktop_agent.ui.common.os_wording import os_error_text, os_reason

if TYPE_CHECKING:
    from desktop_agent.mcp_engine import ServerStatus

def listed(texts: Texts, items: list[str]) -> str:
    """Names in a row: ``a, b`` / ``a、b``."""
    return ("、" if texts.language == "zh" else ", ").join(items)


def problem_text(texts: Texts, exc: McpConfigError) -> str:
    """What is wrong, without the server it is about."""
    fields = dict(exc.fields)
    if "key" in fields:  # tr's own first parameter is named key
        fields["field"] = fields.pop("key")
    code = exc.code
    if code is None or f"mcp_problem_{code}" not in keys():
        return str(exc).removeprefix("mcp config: ")
    if code == "unreadable":
        fields["error"] = os_reason(texts, fields.get("errno"), str(fields.get("error", "")))
    if code == "bad_value":
        fields["expected"] = texts.tr(f"mcp_expected_{fields.get('expected', 'invalid')}")
        if fields.get("got"):
            return texts.tr("mcp_problem_bad_value_got", **fields)
    return texts.tr(f"mcp_problem_{code}", **fields)


def problem(texts: Texts, exc: McpConfigError | OSError) -> str:
    """One line for the Tools page or the server editor: the problem, after
    the server's name when it is about one server."""
    if isinstance(exc, OSError):  # saving the file
        path = exc.filename if exc.filename is not None else ""
        return texts.tr("mcp_problem_unwritable", path=path, error=os_error_text(texts, exc))
    text = problem_text(texts, exc)
    server = exc.fields.get("server")
    return texts.tr("mcp_problem_in_server", server=server, problem=text) if server is not None else text


def import_outcome(texts: Texts, outcome: ImportOutcome) -> tuple[bool, str]:
    """Whether anything was imported, and the line that says what happened:
    how many, which were renamed and why, which were skipped and why."""
    skipped = listed(
        texts,
        [texts.tr("mcp_import_skipped_item", name=name, problem=problem_text(texts, exc)) for name, exc in outcome.skipped]
    )
    if not outcome.added and not outcome.unchanged and outcome.skipped:
        return False, texts.tr("mcp_import_failed", reason=texts.tr("mcp_import_none_usable", items=skipped))
    added = len(outcome.added)
    if not added and not outcome.replaced:  # the rest is here already
        parts = [texts.tr("mcp_import_all_there")]
    elif not added:
        parts = []
    else:
        parts = [texts.tr("mcp_imported", count=added)]
    if outcome.replaced:
        parts.append(texts.tr("mcp_import_replaced", names=listed(texts, list(outcome.replaced))))
    if outcome.declined:
        parts.append(texts.tr("mcp_import_declined", names=listed(texts, list(outcome.declined))))
    if outcome.fixed_names:
        parts.append(texts.tr("mcp_import_fixed", pairs=listed(texts, [f"{a} → {b}" for a, b in outcome.fixed_names])))
    if outcome.renamed:
        parts.append(texts.tr("mcp_import_renamed", pairs=listed(texts, [f"{a} → {b}" for a, b in outcome.renamed])))
    if outcome.skipped:
        parts.append(texts.tr("mcp_import_skipped", items=skipped))
    return True, ("" if texts.language == "zh" else " ").join(parts)  # no space after 。


def import_failed(texts: Texts, exc: McpConfigError | OSError) -> str:
    return texts.tr("mcp_import_failed", reason=problem(texts, exc))


def server_tooltip(line: str, status: ServerStatus | None, texts: Texts | None = None) -> str:
    """A server row's tooltip: why it failed (a known kind in ``texts``'
    language, the engine's line under it), or its line and then its tools,
    one a line."""
    if status is None:
        return ""
    if status.error:
        if texts is None:
            return status.error
        words, detail = worded_error(texts, status.error)
        return words if detail is None else f"{words}\n{detail}"
    if status.state == "ready" and status.tools:
        return "\n".join((line, *status.tools))
    return ""


def allow_entry_text(texts: Texts, key: str) -> str:
    """An always-allow entry as the list shows it: the tool and where it
    comes from (``get_current_time — from time``)."""
    if is_request_allow_key(key):  # a server's sampling requests (``sampling:SERVER``)
        return texts.tr("allow_sampling", server=key.partition(":")[2])
    if is_rule_key(key):  # a command rule (``builtin/run_command:git status``)
        return texts.tr("allow_command", prefix=rule_prefix(key))
    server, tool = split_allow_key(key)
    if server is None:
        return texts.tr("allow_unknown", tool=tool)
    if server == BUILTIN:
        return texts.tr("allow_builtin", tool=tool)
    return texts.tr("allow_server", tool=tool, server=server)


def server_line(texts: Texts, name: str, entry: dict[str, Any], status: ServerStatus | None) -> str:
    """``time — ready · 2 tools`` (a disabled server: ``— off``)."""
    if not servers_file.is_enabled(entry):
        return texts.tr("mcp_line_off", name=name)
    state = status.state if status is not None else "stopped"
    word = texts.tr(f"mcp_state_{state}") if f"mcp_state_{state}" in keys() else state
    if status is not None and status.state == "ready":
        return texts.tr("mcp_line_tools", name=name, state=word, count=status.tool_count)
    return texts.tr("mcp_line", name=name, state=word)
