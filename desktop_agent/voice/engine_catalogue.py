"""The offline speech engines as Settings → Voice lists them: each with its
languages and where it stands — ready, needs a download of N MB,
downloading (how far), failed (why), or missing (not installed) — and
whether its model can be deleted.

Pure and cheap: a few ``stat`` calls per row (model files by their sizes,
``shutil.which`` for espeak-ng), nothing loaded or imported from the
engines' heavy libraries, so the page can ask again after every change.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from desktop_agent.voice.downloads import DownloadState
from desktop_agent.voice.piper_voices import CATALOGUE, catalogue_voice, delete_voice, voice_state
from desktop_agent.voice.stt.model_spec import ModelSpec
from desktop_agent.voice.stt.models import SENSEVOICE, ModelDownloadError, ModelStore
from desktop_agent.voice.stt.sources import ModelSource
from desktop_agent.voice.stt.whisper_models import WHISPER_MODELS

Kind = Literal["input", "output"]
RowState = Literal["ready", "needs_download", "downloading", "failed", "missing"]


@dataclass(frozen=True)
class EngineRow:
    key: str
    """The model's key (``faster-whisper-base``, ``piper-zh_CN-huayan-medium``) or
    the engine's name for one without a model (``pocketsphinx``, ``espeak``)."""
    kind: Kind
    name: str
    """How the row is titled (a proper name: the same in every language)."""
    languages: tuple[str, ...]
    """``zh``, ``en``… (the window words them)."""
    state: RowState
    download_bytes: int = 0
    """What a download fetches (``needs_download``, ``failed``)."""
    percent: float | None = None
    """How far (``downloading``)."""
    error: ModelDownloadError | None = None
    """Why the last download failed (``failed``)."""
    deletable: bool = False
    """A downloaded model in the data folder (never a packaged or user's file)."""
    spec: ModelSpec | None = None
    base_url: str = ""
    """Where its files are on the chosen source (for a download)."""


@dataclass(frozen=True)
class _Model:
    spec: ModelSpec
    kind: Kind
    name: str
    languages: tuple[str, ...]
    base_url: Callable[[ModelSource], str]


def _models() -> list[_Model]:
    whisper = [
        _Model(spec, "input", f"Whisper {size}", ("zh", "en"), functools.partial(_on_source, spec))
        for size, spec in WHISPER_MODELS.items()
    ]
    sensevoice = _Model(SENSEVOICE, "input", "SenseVoice Small", ("zh", "en", "ja", "ko", "yue"),
                        functools.partial(_on_source, SENSEVOICE))
    piper = [
        _Model(voice.spec(), "output", f"Piper {voice.name}", (voice.language,), voice.base_url)
        for voice in CATALOGUE.values()
    ]
    return [*whisper, sensevoice, *piper]


def _on_source(spec: ModelSpec, source: ModelSource) -> str:
    return source.base_url(spec)


def catalogue(
    store: ModelStore, source: ModelSource, downloads: Callable[[str], DownloadState] | None = None
) -> list[EngineRow]:
    """Every offline engine and model, inputs first. ``downloads``: a
    running or failed download's state by model key (the window's
    :class:`~desktop_agent.voice.downloads.ModelDownloads`)."""
    rows: list[EngineRow] = []
    for model in _models():
        rows.append(_model_row(model, store, source, downloads))
        if model.spec is SENSEVOICE:
            rows.append(EngineRow("pocketsphinx", "input", "PocketSphinx", ("en",), "ready"))
    espeak: RowState = "ready" if shutil.which("espeak-ng") else "missing"
    rows.append(EngineRow("espeak", "output", "espeak-ng", ("zh", "en"), espeak))
    return rows


def _model_row(
    model: _Model, store: ModelStore, source: ModelSource, downloads: Callable[[str], DownloadState] | None
) -> EngineRow:
    spec = model.spec
    missing = store.missing(spec)
    size = sum(f.size for f in missing)
    deletable = not missing and store.folder(spec).is_dir()
    if spec.key.startswith("piper-"):
        voice = voice_state(spec.key.removeprefix("piper-"), store)
        missing = () if voice.ready else missing
        deletable = voice.removable
    state: RowState = "ready" if not missing else "needs_download"
    base = EngineRow(spec.key, model.kind, model.name, model.languages, state, size, deletable=deletable,
                     spec=spec, base_url=model.base_url(source))
    running = downloads(spec.key) if downloads is not None else None
    if state == "ready" or running is None:
        return base
    if running.phase == "downloading":
        percent = running.progress.percent if running.progress is not None else 0.0
        return replace(base, state="downloading", percent=percent)
    if running.phase == "failed":
        return replace(base, state="failed", error=running.error)
    return base


def delete_model(row: EngineRow, store: ModelStore) -> bool:
    """Remove a downloaded model from the data folder; True when it was there."""
    if row.spec is None or not row.deletable:
        return False
    if row.key.startswith("piper-"):
        return delete_voice(catalogue_voice(row.key.removeprefix("piper-")).name, store)
    folder = store.folder(row.spec)
    if not folder.is_dir():
        return False
    shutil.rmtree(folder)
    return True


def folder_of(row: EngineRow, store: ModelStore) -> Path | None:
    return store.folder(row.spec) if row.spec is not None else None


__all__ = ["EngineRow", "Kind", "RowState", "catalogue", "delete_model", "folder_of"]
