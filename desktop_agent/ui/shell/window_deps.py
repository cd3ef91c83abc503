"""What the window needs from the composition root (``app.py``), as one
frozen value. A feature is one typed object (speech input, saved
conversations, the MCP servers, settings reaching the running services,
keeping conversations): one that is absent is off, and the window leaves
out what it would show. Type-only imports keep this — and the
window — importable before asyncio and the core are (start-up: the window
shows first)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from desktop_agent.ui.chat.turn_deps import (
    BuiltInToolFacts,
    ConversationKeeper,
    KeySource,
    NoKey,
    SettingsFeature,
    ToolFactsSource,
)
from desktop_agent.ui.conversations.feature import ConversationsFeature
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.voice.feature import VoiceFeature

if TYPE_CHECKING:
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.mentions import ExpandedMessage
    from desktop_agent.core.ports import AudioSink
    from desktop_agent.hooks_engine import HookInfo
    from desktop_agent.mcp_engine import Readiness
    from desktop_agent.skills_engine import SkillInfo
    from desktop_agent.storage.settings import Settings, SettingsStore
    from desktop_agent.texts import Texts


class HookSource(Protocol):
    """The prompt hooks found (``HookCatalog``), for the Settings dialog's Hooks page."""

    def infos(self, choices: Mapping[str, bool] | None = None) -> Sequence[HookInfo]:
        """Every hook found, enabled as ``choices`` (``Settings.hooks_enabled``) say."""
        ...


class NoHooks:
    """No hooks were looked for (tests, a window without services)."""

    def infos(self, choices: Mapping[str, bool] | None = None) -> Sequence[HookInfo]:
        return ()


@dataclass(frozen=True)
class WindowDeps:
    """The turn logic sees these as its narrower :class:`~desktop_agent.ui.chat.turn_deps.TurnDeps`."""

    conversation: Conversation
    """The conversation the window opens with."""
    forms: FormManager
    settings_store: SettingsStore
    settings: Settings
    model_name: str
    is_demo: bool = False
    demo_notice: str | None = None
    """How to connect a real model (the status bar's tooltip)."""
    mcp: McpFeature | None = None
    """The MCP servers (the status bar, Settings → Tools); None: none run."""
    sink: AudioSink | None = None
    """The speaker; ``set_volume``/``set_muted`` are used when it has them."""
    key: KeySource = field(default_factory=NoKey)
    """The stored API key and where it is kept (the dialog words it), asked
    when Settings opens, so the keyring loads only then."""
    warnings: tuple[str | Callable[[Texts], str], ...] = ()
    """Start-up warnings, shown once in the conversation: a line (a
    :class:`~desktop_agent.core.notice.Notice` is worded in the window's
    language) or a function giving the text in the window's language."""
    settings_feature: SettingsFeature | None = None
    """Settings reaching the running services (apply, the API key, the voice
    preview, warming at open); None: settings are only kept."""
    keeper: ConversationKeeper | None = None
    """A fresh conversation (the New button) and storing one; None: no New
    button, nothing stored."""
    conversations: ConversationsFeature | None = None
    """The saved conversations (the sidebar); None: no sidebar."""
    tool_facts: ToolFactsSource = field(default_factory=BuiltInToolFacts)
    """What the services say of a tool (``Services.tool_facts``): the MCP
    server offering it (the cards name it; always-allow entries are keyed by
    it), its risk (the cards mark destructive and open-world tools, and a
    trusted server's read-only tools run without asking), and the
    always-allow entry a bare saved name stands for, when certain."""
    skills: tuple[SkillInfo, ...] = ()
    """Every skill found at start-up, broken ones with their problem (the
    Settings dialog's Skills page)."""
    skills_folder: str = ""
    """Where the user's own skills go (``<data>/skills``)."""
    hooks: HookSource = field(default_factory=NoHooks)
    """The prompt hooks found: the Settings dialog's Hooks page."""
    hooks_folder: str = ""
    """Where the user's own hooks go (``<data>/hooks``)."""
    voice: VoiceFeature = field(default_factory=VoiceFeature)
    """Speech input; the default has no microphone (unavailable, and the
    mic button says why)."""

    async def expand_message(self, text: str, conversation_id: str | None) -> ExpandedMessage | None:
        """``text`` with its MCP mentions expanded (contracts §10); None when
        it has none or there are no MCP servers. Raises ``MentionError``."""
        if self.mcp is None or self.mcp.expand is None:
            return None
        return await self.mcp.expand(text, conversation_id)

    def before_turn(self) -> Readiness:
        """Called as a turn starts: the MCP servers it goes without (still
        starting, or failed and now retried in the background); never waits.
        Without the MCP feature, none."""
        if self.mcp is not None:
            return self.mcp.before_turn()
        from desktop_agent.mcp_engine import Readiness

        return Readiness()
