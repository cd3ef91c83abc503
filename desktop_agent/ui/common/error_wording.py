"""The known kinds of failure in the window's language: a refused
connection, a timeout, an HTTP 401/403/404/429/5xx, a model that is not
there, a conversation past the model's context, a stream cut off, an MCP
server that failed to start, a resource or prompt it could not give, a
form it asked that no form can show, a tool called with bad arguments or
that failed in a known way.

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
_FIELD = r"""(?P<field>'[^']*'|"[^"]*")"""
_FORM_REFUSED = re.compile(
    r'^MCP server "(?P<server>[^"]+)" asked for a form the app cannot show \((?P<why>.*)\); declined$', re.MULTILINE
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
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)" is shut down'), "err_mcp_shut_down"),
    _Kind(
        re.compile(r'^mcp server "(?P<server>[^"]+)": resource "(?P<uri>[^"]+)" gave no answer in (?P<seconds>[\d.]+) s'),
        "err_resource_timeout",
    ),
    _Kind(
        re.compile(r'^mcp server "(?P<server>[^"]+)": resource "(?P<uri>[^"]+)" failed: .*\bnot found\b', re.IGNORECASE),
        "err_resource_not_found",
    ),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)": resource "(?P<uri>[^"]+)" failed: '), "err_resource_failed"),
    _Kind(
        re.compile(r'^mcp server "(?P<server>[^"]+)": prompt "(?P<name>[^"]+)" gave no answer in (?P<seconds>[\d.]+) s'),
        "err_prompt_timeout",
    ),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)": prompt "(?P<name>[^"]+)" failed: '), "err_prompt_failed"),
    _Kind(re.compile(r'^mcp server "(?P<server>[^"]+)"'), "err_mcp_other"),
    _Kind(re.compile(r'^unknown mcp server "(?P<server>[^"]+)"'), "err_mcp_unknown"),
    _Kind(_FORM_REFUSED, "err_form_refused"),
    _Kind(re.compile(r'^tool "(?P<tool>[^"]+)" of mcp server "(?P<server>[^"]+)" failed: '), "err_mcp_tool_failed"),
    _Kind(re.compile(r'^unknown MCP tool "(?P<tool>[^"]+)"'), "err_tool_unknown"),
    _Kind(re.compile(r"^Error: unknown tool '(?P<tool>[^']*)'"), "err_tool_unknown"),
    _Kind(re.compile(r"^Error: tool '(?P<tool>[^']*)' failed: "), "err_tool_crashed"),
    _Kind(re.compile(r"^(?P<tool>[\w.-]+): invalid arguments: "), "err_tool_arguments"),
    _Kind(re.compile(r"^(?P<tool>[\w.-]+): could not start the command: "), "err_command_start"),
    _Kind(re.compile(r"^(?P<tool>[\w.-]+): cwd does not exist or is not a folder: (?P<cwd>.*)"), "err_command_cwd"),
    _Kind(re.compile(r"^(?P<tool>[\w.-]+): no enabled skill is named (?P<name>'[^']*'|\"[^\"]*\")"), "err_skill_unknown"),
    _Kind(re.compile(r"^(?P<tool>[\w.-]+): the form could not be shown to the user"), "err_form_not_shown"),
    _Kind(re.compile(r"^(?P<tool>[\w.-]+): not run: a sub-agent cannot start another one"), "err_sub_agent_nested"),
    _Kind(re.compile(r"^(Error: )?the arguments are not valid JSON"), "err_tool_json"),
)
_FORM_WHY: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"^field {_FIELD} is a nested object"), "err_form_nested"),
    (re.compile(rf"^field {_FIELD} has type (?P<type>.+), which a form cannot ask$"), "err_form_type"),
    (re.compile(rf"^field {_FIELD} (offers a choice|is a list) without"), "err_form_no_options"),
    (re.compile(rf"^field {_FIELD} has an option without a text 'const'"), "err_form_option"),
    (re.compile(rf"^field {_FIELD} is not described by a JSON object"), "err_form_field"),
)
"""Why a form was refused (``core/elicit_schema.py``'s :class:`SchemaError`
phrases), each said by the UI text that says the whole refusal; a schema
that is wrong as a whole is the plain ``err_form_refused``."""


def error_kind(raw: str) -> tuple[str, dict[str, str]] | None:
    """The UI text of ``raw``'s kind and the values it quotes; None when it is of no known kind."""
    for kind in _KINDS:
        match = kind.pattern.search(raw)
        if match is not None and kind.check(match):
            fields = {k: v for k, v in match.groupdict().items() if v is not None}
            if kind.key == "err_form_refused":
                return _form_refusal(fields)
            return kind.key, _unquoted(fields)
    return None


def _form_refusal(fields: dict[str, str]) -> tuple[str, dict[str, str]]:
    """A refused form's kind: what was wrong with its schema, when known."""
    why = fields.pop("why")
    for pattern, key in _FORM_WHY:
        match = pattern.search(why)
        if match is not None:
            return key, _unquoted(fields | {k: v for k, v in match.groupdict().items() if v is not None})
    return "err_form_refused", fields


def _unquoted(fields: dict[str, str]) -> dict[str, str]:
    """Names quoted as Python quotes them (``'address'``) without the quotes:
    the UI text puts its own around them."""
    return {k: v[1:-1] if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"" else v for k, v in fields.items()}


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


def mention_words(texts: Texts, exc: MentionError) -> tuple[str, str | None]:
    """Why a message's MCP prompt or mention was not expanded, in ``texts``'
    language, and the English line as the detail where that was worded from
    its kind (a server that could not give a resource or prompt): the UI
    text the engine named, else the line's known kind, else the line."""
    if exc.key is None or exc.key not in keys():
        return worded_error(texts, str(exc))
    if texts.language == "en":
        return str(exc), None
    return texts.tr(exc.key, **exc.fields), None


def mention_reason(texts: Texts, exc: MentionError) -> str:
    """:func:`mention_words` without the detail."""
    return mention_words(texts, exc)[0]


def not_sent_markdown(texts: Texts, reason: str, detail: str | None = None) -> str:
    """The notice of a message that was not sent: ``reason`` as written (a
    ``/mcp__a__b`` is no bold), the English ``detail`` as a muted second paragraph."""
    notice = texts.tr("msg_not_sent", reason=reason.translate(_MARKDOWN))
    if detail is None:
        return notice
    return f"{notice}\n\n*{texts.tr('err_detail')}: {_escaped(detail)}*"


def form_refusals(output: str) -> list[str]:
    """The lines of a call's output that say a server's form was refused
    (``mcp_engine/elicitation.py``): the card says them where they are seen
    without opening its details."""
    if "asked for a form the app cannot show" not in output:
        return []
    return [m.group(0) for m in _FORM_REFUSED.finditer(output)]


def tool_error_words(texts: Texts, raw: str) -> str:
    """What a tool's error result is, in ``texts``' language: its known
    kind's UI text, else that it is the tool's own message. The card shows
    this above the tool's own words (``raw``), which are kept as they are."""
    kind = error_kind(raw)
    if kind is None:
        return texts.tr("err_tool_own")
    key, fields = kind
    return texts.tr(key, **fields)


_MARKDOWN = str.maketrans({c: f"\\{c}" for c in "\\`*_[]<>#|~"})


def _escaped(text: str) -> str:
    """The detail as plain text inside the emphasis (a ``*`` or ``_`` of its own ends nothing)."""
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", text)


__all__ = [
    "error_kind",
    "error_markdown",
    "form_refusals",
    "mention_reason",
    "mention_words",
    "not_sent_markdown",
    "tool_error_words",
    "worded_error",
]
