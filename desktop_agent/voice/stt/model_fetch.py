"""The part the offline recognisers share: their model is a named one,
downloaded into the data folder on first use from the source the user
picked, or a folder on disk used as it is. Whether it is here is told
without loading it (:attr:`ModelFetch.ready`); why a download failed goes
to the window as a line and as the error itself before it is raised."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from desktop_agent.core.ports import STTError
from desktop_agent.voice.stt.model_spec import ModelSpec
from desktop_agent.voice.stt.models import (
    DownloadProgress,
    ModelDownloadError,
    ModelStore,
    default_store,
)
from desktop_agent.voice.stt.sources import ModelSource


class ModelFetch:
    """``spec`` downloaded into ``store`` from ``source``, or ``model_dir``.
    ``on_progress`` (settable later, e.g. by the window) hears the
    download's progress; ``on_failure`` its failure as one line and
    ``on_download_error`` as the :class:`ModelDownloadError` (its source,
    kind and host, to word it and offer another source)."""

    def __init__(
        self,
        store: ModelStore | None,
        spec: ModelSpec,
        *,
        source: ModelSource | None = None,
        model_dir: Path | None = None,
        on_progress: Callable[[DownloadProgress], None] | None = None,
    ) -> None:
        self.spec = spec
        self.source = source or ModelSource()
        self.on_progress = on_progress
        self.on_failure: Callable[[str], None] | None = None
        self.on_download_error: Callable[[ModelDownloadError], None] | None = None
        self._store = store if store is not None else default_store()
        self._model_dir = model_dir

    def folder_problem(self, folder: Path) -> str | None:
        """Why ``folder`` holds no usable model (one line), or None."""
        raise NotImplementedError

    @property
    def ready(self) -> bool:
        """Whether the model is on disk (sizes only: nothing is read)."""
        if self._model_dir is not None:
            return self.folder_problem(self._model_dir) is None
        return self._store.ready(self.spec)

    @property
    def model_folder(self) -> Path:
        """Where the model is, or will be once downloaded."""
        return self._model_dir if self._model_dir is not None else self._store.folder(self.spec)

    async def fetch(self) -> Path:
        """The model's folder, downloaded first when missing. Raises
        :class:`STTError` (:class:`ModelDownloadError` for a download)."""
        if self._model_dir is not None:
            problem = self.folder_problem(self._model_dir)
            if problem is not None:
                raise STTError(problem)
            return self._model_dir
        try:
            base_url = self.source.base_url(self.spec)
            if not base_url:
                raise ModelDownloadError("no_file", source=self.source.name, model=self.spec.label)
            return await self._store.ensure(self.spec, self.on_progress, base_url=base_url)
        except ModelDownloadError as exc:
            if self.on_failure is not None:
                self.on_failure(str(exc))
            if self.on_download_error is not None:
                self.on_download_error(exc)
            raise
