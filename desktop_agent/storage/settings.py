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
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from desktop_agent.storage.paths import settings_path

log = logging.getLogger(__name__)

TTS_ENGINES = ("auto", "edge", "espeak", "none")


class SettingsError(ValueError):
    """A settings value is wrong; the message names the field."""


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
    speak_every_reply: bool = False
    muted: bool = False
    volume: float = 1.0
    mcp_config_path: str = ""
    """MCP servers file; empty means the default one in the data folder."""
    always_allow: tuple[str, ...] = ()
    max_steps: int = 10
    approval_timeout_s: float = 300.0
    extra: dict[str, Any] = field(default_factory=dict)
    """Unknown keys from the file, kept so nothing is lost on save."""

    def validate(self) -> Settings:
        if self.tts_engine not in TTS_ENGINES:
            raise SettingsError(
                f"settings: tts_engine must be one of {', '.join(TTS_ENGINES)}, got {self.tts_engine!r}"
            )
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise SettingsError(f"settings: max_steps must be a positive integer, got {self.max_steps!r}")
        if not isinstance(self.approval_timeout_s, (int, float)) or self.approval_timeout_s <= 0:
            raise SettingsError(
                f"settings: approval_timeout_s must be a positive number, got {self.approval_timeout_s!r}"
            )
        if not isinstance(self.volume, (int, float)) or not 0.0 <= self.volume <= 1.0:
            raise SettingsError(f"settings: volume must be between 0 and 1, got {self.volume!r}")
        return self

    def with_allowed(self, tool_name: str, allowed: bool) -> Settings:
        names = [n for n in self.always_allow if n != tool_name]
        if allowed:
            names.append(tool_name)
        return replace(self, always_allow=tuple(names))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        extra = data.pop("extra")
        data["always_allow"] = list(self.always_allow)
        return {**extra, **data}

    @classmethod
    def from_json(cls, data: object) -> Settings:
        if not isinstance(data, dict):
            raise SettingsError("settings: the file must hold a JSON object")
        known = {f.name: f for f in fields(cls) if f.name != "extra"}
        kwargs: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                extra[key] = value
                continue
            default = getattr(cls(), key)
            if key == "always_allow":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise SettingsError("settings: always_allow must be a list of tool names")
                value = tuple(value)
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise SettingsError(f"settings: {key} must be true or false, got {value!r}")
            elif isinstance(default, float):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise SettingsError(f"settings: {key} must be a number, got {value!r}")
                value = float(value)
            elif isinstance(default, int):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise SettingsError(f"settings: {key} must be an integer, got {value!r}")
            elif isinstance(default, str) and not isinstance(value, str):
                raise SettingsError(f"settings: {key} must be a string, got {value!r}")
            kwargs[key] = value
        return cls(extra=extra, **kwargs).validate()


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
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return SettingsLoad(Settings())
        except OSError as exc:
            return SettingsLoad(Settings(), f"cannot read settings file {self.path}: {exc.strerror}")
        try:
            return SettingsLoad(Settings.from_json(json.loads(raw)))
        except json.JSONDecodeError as exc:
            error = f"settings file {self.path} is not valid JSON (line {exc.lineno}, column {exc.colno})"
        except SettingsError as exc:
            error = f"{exc} (in {self.path})"
        backup = self._set_aside()
        if backup is not None:
            error += f"; kept it as {backup.name} and started with defaults"
        log.warning("%s", error)
        return SettingsLoad(Settings(), error)

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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(settings.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.path)
