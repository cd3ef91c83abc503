"""What the window needs from the composition root (``app.py``), as one
frozen value. Type-only imports keep this — and the window — importable
before asyncio and the core are (start-up: the window shows first)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.ports import AudioSink
    from desktop_agent.storage.settings import Settings, SettingsStore


def _no_key() -> str | None:
    return None


@dataclass(frozen=True)
class WindowDeps:
    conversation: Conversation
    forms: FormManager
    settings_store: SettingsStore
    settings: Settings
    model_name: str
    is_demo: bool = False
    demo_notice: str | None = None
    """How to connect a real model (the status bar's tooltip)."""
    mcp_statuses: Callable[[], Iterable[Any]] | None = None
    """Each MCP server's state (``mcp_engine.ServerStatus``-like objects)."""
    sink: AudioSink | None = None
    """The speaker; ``set_volume``/``set_muted`` are used when it has them."""
    get_api_key: Callable[[], str | None] = _no_key
    set_api_key: Callable[[str | None], None] | None = None
    key_note: str = ""
    """Where the key is kept, in words (``secrets.storage_note()``)."""
    warnings: tuple[str, ...] = ()
    """Start-up warnings, shown once in the conversation."""
    on_settings_saved: Callable[[Settings], None] | None = None
    apply_settings: Callable[[Settings], Any] | None = None
    """Apply saved settings to the running services (endpoint, model, key,
    speech); returns an object with ``model``, ``is_demo``, ``demo_notice``
    and ``error`` (one line, or None)."""
    new_conversation: Callable[[], Conversation] | None = None
    """Start a fresh conversation (the New button); None hides the button."""
    save_conversation: Callable[[Conversation], None] | None = None
    """Store a conversation's history (after each turn, and at close)."""
