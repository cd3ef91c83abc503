"""What the turn's logic needs from the composition root, as a Protocol:
the conversation, the settings and how they are kept and applied, the
speaker, and what the services say of a tool; and the two features it uses
that may be off (:class:`SettingsFeature`, :class:`ConversationKeeper`), as
small frozen objects, absent when off. The window's ``WindowDeps``
satisfies it; the turn logic names only this, so ``ui/chat`` does not
reach up into the shell for it (import-linter's ``ui-features`` contract)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.mentions import ExpandedMessage
    from desktop_agent.core.ports import AudioSink
    from desktop_agent.core.risk import ToolAnnotations
    from desktop_agent.mcp_engine import Readiness
    from desktop_agent.services import AppliedSettings
    from desktop_agent.storage.secrets import KeyStorage
    from desktop_agent.storage.settings import Settings, SettingsStore


class SettingsApplier(Protocol):
    """Apply settings to the running services (``Services.apply_settings``):
    endpoint, model, speech and limits; ``key_changed`` when the stored API
    key changed, so the model is reconnected even if the endpoint did not."""

    def __call__(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings: ...


class KeySource(Protocol):
    """The stored API key, asked only when needed (reading it loads the
    keyring: ~24 MiB of an idle window)."""

    def api_key(self) -> str | None:
        """The stored key; None when there is none."""
        ...

    def note(self) -> KeyStorage | str:
        """Where the key is kept (the Settings dialog words it)."""
        ...


class NoKey:
    """No stored key and nothing to say where one would be (tests, a window
    without services)."""

    def api_key(self) -> str | None:
        return None

    def note(self) -> KeyStorage | str:
        return ""


class ToolFactsSource(Protocol):
    """What the running services say of a tool, by its name (the router and
    the MCP servers behind it): the cards name its server and mark its risk,
    always-allow entries are keyed by its server."""

    def server(self, tool_name: str) -> str | None:
        """The MCP server offering the tool; None for a built-in (or unknown) tool."""
        ...

    def annotations(self, tool_name: str) -> ToolAnnotations | None:
        """What the tool says of its risk; None when it says nothing."""
        ...

    def allow_key(self, tool_name: str) -> str | None:
        """The always-allow entry a bare saved tool name stands for, when
        certain; None: the entry waits, approving nothing."""
        ...


class BuiltInToolFacts:
    """No services behind the window: every tool is taken as built in, says
    nothing of its risk, and no saved bare name is certain."""

    def server(self, tool_name: str) -> str | None:
        return None

    def annotations(self, tool_name: str) -> ToolAnnotations | None:
        return None

    def allow_key(self, tool_name: str) -> str | None:
        return None


def _key_not_kept(_key: str | None) -> None:
    return None


def _nothing() -> None:
    return None


def _not_saved(_conversation: Conversation) -> None:
    return None


@dataclass(frozen=True)
class SettingsFeature:
    """Settings reaching what runs behind the window (the Settings dialog's
    Save, a remembered wire profile). Absent: nothing runs behind the window
    that settings could change; they are only kept."""

    apply: SettingsApplier
    """The one way settings reach the running services, after every change."""
    set_api_key: Callable[[str | None], None] = _key_not_kept
    """Store (or, with None, forget) the API key, before the settings are applied."""
    preview_voice: Callable[[Settings, str], Awaitable[None]] | None = None
    """Speak a sample with these settings' engine, voice and rate through the
    speaker (Settings → Voice ▶); None: no speaker, no ▶."""
    on_opened: Callable[[], None] = _nothing
    """Called as the Settings dialog opens: the composition root warms what
    a new endpoint needs (the openai SDK) while the user types."""


@dataclass(frozen=True)
class ConversationKeeper:
    """How the window keeps its conversations: a fresh one (the New button)
    and storing one's history (after each turn, when leaving it, and at
    close). Absent: the New button is hidden and nothing is stored."""

    new: Callable[[Conversation], Conversation]
    """A fresh conversation after the given one (already saved), whose
    resources may then be released."""
    save: Callable[[Conversation], None] = _not_saved
    """Store a conversation's history."""


class TurnDeps(Protocol):
    """Read-only, as the window's frozen deps are; ``WindowDeps`` documents
    each field."""

    @property
    def conversation(self) -> Conversation: ...

    @property
    def forms(self) -> FormManager: ...

    @property
    def settings_store(self) -> SettingsStore: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def sink(self) -> AudioSink | None: ...

    @property
    def key(self) -> KeySource: ...

    @property
    def settings_feature(self) -> SettingsFeature | None: ...

    @property
    def keeper(self) -> ConversationKeeper | None: ...

    @property
    def tool_facts(self) -> ToolFactsSource: ...

    def before_turn(self) -> Readiness:
        """The MCP servers a turn starting now goes without; never waits."""
        ...

    async def expand_message(self, text: str, conversation_id: str | None) -> ExpandedMessage | None:
        """``text`` with its MCP mentions expanded (contracts §10); None when
        it has none. Raises ``MentionError`` with the line to show."""
        ...
