"""Turning openai SDK failures into one-line :class:`LLMError`s a user can act on.

The SDK's own messages ("Connection error.", "Error code: 401 - {...}") say
neither which endpoint failed nor what to do; these do, and they never carry
the API key (a server that echoes it gets it redacted).
"""

from __future__ import annotations

import re
import socket
from http import HTTPStatus

import openai

from desktop_agent.core.ports import LLMError
from desktop_agent.llm.endpoint import display_url as display_url  # re-exported: its old home

_SPACES = re.compile(r"\s+")


class StreamEndedEarly(Exception):
    """The stream ended (cleanly, as far as HTTP goes) without a finish_reason."""


class WrongShapeChunk(ValueError):
    """A stream chunk that is JSON but not a chat-completion chunk
    (``"choices": "oops"``): worded like the other protocol errors."""


def is_retryable(exc: Exception) -> bool:
    """Worth another attempt, provided nothing has been streamed yet."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return isinstance(exc, openai.APIError | StreamEndedEarly)


def one_line(text: str, *, limit: int = 200) -> str:
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def server_message(exc: openai.APIError) -> str:
    """What the server said, in one line."""
    return one_line(_server_message(exc))


def _server_message(exc: openai.APIError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    if isinstance(body, str) and body:
        return body
    return exc.message


STRICT_WIRE_PHRASES: tuple[str, ...] = (
    # Qwen3.5/3.6 chat templates (llama.cpp, Ollama, vLLM):
    #   "System message must be at the beginning."
    "system message must be at the beginning",
    # Gemma 2/3 templates: "System role not supported"
    "system role not supported",
    # Mistral, Gemma and Llama 2 templates (vLLM, TGI, llama.cpp): "Conversation roles must
    # alternate user/assistant/user/assistant/..."; Anthropic-style gateways: "messages: roles
    # must alternate between "user" and "assistant""
    "roles must alternate",
    # mistral-common (vLLM --tokenizer-mode mistral, Mistral's API):
    #   "Unexpected role 'user' after role 'tool'"
    "unexpected role",
    # Qwen3.5 templates: "Unexpected message role."
    "unexpected message role",
    # Mistral templates: "Only user and assistant roles are supported, with the exception of an
    # initial optional system message!"
    "only user and assistant roles are supported",
    # llama.cpp server: "Cannot have 2 or more assistant messages at the end of the list"
    "assistant messages at the end of the list",
    # Mistral's API: "Expected last role User or Tool (or Assistant with prefix True) for serving
    # but got assistant"
    "expected last role",
    # mistral-common: "Not the same number of function calls and responses"
    "number of function calls and responses",
    # Mistral Nemo template: "Tool call IDs should be alphanumeric strings with length 9!"
    "tool call ids should be alphanumeric",
    # Llama 3.1/3.3 templates: "This model only supports single tool-calls at once!"
    "only supports single tool-calls",
    # Bedrock (through LiteLLM and other gateways): "The toolConfig field must be defined when
    # using toolUse and toolResult content blocks."
    "toolconfig field must be defined",
    # OpenAI and servers that copy its checks: "Invalid parameter: messages with role 'tool' must
    # be a response to a preceeding message with 'tool_calls'." (sic)
    "with role 'tool' must be a response",
)
"""Lower-case fragments of the errors servers give for a message list their
chat template or validator cannot take (contracts §2a): such a refusal is asked
again once with the strict wire profile."""


def asks_for_strict_wire(exc: Exception) -> bool:
    """``exc`` is a refusal of the request's roles, system messages or tool
    messages (any HTTP status: llama.cpp has answered template errors with
    500, most servers with 400)."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code in (401, 403, 404, 429):
        return False
    said = f"{_server_message(exc)} {exc.message}".lower()
    return any(phrase in said for phrase in STRICT_WIRE_PHRASES)


def refuses_unused_tools(exc: Exception) -> bool:
    """``exc`` refused a request whose tools the model must not call
    (``tool_choice: "none"``, contracts §2a), for a reason that sending it
    without tools may avoid: a 4xx other than the key, the address or the
    rate (a server that knows no ``tool_choice``, or wants no tools that are
    not to be used), or any status whose message names tools (llama.cpp
    answers template errors with 500). Not a bare 5xx: a server that is
    down is not a server that refuses the form."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code in (401, 403, 404, 429):
        return False
    return exc.status_code < 500 or "tool" in f"{_server_message(exc)} {exc.message}".lower()


_UNKNOWN_PARAMETER = ("unsupported", "not supported", "unrecognized", "unknown", "not allowed", "extra")


def refuses_token_key(exc: Exception, key: str) -> bool:
    """``exc`` refused the name the reply limit was sent under (``key``):
    OpenAI's reasoning models say "Unsupported parameter: 'max_tokens' is not
    supported with this model. Use 'max_completion_tokens' instead.", servers
    that validate their parameters name the unknown one. A 4xx that names the
    key and either the other name or a word for an unknown parameter; "max_tokens
    is too large" is not such a refusal."""
    if not isinstance(exc, openai.APIStatusError) or not 400 <= exc.status_code < 500:
        return False
    said = f"{_server_message(exc)} {exc.message}".lower()
    other = "max_completion_tokens" if key == "max_tokens" else "max_tokens"
    names_key = re.search(rf"(?<![a-z_]){key}(?![a-z_])", said) is not None
    return names_key and (other in said or any(word in said for word in _UNKNOWN_PARAMETER))


def _network_reason(exc: BaseException) -> str:
    """What went wrong on the wire, from the deepest cause worth naming."""
    seen: BaseException | None = exc
    reason = ""
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        if isinstance(seen, socket.gaierror):
            return "host not found"
        if isinstance(seen, ConnectionResetError):
            return "connection reset"
        if isinstance(seen, TimeoutError):
            return "timed out"
        text = str(seen)
        if text and text != "Connection error.":
            reason = text
        seen = seen.__cause__ or seen.__context__
    return one_line(reason) or "connection error"


def status_error(status: int, url: str, detail: str, model: str) -> LLMError:
    try:
        head = f"{status} {HTTPStatus(status).phrase} from {url}"
    except ValueError:
        head = f"HTTP {status} from {url}"
    if status == 401:
        return LLMError(f"{head}: the API key was rejected (check the key in Settings or --api-key)", "auth")
    if status == 403:
        return LLMError(f"{head}: access denied ({detail}); check the key's permissions", "auth")
    if status == 404:
        return LLMError(f"{head}: {detail} (check the base URL and the model name {model!r})", "bad_request")
    if status == 429:
        return LLMError(f"{head}: rate limited ({detail}); wait a moment and try again", "rate_limit")
    if status >= 500:
        return LLMError(f"{head}: the server failed ({detail}); try again later", "server")
    return LLMError(f"{head}: the request was refused ({detail})", "bad_request")


def to_llm_error(
    exc: Exception, *, base_url: str, model: str, api_key: str, timeout_s: float, started: bool
) -> LLMError:
    """Word ``exc`` for the user. ``started``: a delta was already streamed."""
    url = display_url(base_url)
    if isinstance(exc, openai.APIStatusError):
        error = status_error(exc.status_code, url, one_line(_server_message(exc)), model)
    elif isinstance(exc, openai.APITimeoutError):
        error = LLMError(f"timed out after {timeout_s:g}s waiting for {url}", "connection")
    elif isinstance(exc, openai.APIConnectionError):
        error = LLMError(f"cannot reach {url}: {_network_reason(exc)}", "connection")
    elif isinstance(exc, openai.APIError):
        error = LLMError(f"{url} reported an error: {one_line(_server_message(exc))}", "server")
    else:
        error = LLMError(
            f"{url} sent a reply that is not an OpenAI-compatible stream ({type(exc).__name__}: "
            f"{one_line(str(exc), limit=120)})",
            "server",
        )
    if started:
        why = _network_reason(exc) if error.code == "connection" else error.message
        error = LLMError(f"the stream from {url} was cut off mid-reply ({why})", "stream_dropped")
    return redact(error, api_key)


def redact(error: LLMError, api_key: str) -> LLMError:
    if len(api_key) >= 4 and api_key in error.message:
        return LLMError(error.message.replace(api_key, "***"), error.code)
    return error
