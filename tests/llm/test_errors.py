"""How openai SDK failures become one-line LLMErrors: the code, the words, no key."""

from __future__ import annotations

import socket

import httpx2
import openai
import pytest

from desktop_agent.core.ports import LLMError
from desktop_agent.llm.errors import (
    StreamEndedEarly,
    display_url,
    is_retryable,
    one_line,
    redact,
    status_error,
    to_llm_error,
)

URL = "http://127.0.0.1:8000/v1"
KEY = "sk-test-KEY-98765"
REQUEST = httpx2.Request("POST", f"{URL}/chat/completions")


def status(code: int, body: object = None) -> openai.APIStatusError:
    return openai.APIStatusError(f"Error code: {code}", response=httpx2.Response(code, request=REQUEST), body=body)


def refused() -> openai.APIConnectionError:
    error = openai.APIConnectionError(request=REQUEST)
    error.__cause__ = ConnectionRefusedError(111, "Connection refused")
    return error


def word(exc: Exception, *, started: bool = False) -> LLMError:
    return to_llm_error(exc, base_url=URL + "/", model="m", api_key=KEY, timeout_s=2.5, started=started)


def said(error: LLMError) -> tuple[str, str]:
    """LLMError is an exception (no value equality): compare what it says."""
    return (error.code, error.message)


@pytest.mark.parametrize(
    ("exc", "code", "message"),
    [
        (
            status(401, {"message": f"Incorrect API key provided: {KEY}"}),
            "auth",
            f"401 Unauthorized from {URL}: the API key was rejected (check the key in Settings or --api-key)",
        ),
        (
            status(403, {"message": "no access"}),
            "auth",
            f"403 Forbidden from {URL}: access denied (no access); check the key's permissions",
        ),
        (
            status(404, {"message": "model not found"}),
            "bad_request",
            f"404 Not Found from {URL}: model not found (check the base URL and the model name 'm')",
        ),
        (
            status(429, {"message": "slow\n  down"}),
            "rate_limit",
            f"429 Too Many Requests from {URL}: rate limited (slow down); wait a moment and try again",
        ),
        (
            status(503, "overloaded"),
            "server",
            f"503 Service Unavailable from {URL}: the server failed (overloaded); try again later",
        ),
        (
            status(400, {"message": f"bad key {KEY}"}),
            "bad_request",
            f"400 Bad Request from {URL}: the request was refused (bad key ***)",
        ),
        (
            status(499, None),
            "bad_request",
            f"HTTP 499 from {URL}: the request was refused (Error code: 499)",
        ),
        (openai.APITimeoutError(REQUEST), "connection", f"timed out after 2.5s waiting for {URL}"),
        (refused(), "connection", f"cannot reach {URL}: connection refused"),
        (
            openai.APIError("upstream\nfailed", REQUEST, body=None),
            "server",
            f"{URL} reported an error: upstream failed",
        ),
        (
            ValueError("Expecting value: line 1 column 1"),
            "server",
            f"{URL} sent a reply that is not an OpenAI-compatible stream "
            "(ValueError: Expecting value: line 1 column 1)",
        ),
    ],
)
def test_each_failure_maps_to_its_code_and_one_line(exc: Exception, code: str, message: str) -> None:
    error = word(exc)

    assert (error.code, error.message) == (code, message)
    assert "\n" not in error.message and KEY not in error.message


@pytest.mark.parametrize(
    ("cause", "reason"),
    [
        (ConnectionRefusedError(), "connection refused"),
        (socket.gaierror(-2, "Name or service not known"), "host not found"),
        (ConnectionResetError(), "connection reset"),
        (TimeoutError(), "timed out"),
        (OSError("TLS handshake\nfailed"), "TLS handshake failed"),
    ],
)
def test_a_connection_error_names_the_deepest_cause_worth_naming(cause: BaseException, reason: str) -> None:
    error = openai.APIConnectionError(request=REQUEST)
    try:
        try:
            raise cause
        except BaseException as inner:
            raise RuntimeError("Connection error.") from inner
    except RuntimeError as middle:
        error.__cause__ = middle

    assert word(error).message == f"cannot reach {URL}: {reason}"


def test_a_connection_error_without_any_cause_says_connection_error() -> None:
    assert word(openai.APIConnectionError(request=REQUEST)).message == f"cannot reach {URL}: connection error"


def test_anything_after_the_first_delta_is_stream_dropped() -> None:
    assert said(word(refused(), started=True)) == (
        "stream_dropped",
        f"the stream from {URL} was cut off mid-reply (connection refused)",
    )
    assert said(word(status(502, "bad gateway"), started=True)) == (
        "stream_dropped",
        f"the stream from {URL} was cut off mid-reply "
        f"(502 Bad Gateway from {URL}: the server failed (bad gateway); try again later)",
    )


@pytest.mark.parametrize(
    ("exc", "retryable"),
    [
        (status(429), True),
        (status(500), True),
        (status(503), True),
        (status(400), False),
        (status(401), False),
        (status(404), False),
        (refused(), True),
        (openai.APITimeoutError(REQUEST), True),
        (StreamEndedEarly("no finish_reason"), True),
        (ValueError("not JSON"), False),
    ],
)
def test_only_transient_failures_are_retryable(exc: Exception, retryable: bool) -> None:
    assert is_retryable(exc) is retryable


@pytest.mark.parametrize(
    ("base_url", "shown"),
    [
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
        ("  https://api.example.org/v1 ", "https://api.example.org/v1"),
        ("https://user:secret@api.example.org:8443/v1", "https://api.example.org:8443/v1"),
        ("https://token@api.example.org/v1", "https://api.example.org/v1"),
    ],
)
def test_display_url_drops_credentials_and_the_trailing_slash(base_url: str, shown: str) -> None:
    assert display_url(base_url) == shown


def test_one_line_collapses_whitespace_and_cuts_long_text() -> None:
    assert one_line(" a\n\tb   c \r\n") == "a b c"
    assert one_line("x" * 300, limit=10) == "x" * 9 + "…"


def test_redact_hides_the_key_but_not_short_keys() -> None:
    assert said(redact(LLMError(f"echo {KEY}!", "auth"), KEY)) == ("auth", "echo ***!")
    assert said(redact(LLMError("a b c", "auth"), "b")) == ("auth", "a b c")


def test_status_error_for_an_unknown_status_still_names_it() -> None:
    assert said(status_error(599, URL, "odd", "m")) == (
        "server",
        f"HTTP 599 from {URL}: the server failed (odd); try again later",
    )
