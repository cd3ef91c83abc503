"""What the window needs from the composition root (``app.py``), as one
frozen value. Type-only imports keep this — and the window — importable
before asyncio and the core are (start-up: the window shows first)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from desktop_agent.conversation_library import ConversationLibrary
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.ports import AudioInput, AudioSink, SpeechRecognizer
    from desktop_agent.core.risk import ToolAnnotations
    from desktop_agent.core.utterance import FrameClassifier
    from desktop_agent.hooks_engine import HookInfo
    from desktop_agent.mcp_engine import Readiness, ServerStatus
    from desktop_agent.services import AppliedSettings
    from desktop_agent.skills_engine import SkillInfo
    from desktop_agent.storage.secrets import KeyStorage
    from desktop_agent.storage.settings import Settings, SettingsStore
    from desktop_agent.voice.downloads import ModelDownloads


RecognizerFactory = Callable[["Settings"], tuple["SpeechRecognizer | None", "SpeechRecognizer | None", "str | None"]]
"""Settings → the dictation recogniser, the answers recogniser, why none."""


class SettingsApplier(Protocol):
    """Apply settings to the running services (``Services.apply_settings``):
    endpoint, model, speech and limits; ``key_changed`` when the stored API
    key changed, so the model is reconnected even if the endpoint did not."""

    def __call__(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings: ...


def _no_key() -> str | None:
    return None


def _built_in(_tool_name: str) -> str | None:
    return None


def _not_certain(_tool_name: str) -> str | None:
    return None


def _no_annotations(_tool_name: str) -> ToolAnnotations | None:
    return None


def _no_hooks(_choices: Mapping[str, bool]) -> Sequence[HookInfo]:
    return ()


@dataclass(frozen=True)
class WindowDeps:
    conversation: Conversation
    """The conversation the window opens with."""
    forms: FormManager
    settings_store: SettingsStore
    settings: Settings
    model_name: str
    is_demo: bool = False
    demo_notice: str | None = None
    """How to connect a real model (the status bar's tooltip)."""
    mcp_statuses: Callable[[], Iterable[ServerStatus]] | None = None
    """Each MCP server's state."""
    sink: AudioSink | None = None
    """The speaker; ``set_volume``/``set_muted`` are used when it has them."""
    get_api_key: Callable[[], str | None] = _no_key
    set_api_key: Callable[[str | None], None] | None = None
    key_note: Callable[[], KeyStorage | str] = str
    """Where the key is kept (``secrets.key_storage``; the dialog words it), asked
    when Settings opens, so the keyring loads only then."""
    warnings: tuple[str | Callable[[], str], ...] = ()
    """Start-up warnings, shown once in the conversation: a line (a
    :class:`~desktop_agent.core.notice.Notice` is worded in the window's
    language) or a function giving the text in the current language."""
    apply_settings: SettingsApplier | None = None
    """The one way settings reach the running services, after every change;
    None: nothing runs behind the window that settings could change."""
    new_conversation: Callable[[Conversation], Conversation] | None = None
    """A fresh conversation after the given one (already saved), whose
    resources may then be released (the New button); None hides the button."""
    save_conversation: Callable[[Conversation], None] | None = None
    """Store a conversation's history (after each turn, and at close)."""
    library: ConversationLibrary | None = None
    """The saved conversations (the sidebar, issue 14); None: no sidebar."""
    open_conversation: Callable[[Conversation, str], Conversation | None] | None = None
    """The saved conversation with this id, after the given one (already
    saved), whose resources may then be released; None when it is gone."""
    tool_server: Callable[[str], str | None] = _built_in
    """The MCP server offering a tool name, None for a built-in tool (the
    cards name it; always-allow entries are keyed by it)."""
    tool_annotations: Callable[[str], ToolAnnotations | None] = _no_annotations
    """What a tool says of its risk (``Services.tool_annotations``): the
    cards mark destructive and open-world tools, and a trusted server's
    read-only tools run without asking (issue 14)."""
    allow_key_for: Callable[[str], str | None] = _not_certain
    """The always-allow entry a bare saved tool name stands for, when
    certain (``Services.allow_key_for``)."""
    before_turn: Callable[[], Readiness] | None = None
    """Called as a turn starts: the MCP servers it goes without (still
    starting, or failed and now retried in the background); never waits
    (``Services.before_turn``)."""
    retry_server: Callable[[str], bool] | None = None
    """Start a failed MCP server again (its status item's Retry)."""
    skills: tuple[SkillInfo, ...] = ()
    """Every skill found at start-up, broken ones with their problem (the
    Settings dialog's Skills page)."""
    skills_folder: str = ""
    """Where the user's own skills go (``<data>/skills``)."""
    hook_infos: Callable[[Mapping[str, bool]], Sequence[HookInfo]] = _no_hooks
    """Every prompt hook found, enabled as the given choices
    (``Settings.hooks_enabled``) say: the Settings dialog's Hooks page."""
    hooks_folder: str = ""
    """Where the user's own hooks go (``<data>/hooks``)."""
    audio_input: AudioInput | None = None
    """The microphone (issue 11); None: speech input is unavailable."""
    recognizer: SpeechRecognizer | None = None
    """Speech to text; None disables the mic button (the reason in its tooltip)."""
    answer_recognizer: SpeechRecognizer | None = None
    """Hears spoken approval answers (a yes/no grammar where the engine has
    one); None: ``recognizer`` does."""
    make_recognizers: RecognizerFactory | None = None
    """Builds the recognisers for other settings (dictation, answers, why
    none): the Settings dialog switches engines without a restart. None:
    they stay as they are (no microphone, say)."""
    vad: Callable[[], FrameClassifier] | None = None
    """A fresh voice activity detector (hands-free, barge-in, approval by voice)."""
    speech_input_note: str | None = None
    """Why speech input is unavailable, when the composition root knows."""
    say: Callable[[str], Awaitable[None]] | None = None
    """Synthesise one line and play it, returning when it ended (the spoken
    approval question); None: it is only shown."""
    mcp_file: Callable[[], Path] | None = None
    """The MCP servers file in use (Settings → Tools edits it, issue 13)."""
    reload_mcp: Callable[[], Awaitable[None]] | None = None
    """Run what the servers file says now, without a restart
    (``Services.reload_mcp``); None: the Tools page cannot change servers."""
    preview_voice: Callable[[Settings, str], Awaitable[None]] | None = None
    model_downloads: ModelDownloads | None = None
    """The window's speech model downloads (Settings → Voice, the panel
    above the input, a recogniser fetching its model): one state for all."""
    """Speak a sample with these settings' engine, voice and rate through the
    speaker (Settings → Voice ▶); None: no speaker."""
    on_settings_opened: Callable[[], None] | None = None
    """Called as the Settings dialog opens: the composition root warms what
    a new endpoint needs (the openai SDK) while the user types."""
