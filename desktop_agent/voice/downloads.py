"""The window's model downloads, one place for every view of them.

A speech model or voice can be fetched from three places in the window:
Settings → Voice (its Download button), the offer at the first push-to-talk,
and a recogniser that finds its model missing when it is first used. All of
them report here, so Settings, the panel above the input and the recogniser
see the same state: downloading (how far), failed (why, as the
:class:`~desktop_agent.voice.stt.models.ModelDownloadError`), or nothing.

No Qt: listeners are plain callbacks (the window posts them to its thread).
A download runs as an asyncio task; :meth:`ModelDownloads.cancel` cancels it,
and :class:`~desktop_agent.voice.stt.models.ModelStore` removes the partial
file. Two starts of one model share one download (the store's lock).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop_agent.voice.stt.model_spec import ModelSpec
from desktop_agent.voice.stt.models import DownloadProgress, ModelDownloadError, ModelStore

log = logging.getLogger(__name__)

Phase = Literal["idle", "downloading", "failed", "done"]


@dataclass(frozen=True)
class DownloadState:
    """Where one model's download stands."""

    key: str
    """The model's :attr:`ModelSpec.key`."""
    phase: Phase = "idle"
    progress: DownloadProgress | None = None
    """How far (``downloading``)."""
    error: ModelDownloadError | None = None
    """Why it failed (``failed``)."""


Listener = Callable[[DownloadState], None]


class ModelDownloads:
    """Every model download of the window, and who wants to hear of them."""

    def __init__(self, store: ModelStore) -> None:
        self.store = store
        self._states: dict[str, DownloadState] = {}
        self._tasks: dict[str, asyncio.Task[Path]] = {}
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Hear every change from now on; the returned function stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def state(self, key: str) -> DownloadState:
        return self._states.get(key, DownloadState(key))

    def running(self, key: str) -> bool:
        return self.state(key).phase == "downloading"

    def start(self, spec: ModelSpec, base_url: str) -> asyncio.Task[Path]:
        """Fetch ``spec`` from ``base_url`` (the source's folder of it);
        the running download when one is going already."""
        task = self._tasks.get(spec.key)
        if task is not None and not task.done():
            return task
        task = asyncio.ensure_future(self._run(spec, base_url))
        self._tasks[spec.key] = task
        return task

    def cancel(self, key: str) -> bool:
        """Stop ``key``'s download (the partial file goes); True when one ran."""
        task = self._tasks.pop(key, None)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    # What a recogniser that downloads its own model reports (ModelFetch's callbacks).

    def progress(self, progress: DownloadProgress, key: str) -> None:
        self._set(DownloadState(key, "done" if progress.done >= progress.total > 0 else "downloading", progress))

    def failed(self, error: ModelDownloadError, key: str) -> None:
        self._set(DownloadState(key, "failed", error=error))

    def cancelled(self, key: str) -> None:
        self._set(DownloadState(key))

    async def _run(self, spec: ModelSpec, base_url: str) -> Path:
        self._set(DownloadState(spec.key, "downloading", DownloadProgress(spec.label, "", 0, spec.total_size, 0.0)))
        try:
            folder = await self.store.ensure(spec, lambda p: self.progress(p, spec.key), base_url=base_url)
        except asyncio.CancelledError:
            self.cancelled(spec.key)
            raise
        except ModelDownloadError as exc:
            self.failed(exc, spec.key)
            raise
        self._set(DownloadState(spec.key, "done"))
        return folder

    def _set(self, state: DownloadState) -> None:
        self._states[state.key] = state
        for listener in list(self._listeners):
            try:
                listener(state)
            except Exception:  # one broken view must not stop the others hearing
                log.exception("a download listener failed")


__all__ = ["DownloadState", "ModelDownloads", "Phase"]
