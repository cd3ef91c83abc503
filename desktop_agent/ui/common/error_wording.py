"""The known kinds of failure in the window's language: a refused
connection, a timeout, an HTTP 401/403/404/429/5xx, a model that is not
there, a conversation past the model's context, a stream cut off, an MCP
server that failed to start, a tool called with bad arguments.

The engines say each failure as one English line (the log and the headless
mode print it; ``llm/errors.py``, ``mcp_engine/connection.py``, the tools):
a Chinese window showed that line after "错误:". Here the line's kind is
recognised from those engines' own wordings (the tests make them with the
engines' own functions, so a changed wording fails a test rather than
falling back silently), said in the UI language, and the English line kept
as the detail beside it. A line of no known kind is shown as it is; so is
every line in the English window, where the engine's words are already the
UI's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from desktop_agent.core.mentions import MentionError
from desktop_agent.texts import Texts, keys

_URL = r"(?P<url>\S+)"
_CONTEXT = re.compile(
    r"context length|context_length_exceeded|maximum context|context size|context window|too many tokens"
    r"|prompt is too long|reduce the length",
    re.IGNORECASE,
)
_NO_MODEL = re.compile(r"model\b.*\b(not found|does not exist|not exist|unknown)|no such model", re.IGNORECASE)


@dataclass(frozen=True)
class _Kind:
    pattern: re.Pattern[str]
    key: str
    check: Callable[[re.Match[str]], bool] = lambda _m: True


_KINDS: tuple[_Kind, ...] = (
    _Kind(re.compile(rf"^the stream from {_URL} was cut off mid-reply"), "err_stream_cut"),
    _Kind(re.compile(rf"^cannot reach {_URL}: connection refused"), "err_refused"),
    _Kind(re.compile(rf"^cannot reach {_URL}: host not found"), "err_host_not_found"),
    _Kind(re.compile(rf"^cannot reach {_URL}: timed out"), "err_timeout_connect"),
    _Kind(re.compile(rf"^timed out after (?P<seconds>[\d.]+)s waiting for {_URL}"), "err_timeout"),
    _Kind(re.compile(rf"^cannot reach {_URL}: "), "err_unreachable"),
    _Kind(re.compile(rf"^(?P<status>401)\b.* from {_URL}: "), "err_http_401"),
    _Kind(re.compile(rf"^(?P<status>403)\b.* from {_URL}: "), "err_http_403"),
    _Kind(
        re.compile(rf"^(?P<status>404)\b.* from {_URL}: .*\(check the base URL and the model name '(?P<model>[^']*)'\)"),
        "err_model_not_found",
        lambda m: _NO_MODEL.search(m.string) is not None,
    ),
    _Kind(re.compile(rf"^(?P<status>404)\b.* from {_URL}: "), "err_http_404"),
    _Kind(re.compile(rf"^(?P<status>429)\b.* from {_URL}: "), "err_http_429"),
    _Kind(re.compile(rf"^(?P<status>\d{{3}})\b.* from {_URL}: "), "err_context", lambda m: _CONTEXT.search(m.string) is not None),
    _Kind(re.compile(rf"^(?P<status>5\d\d)\b.* from {_URL}: "), "err_http_5xx"),
    _Kind(re.compile(rf"^{_URL} ended the stream without a reply"), "err_no_reply"),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)" did not start within (?P<seconds>[\d.]+) s'), "err_mcp_start_timeout"),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)" failed to start'), "err_mcp_start"),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)": the sign-in has expired'), "err_mcp_sign_in_expired"),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)" needs you to sign in'), "err_mcp_sign_in"),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)" stopped answering'), "err_mcp_not_answering"),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)"'), "err_mcp_other"),
    _Kind(re.compile(r"^(?P<tool>[\w.-]+): invalid arguments: "), "err_tool_arguments"),
    _Kind(re.compile(r"^the arguments are not valid JSON"), "err_tool_json"),
)


def error_kind(raw: str) -> tuple[str, dict[str, str]] | None:
    """The UI text of ``raw``'s kind and the values it quotes; None when it is of no known kind."""
    for kind in _KINDS:
        match = kind.pattern.search(raw)
        if match is not None and kind.check(match):
            return kind.key, {k: v for k, v in match.groupdict().items() if v is not None}
    return None


def worded_error(texts: Texts, raw: str) -> tuple[str, str | None]:
    """``raw`` in ``texts``' language and the detail to keep beside it: the
    English line itself (None when the words are the line: English, or a
    line of no known kind)."""
    if texts.language == "en":
        return raw, None
    kind = error_kind(raw)
    if kind is None:
        return raw, None
    key, fields = kind
    return texts.tr(key, **fields), raw


def error_markdown(texts: Texts, label: str, raw: str) -> str:
    """A notice bubble's Markdown: ``**label:** words``, the engine's line
    after it as a muted second paragraph when the words are translated."""
    words, detail = worded_error(texts, raw)
    if detail is None:
        return f"**{label}:** {words}"
    return f"**{label}:** {words}\n\n*{texts.tr('err_detail')}: {_escaped(detail)}*"


def mention_reason(texts: Texts, exc: MentionError) -> str:
    """Why a message's MCP prompt or mention was not expanded, in ``texts``'
    language (the English line where the engine named no UI text)."""
    if exc.key is None or texts.language == "en" or exc.key not in keys():
        return str(exc)
    return texts.tr(exc.key, **exc.fields)


def _escaped(text: str) -> str:
    """The detail as plain text inside the emphasis (a ``*`` or ``_`` of its own ends nothing)."""
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", text)


__all__ = ["error_kind", "error_markdown", "mention_reason", "worded_error"]
