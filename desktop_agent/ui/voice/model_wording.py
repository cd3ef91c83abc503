"""Speech models and engines in the window's language: why a download
failed (from the error's kind and fields, never by reading its English),
an engine's state and languages, and which source to try next.

Imports nothing heavy: the voice layer's modules it names are imported
inside the functions, when Settings or a failure needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_agent.texts import Texts

if TYPE_CHECKING:
    from desktop_agent.voice.engine_catalogue import EngineRow
    from desktop_agent.voice.stt.models import ModelDownloadError

SOURCES = ("huggingface", "modelscope", "custom")


def download_error_text(texts: Texts, error: ModelDownloadError) -> str:
    """The failure's one line in ``texts``' language."""
    source = texts.tr(f"model_source_{error.source}") if error.source in SOURCES else error.source
    return texts.tr(f"model_error_{error.kind}", source=source, **dict(error.fields))


def next_source(current: str) -> str:
    """The source to offer after ``current`` failed: Hugging Face and
    ModelScope in turn (the usual pair: one is reachable in mainland China,
    the other elsewhere); from a custom address, Hugging Face."""
    if current == "huggingface":
        return "modelscope"
    return "huggingface"


def languages_text(texts: Texts, languages: tuple[str, ...]) -> str:
    return texts.tr("list_separator").join(texts.tr(f"language_{code}") for code in languages)


def size_mb(size: int) -> str:
    from desktop_agent.voice.stt.models import format_mb

    return format_mb(size, precise=size < 10 << 20)


def engine_state_text(texts: Texts, row: EngineRow) -> str:
    """``Ready``, ``Needs a download of 145 MB``, ``Downloading… 42 %``,
    ``Failed: could not reach …``, ``Not installed``."""
    if row.state == "ready":
        return texts.tr("engine_ready")
    if row.state == "needs_download":
        return texts.tr("engine_needs_download", mb=size_mb(row.download_bytes))
    if row.state == "downloading":
        return texts.tr("engine_downloading", percent=int(row.percent or 0))
    if row.state == "failed":
        reason = download_error_text(texts, row.error) if row.error is not None else ""
        return texts.tr("engine_failed", reason=reason)
    return texts.tr("engine_missing")


__all__ = ["download_error_text", "engine_state_text", "languages_text", "next_source", "size_mb"]
