"""What can be wrong with an MCP servers file: the error the
engine raises, one English line for the log and the headless mode, with a
``code`` and the values it quotes so the window can say it in its language
(``ui/settings/mcp_wording.py``). Split from ``config.py``, which parses the file."""

from __future__ import annotations

from typing import Literal

McpProblemCode = Literal[
    "missing_file",
    "not_regular",
    "too_large",
    "unreadable",
    "not_utf8",
    "not_json",
    "too_deep",
    "number_too_long",
    "duplicate_key",
    "not_object",
    "servers_missing",
    "servers_not_object",
    "servers_empty",
    "bad_value",
    "bad_name",
    "server_not_object",
    "url_on_stdio",
    "command_required",
    "no_command_or_url",
    "command_and_url",
    "url_scheme",
    "enabled_contradicts",
]
"""Each kind of servers-file problem; the window words one as
``mcp_problem_<code>`` in its own language (the message stays English)."""

ValueKind = Literal[
    "transport", "string", "string_list", "string_map", "isolation",
    "seconds", "bool", "positive_int", "server_map", "invalid",
]
"""What a ``bad_value`` field must be (``fields["expected"]``)."""


class McpConfigError(ValueError):
    """The MCP servers file is wrong; the one-line message names the server and field.

    ``str(exc)`` is the English line the log and headless mode print;
    ``code`` and ``fields`` (``path``, ``server``, ``key``, ``expected``,
    ``got``, ``line``, ``column``, ``error``, ``errno``, ``transport``, ``limit``:
    those the line quotes) let the window say the same in its language. ``code`` is None
    only for an error raised without one."""

    def __init__(self, message: str, code: McpProblemCode | None = None, **fields: object) -> None:
        super().__init__(message)
        self.code: McpProblemCode | None = code
        self.fields: dict[str, object] = fields
