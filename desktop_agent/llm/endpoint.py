"""Where the model is: the endpoint chosen from the command line, the
settings and the environment, and its URL as messages show it.

Kept apart from :mod:`desktop_agent.llm.openai_provider` so choosing an
endpoint (at every start, and for the demo model) does not import the
openai SDK (~50 MiB and ~2 s here, which an idle window must not pay);
only a real endpoint does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from desktop_agent.core.ports import LLMError


@dataclass(frozen=True)
class Endpoint:
    """Where the LLM is: the result of :func:`resolve_endpoint`."""

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    """May be empty (local servers); never shown in a repr."""


def display_url(base_url: str) -> str:
    """The base URL without credentials or a trailing slash, for messages."""
    parts = urlsplit(base_url.strip())
    if parts.username is not None or parts.password is not None:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts).rstrip("/")


def resolve_endpoint(
    settings_base_url: str,
    settings_model: str,
    settings_key: Callable[[], str | None],
    cli_base_url: str | None,
    cli_model: str | None,
    cli_key: str | None,
    env: Mapping[str, str],
) -> Endpoint | None:
    """Pick the endpoint: CLI flag > settings > ``OPENAI_BASE_URL``/``OPENAI_API_KEY``.

    None means "use the offline demo model": no base URL anywhere, or the
    model named ``demo`` (``--model demo``). ``settings_key`` reads the
    stored key: it is called only when a real endpoint needs it and no flag
    gives one, so the demo model never loads the keyring (~24 MiB).
    """
    model = _first(cli_model, settings_model)
    if model == "demo":
        return None
    base_url = _first(cli_base_url, settings_base_url, env.get("OPENAI_BASE_URL"))
    if not base_url:
        return None
    if not base_url.startswith(("http://", "https://")):
        raise LLMError(f"base URL {display_url(base_url)!r} must start with http:// or https://", "config")
    if not model:
        raise LLMError("no model name: set --model or the model in Settings", "config")
    api_key = _first(cli_key) or _first(settings_key()) or _first(env.get("OPENAI_API_KEY"))
    return Endpoint(base_url=base_url, model=model, api_key=api_key)


def _first(*values: str | None) -> str:
    for value in values:
        if value and value.strip():
            return value.strip()
    return ""
