"""User settings: a JSON file under the data folder.

A malformed file never loses data: it is moved aside to
``settings.json.corrupt-<n>`` and defaults are used, with one clear error
line (:attr:`SettingsLoad.error`). The API key is not stored here; see
:mod:`desktop_agent.storage.secrets`.
"""

from __future__ import annotations

import json
import logging
import os
import reprlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from desktop_agent.core.budget import DEFAULT_CONTEXT_TOKENS
from desktop_agent.core.notice import Notice
from desktop_agent.core.wire import WIRE_PROFILE_NAMES, WireProfileName
from desktop_agent.storage.atomic import atomic_write_text
from desktop_agent.storage.limits import (
    APPROVAL_TIMEOUT_LIMIT_S,
    CONTEXT_TOKENS_LIMIT,
    CONTEXT_TOKENS_MIN,
    MAX_STEPS_LIMIT,
    MAX_TOKENS_LIMIT,
    REQUEST_TIMEOUT_LIMIT_S,
)
from desktop_agent.storage.paths import settings_path
from desktop_agent.storage.user_files import UserFileError, read_user_bytes

log = logging.getLogger(__name__)

SETTINGS_FILE_LIMIT = 1 << 20
"""Bytes: settings are a few kilobytes; a bigger file is not read."""

TtsEngine = Literal["auto", "edge", "espeak", "piper", "none"]
TTS_ENGINES: tuple[str, ...] = get_args(TtsEngine)
SttEngine = Literal["auto", "whisper", "sensevoice", "pocketsphinx", "openai"]
STT_ENGINES: tuple[str, ...] = get_args(SttEngine)
SttModelSource = Literal["huggingface", "modelscope", "custom"]
STT_MODEL_SOURCES: tuple[str, ...] = get_args(SttModelSource)
WhisperModelName = Literal["base", "small"]
WHISPER_MODEL_NAMES: tuple[str, ...] = get_args(WhisperModelName)
LanguageChoice = Literal["system", "en", "zh"]
LANGUAGES: tuple[str, ...] = get_args(LanguageChoice)
ThemeChoice = Literal["system", "light", "dark"]
THEMES: tuple[str, ...] = get_args(ThemeChoice)
VoiceSend = Literal["at_once", "countdown", "review"]
VOICE_SEND: tuple[str, ...] = get_args(VoiceSend)


class SettingsError(ValueError):
    """A settings value is wrong; the message names the field. ``field``:
    that field when the file's value is wrong ("" for the whole file)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


_PIPER_VOICE_PHRASE = "must be a Piper voice name like en_US-joe-medium, or the path of a .onnx file"
_PIPER_VOICE = r"^$|^[a-z]{2,3}_[A-Z]{2}-\w+-(x_low|low|medium|high)$|^.+\.onnx$"
"""A catalogue name (``lang_REGION-speaker-quality``) or ``FILE.onnx``; ""
is the default voice. Whether it exists is the engine's to say, when used."""
_PHRASES = {
    "tts_engine": f"must be one of {', '.join(TTS_ENGINES)}",
    "stt_engine": f"must be one of {', '.join(STT_ENGINES)}",
    "stt_model_source": f"must be one of {', '.join(STT_MODEL_SOURCES)}",
    "stt_whisper_model": f"must be one of {', '.join(WHISPER_MODEL_NAMES)}",
    "volume": "must be between 0 and 1",
    "language": f"must be one of {', '.join(LANGUAGES)}",
    "theme": f"must be one of {', '.join(THEMES)}",
    "voice_send": f"must be one of {', '.join(VOICE_SEND)}",
    "barge_in_min_words": "must be a whole number of words from 1 to 20",
    "tts_rate": "must be a percentage like +10% or -20%",
    "piper_voice_en": _PIPER_VOICE_PHRASE,
    "piper_voice_zh": _PIPER_VOICE_PHRASE,
    "always_allow": "must be a list of tool names",
    "trusted_read_only_servers": "must be a list of MCP server names",
    "dismissed_notices": "must be a list of notice keys",
    "max_steps": f"must be a whole number from 1 to {MAX_STEPS_LIMIT}",
    "approval_timeout_s": f"must be a finite number of seconds, above 0 and at most {APPROVAL_TIMEOUT_LIMIT_S:g}",
    "context_tokens": f"must be a whole number of tokens from {CONTEXT_TOKENS_MIN} to {CONTEXT_TOKENS_LIMIT}",
    "max_tokens": f"must be a whole number of tokens from 1 to {MAX_TOKENS_LIMIT}",
    "request_timeout_s": f"must be a finite number of seconds, above 0 and at most {REQUEST_TIMEOUT_LIMIT_S:g}",
    "wire_profiles": f"must map base URLs to one of {', '.join(WIRE_PROFILE_NAMES)}",
    "hooks_enabled": "must map hook names to true or false",
    "shared_folders": "must map folder paths to lists of MCP server names (an empty list: every server)",
    "enabled_skills": "must be a list of skill names, or null for all",
    "audio_input_id": "must be a device id (text, at most 1024 characters; empty: the system default)",
    "audio_output_id": "must be a device id (text, at most 1024 characters; empty: the system default)",
    "audio_input_name": "must be a device name (text, at most 1024 characters)",
    "audio_output_name": "must be a device name (text, at most 1024 characters)",
}
_TYPE_PHRASES = {"bool_type": "must be true or false", "string_type": "must be a string"}
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60


def _settings_error(exc: ValidationError) -> SettingsError:
    """The first problem, in one line naming the field."""
    error = exc.errors(include_url=False)[0]
    if not error["loc"]:
        return SettingsError("settings: the file must hold a JSON object", "")
    key = str(error["loc"][0])
    phrase = _PHRASES.get(key) or _TYPE_PHRASES.get(error["type"]) or "must be a number"
    got = "" if key in ("always_allow", "trusted_read_only_servers", "dismissed_notices", "wire_profiles", "enabled_skills", "hooks_enabled", "shared_folders") else f", got {_short.repr(error['input'])}"
    return SettingsError(f"settings: {key} {phrase}{got}", key)


@dataclass(frozen=True)
class Settings:
    base_url: str = ""
    """OpenAI-compatible endpoint; empty means the offline demo model."""
    model: str = ""
    tts_engine: str = "auto"
    voice: str = ""
    """edge-tts voice name; empty picks one by the text's language."""
    tts_rate: str = "+0%"
    tts_volume: str = "+0%"
    piper_voice_en: str = ""
    """Piper's voice for English (and every non-Chinese) segment: a voice
    name or a ``.onnx`` file; empty: en_US-joe-medium."""
    piper_voice_zh: str = ""
    """Piper's voice for Chinese segments; empty: zh_CN-huayan-medium."""
    speak_every_reply: bool = False
    muted: bool = False
    volume: float = 1.0
    mcp_config_path: str = ""
    """MCP servers file; empty means the default one in the data folder."""
    always_allow: tuple[str, ...] = ()
    trusted_read_only_servers: tuple[str, ...] = ()
    """MCP servers whose read-only tools (by their own ``readOnlyHint``) run
    without asking; still carded and audited. Off for every
    server until the user turns it on for that one."""
    max_steps: int = 10
    approval_timeout_s: float = 300.0
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    """The model's context size in tokens: every request is kept within it
    (less room for the reply), tool results cut to a share of it."""
    max_tokens: int = 4096
    """The longest reply one request may get (sent as ``max_tokens``,
    contracts §2a): a small local model that loops stops here instead of
    generating for minutes."""
    request_timeout_s: float = 120.0
    """Seconds without a byte from the model before its request fails."""
    wire_profiles: dict[str, WireProfileName] = field(default_factory=dict)
    """The wire profile (contracts §2a) each endpoint turned out to need, by
    base URL (without credentials or a trailing slash); learned, not edited."""
    enabled_skills: tuple[str, ...] | None = None
    """The skills the model is offered (contracts §9), by name; None: all."""
    hooks_enabled: dict[str, bool] = field(default_factory=dict)
    """The user's choice per prompt hook (contracts §9), by name; overrides the
    ``enabled`` of its ``hooks.json``. Hooks not named keep the file's."""
    voice_send: str = "countdown"
    """A push-to-talk transcript: ``at_once`` (sent), ``countdown`` (put in
    the input and sent after a short countdown that any key stops) or
    ``review`` (left in the input). Replaces ``voice_send_at_once`` (false
    is ``review``; true, which every file saved before had, ``countdown``)."""
    hands_free: bool = False
    """Listen for speech all the time and send each sentence."""
    barge_in: bool = False
    """Speaking interrupts the assistant's speech (hands-free). Its own
    voice is kept out by the echo gate (``core/voice_echo.py``)."""
    barge_in_ms: int = 120
    """How much speech (a dropped frame forgiven) interrupts (``barge_in``;
    why 120: ``core.voice_session.VoiceConfig``). Files saved before it
    meant speech in a row have 300: read as the default."""
    barge_in_min_words: int = 2
    """What follows a barge-in becomes a turn only with this many words (a
    Chinese character is one; fillers and noise notes do not count)."""
    audio_input_id: str = ""
    """The microphone (its device id, ``ui/device_choice.id_text``); empty:
    the system's default. Read at every press: a change applies from the next
    utterance; while the device is unplugged the default is used."""
    audio_input_name: str = ""
    """That microphone's name, shown while it is not connected."""
    audio_output_id: str = ""
    """The speaker, as ``audio_input_id``; a change applies from the next clip."""
    audio_output_name: str = ""
    stt_engine: str = "auto"
    """Speech recognition engine: ``auto`` (the default: Whisper when a
    Whisper model is on disk, else SenseVoice when its model is, else
    pocketsphinx), ``whisper`` or ``sensevoice`` (offline, Chinese and
    English; the model is downloaded on first use), ``pocketsphinx``
    (offline, English, no download), ``openai`` (an endpoint)."""
    stt_model_source: str = "huggingface"
    """Where ``whisper`` and ``sensevoice`` download their model from:
    ``huggingface``, ``modelscope`` (reachable from mainland China) or
    ``custom`` (``stt_model_base_url``)."""
    stt_model_base_url: str = ""
    """The ``custom`` source's base URL (a mirror such as hf-mirror.com, or
    a local file server holding the same files)."""
    stt_whisper_model: str = "base"
    """The Whisper model ``whisper`` downloads: ``base`` or ``small``."""
    stt_model_dir: str = ""
    """A model already on disk (a CTranslate2 Whisper folder, or an
    unpacked sherpa-onnx SenseVoice archive); when set, the engine uses it
    and downloads nothing."""
    stt_base_url: str = ""
    """``openai`` recognition's own endpoint; empty: the chat endpoint's."""
    stt_model: str = ""
    """``openai`` recognition's model; empty: ``whisper-1``."""
    language: str = "system"
    """The window's language: ``system`` (the locale), ``en``, ``zh``."""
    theme: str = "system"
    """Light or dark colours: ``system`` follows the platform."""
    shared_folders: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The folders shared with MCP servers (their roots), each with the
    servers it is shared with; an empty tuple: every server."""
    dismissed_notices: tuple[str, ...] = ()
    """Start-up notices the user closed (the window's notice line): each
    stays hidden while its condition holds (``ui/shell/notice_line.py``)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Unknown keys from the file, kept so nothing is lost on save."""

    def validate(self) -> Settings:
        """Raise :class:`SettingsError` for a wrong value; else return self."""
        self._checked(self.to_json())
        return self

    def with_allowed(self, key: str, allowed: bool) -> Settings:
        """``key``: the entry (``core.approval.allow_key``) added or removed."""
        names = [n for n in self.always_allow if n != key]
        if allowed:
            names.append(key)
        return replace(self, always_allow=tuple(names))

    def with_allow_keys(self, resolve: Callable[[str], str | None]) -> Settings:
        """Bare tool names (saved before entries named their server) tied to
        a server where ``resolve`` can say which: it returns the entry for a
        name, or None while that is not certain (the entry stays, inert)."""
        names: list[str] = []
        for name in self.always_allow:
            key = resolve(name) if "/" not in name else name
            key = key or name
            if key not in names:
                names.append(key)
        return replace(self, always_allow=tuple(names)) if tuple(names) != self.always_allow else self

    def with_read_only_trust(self, server: str, trusted: bool) -> Settings:
        """``server``'s read-only tools run without asking (``trusted``), or ask again."""
        names = [n for n in self.trusted_read_only_servers if n != server]
        if trusted:
            names.append(server)
        return replace(self, trusted_read_only_servers=tuple(names))

    def folders_for(self, server: str) -> tuple[str, ...]:
        """The folders shared with ``server``: those for every server and its own, in the file's order."""
        return tuple(path for path, servers in self.shared_folders.items() if not servers or server in servers)

    def with_wire_profile(self, base_url: str, profile: WireProfileName) -> Settings:
        return replace(self, wire_profiles={**self.wire_profiles, base_url: profile})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        extra = data.pop("extra")
        data["always_allow"] = list(self.always_allow)
        data["trusted_read_only_servers"] = list(self.trusted_read_only_servers)
        data["dismissed_notices"] = list(self.dismissed_notices)
        data["enabled_skills"] = None if self.enabled_skills is None else list(self.enabled_skills)
        data["shared_folders"] = {path: list(servers) for path, servers in self.shared_folders.items()}
        return {**extra, **data}

    @classmethod
    def from_json(cls, data: object) -> Settings:
        model = cls._checked(data)
        values = model.model_dump(exclude_unset=True, exclude=set(model.model_extra or ()))
        if "always_allow" in values:
            values["always_allow"] = tuple(values["always_allow"])
        if "trusted_read_only_servers" in values:
            values["trusted_read_only_servers"] = tuple(values["trusted_read_only_servers"])
        if "dismissed_notices" in values:
            values["dismissed_notices"] = tuple(values["dismissed_notices"])
        if "shared_folders" in values:
            values["shared_folders"] = {path: tuple(servers) for path, servers in values["shared_folders"].items()}
        if values.get("enabled_skills") is not None:
            values["enabled_skills"] = tuple(values["enabled_skills"])
        if "stt_model_source" not in values and values.get("stt_model_base_url"):
            values["stt_model_source"] = "custom"  # a mirror saved before a source could be picked
        extra = dict(model.model_extra or {})
        if "voice_send" not in values and isinstance(extra.get("voice_send_at_once"), bool):
            # Saved before the countdown: every such file says true (the old default).
            values["voice_send"] = "countdown" if extra.pop("voice_send_at_once") else "review"
            if values.get("barge_in_ms") == 300:  # the old default, when it meant "in a row"
                del values["barge_in_ms"]
        return cls(extra=extra, **values)

    @staticmethod
    def _checked(data: object) -> BaseModel:
        try:
            model: BaseModel = _SettingsModel.model_validate(data)
            return model
        except ValidationError as exc:
            raise _settings_error(exc) from None


_CHECKS: dict[str, Any] = {
    "tts_engine": TtsEngine,
    "stt_engine": SttEngine,
    "stt_model_source": SttModelSource,
    "stt_whisper_model": WhisperModelName,
    "language": LanguageChoice,
    "theme": ThemeChoice,
    "tts_rate": Annotated[str, Field(pattern=r"^[+-]\d{1,3}%$")],
    "piper_voice_en": Annotated[str, Field(pattern=_PIPER_VOICE, max_length=4096)],
    "piper_voice_zh": Annotated[str, Field(pattern=_PIPER_VOICE, max_length=4096)],
    "always_allow": list[str],
    "trusted_read_only_servers": list[str],
    "dismissed_notices": list[str],
    "enabled_skills": list[str] | None,
    "shared_folders": dict[str, list[str]],
    "volume": Annotated[float, Field(ge=0.0, le=1.0)],
    "max_steps": Annotated[int, Field(ge=1, le=MAX_STEPS_LIMIT)],
    "barge_in_ms": Annotated[int, Field(ge=30, le=5000)],
    "barge_in_min_words": Annotated[int, Field(ge=1, le=20)],
    "voice_send": VoiceSend,
    "audio_input_id": Annotated[str, Field(max_length=1024)],
    "audio_input_name": Annotated[str, Field(max_length=1024)],
    "audio_output_id": Annotated[str, Field(max_length=1024)],
    "audio_output_name": Annotated[str, Field(max_length=1024)],
    "approval_timeout_s": Annotated[float, Field(gt=0, le=APPROVAL_TIMEOUT_LIMIT_S, allow_inf_nan=False)],
    "context_tokens": Annotated[int, Field(ge=CONTEXT_TOKENS_MIN, le=CONTEXT_TOKENS_LIMIT)],
    "max_tokens": Annotated[int, Field(ge=1, le=MAX_TOKENS_LIMIT)],
    "request_timeout_s": Annotated[float, Field(gt=0, le=REQUEST_TIMEOUT_LIMIT_S, allow_inf_nan=False)],
}
"""Where the file's schema is narrower than the field's type."""

_HINTS = get_type_hints(Settings)
_FIELDS: dict[str, Any] = {
    f.name: (_CHECKS.get(f.name, _HINTS[f.name]), f.default) for f in fields(Settings) if f.name != "extra"
}
_SettingsModel = create_model(
    "_SettingsModel",
    # Strict: "yes" is not a boolean and true is not a number, so a
    # hand-edited mistake is named instead of guessed at.
    __config__=ConfigDict(strict=True, extra="allow"),
    **_FIELDS,
)
"""The file's schema, derived from :class:`Settings` (same names, defaults)."""


@dataclass(frozen=True)
class SettingsLoad:
    settings: Settings
    error: str | None = None
    """One line saying what was wrong with the file, if anything."""


class SettingsStore:
    """Loads and saves :class:`Settings` atomically."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()

    def load(self) -> SettingsLoad:
        # Only a regular file, and at most SETTINGS_FILE_LIMIT of it, is read: a
        # named pipe here would hang start-up, a huge file eat the memory.
        # Either is kept aside like bad content, so nothing is lost.
        refused: UserFileError | None = None
        try:
            raw = read_user_bytes(self.path, limit=SETTINGS_FILE_LIMIT)
        except UserFileError as exc:
            if exc.code == "missing":
                return SettingsLoad(Settings())
            if exc.code not in ("not_regular", "too_large"):
                why = str(exc.fields.get("error", exc.reason))
                return SettingsLoad(
                    Settings(),
                    Notice(
                        f"cannot read settings file {self.path}: {why}",
                        "notice_settings_unreadable",
                        {"path": str(self.path), "error": why, "errno": exc.fields.get("errno")},
                    ),
                )
            raw, refused = b"", exc
        try:
            if refused is not None:
                raise refused
            # utf-8-sig: a file saved by an editor that writes a BOM is still settings.
            settings = Settings.from_json(json.loads(raw.decode("utf-8-sig")))
            _encode(settings)  # what cannot be saved again is refused now, not at every save
            return SettingsLoad(settings)
        except UserFileError as exc:
            error = f"settings file {self.path} {exc}"  # "is not a regular file", "is larger than 1 MB"
            key, fields = str(exc.code), ({"limit": str(exc.fields["limit"])} if exc.code == "too_large" else {})
        except json.JSONDecodeError as exc:
            error = f"settings file {self.path} is not valid JSON (line {exc.lineno}, column {exc.colno})"
            key, fields = "not_json", {"line": str(exc.lineno), "column": str(exc.colno)}
        except UnicodeDecodeError:
            error = f"settings file {self.path} is not UTF-8 text"
            key, fields = "not_utf8", {}
        except RecursionError:  # the json module recurses once per nesting level
            error = f"settings file {self.path} is nested too deeply to be settings"
            key, fields = "too_deep", {}
        except SettingsError as exc:
            error = f"{exc} (in {self.path})"
            key, fields = ("bad_field", {"field": exc.field}) if exc.field else ("not_object", {})
        except ValueError:  # an integer past Python's digit limit (int_max_str_digits)
            error = f"settings file {self.path} holds a number too long to read"
            key, fields = "number_too_long", {}
        backup = self._set_aside()
        frame = "notice_settings_problem"
        if backup is not None:
            error += f"; kept it as {backup.name} and started with defaults"
            frame = "notice_settings_set_aside"
        log.warning("%s", error)
        fields = {"path": str(self.path), "backup": backup.name if backup else "", **fields}
        return SettingsLoad(Settings(), Notice(error, f"settings_problem_{key}", fields, frame=frame))

    def _set_aside(self) -> Path | None:
        for n in range(1, 1000):
            candidate = self.path.with_name(f"{self.path.name}.corrupt-{n}")
            if not candidate.exists():
                try:
                    os.replace(self.path, candidate)
                except OSError:
                    return None
                return candidate
        return None

    def save(self, settings: Settings) -> None:
        settings.validate()
        atomic_write_text(self.path, _encode(settings))


def _encode(settings: Settings) -> str:
    return json.dumps(settings.to_json(), indent=2, ensure_ascii=False)
