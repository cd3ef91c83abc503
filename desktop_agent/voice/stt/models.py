"""Speech models downloaded on first use: what a model is made of
(:class:`ModelSpec`), where it lives (:class:`ModelStore`, under the data
folder) and how it gets there.

A download is all or nothing: each file is written to ``<name>.part``, its
SHA-256 computed while writing, its size and checksum checked, and only then
renamed to its final name; any failure or cancellation removes the
``.part``. So a model folder holds finished files only, and :meth:`ModelStore.ready`
can trust a file of the right size without hashing 230 MB at every start.

No Qt here: the window and the terminal show :class:`DownloadProgress` each
their own way (``ui/voice/model_download.py``, ``cli/model_progress.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import shutil
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import httpx2

from desktop_agent.storage.paths import PRIVATE_DIR, data_dir
from desktop_agent.voice.stt.download_errors import FailureKind, connection_failure, os_reason
from desktop_agent.voice.stt.download_errors import ModelDownloadError as ModelDownloadError
from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 0.1
"""At most ~10 progress calls a second (plus the final 100 %)."""
ETA_AFTER_S = 1.0
"""No time estimate before this much of the download: the first chunks'
rate says little (TCP slow start, a redirect)."""
NO_DOWNLOADS_ENV = "DESKTOP_AGENT_NO_DOWNLOADS"
"""Set (to anything) to refuse every download from a host other than this
machine: a test set-up that must never reach the network."""


SENSEVOICE = ModelSpec(
    key="sensevoice-small-int8",
    label="SenseVoice Small (zh/en/ja/ko/yue)",
    base_url="https://huggingface.co/csukuangfj/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17"
    "/resolve/2365baeacb507f821a0c8120fcee3d484dba7a07",
    files=(
        ModelFile("model.int8.onnx", 239_233_841, "c71f0ce00bec95b07744e116345e33d8cbbe08cef896382cf907bf4b51a2cd51"),
        ModelFile("tokens.txt", 315_894, "f449eb28dc567533d7fa59be34e2abca8784f771850c78a47fb731a31429a1dc"),
    ),
    # The same export on ModelScope (pinned by the checksums above: a
    # different file there fails as a checksum mismatch, nothing installed).
    mirrors=(("modelscope", "https://modelscope.cn/models/pengzhendong/"
              "sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17/resolve/master"),),
)


@dataclass(frozen=True)
class DownloadProgress:
    """How far one :meth:`ModelStore.ensure` download is. ``done`` and
    ``total`` count the bytes of the files this download fetches (files
    already in place are not counted)."""

    label: str
    """The model's :attr:`ModelSpec.label`."""
    file: str
    """The file being written now."""
    done: int
    total: int
    elapsed_s: float
    """Since the download started."""

    @property
    def percent(self) -> float:
        return 100.0 if self.total <= 0 else min(100.0, 100.0 * self.done / self.total)

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the average rate so far; None until
        :data:`ETA_AFTER_S` has passed with some bytes in."""
        if self.done >= self.total:
            return 0.0
        if self.elapsed_s < ETA_AFTER_S or self.done <= 0:
            return None
        return (self.total - self.done) * self.elapsed_s / self.done

    def describe(self) -> str:
        """One plain English line: ``SenseVoice …: 42 % · 96 of 240 MB · about 1 min left``."""
        parts = [f"{int(self.percent)} %", f"{format_mb_of(self.done, self.total, ' of ')} MB"]
        eta = self.eta_s
        if eta is not None and self.done < self.total:
            parts.append(f"about {format_eta_en(eta)} left")
        return f"{self.label}: {' · '.join(parts)}"


def format_mb(size: int, *, precise: bool = False) -> str:
    """``229`` (MiB, whole), or one decimal under 10 MB when ``precise``."""
    mb = size / (1 << 20)
    return f"{mb:.1f}" if precise and mb < 10 else f"{round(mb)}"


def format_mb_of(done: int, total: int, between: str) -> str:
    """``96 of 229`` (``between`` is the language's ``of``); small totals keep a decimal."""
    precise = total < 10 << 20
    return f"{format_mb(done, precise=precise)}{between}{format_mb(total, precise=precise)}"


def format_eta_en(seconds: float) -> str:
    """``40 s``, ``3 min``, ``1 h 5 min`` (rounded up, never "0 s")."""
    whole = max(1, int(seconds + 0.999))
    if whole < 60:
        return f"{whole} s"
    minutes = (whole + 59) // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h" + (f" {minutes % 60} min" if minutes % 60 else "")


ProgressCallback = Callable[[DownloadProgress], None]


class ModelStore:
    """Models under ``root``, one folder each (:meth:`folder`)."""

    def __init__(self, root: Path, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.root = root
        self._clock = clock
        # One download per model at a time. asyncio locks belong to the loop
        # that first waits on them, so there is one set per loop.
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = (
            weakref.WeakKeyDictionary()
        )

    def folder(self, spec: ModelSpec) -> Path:
        return self.root / spec.key

    def missing(self, spec: ModelSpec) -> tuple[ModelFile, ...]:
        """The files not present with their spec size."""
        folder = self.folder(spec)
        return tuple(f for f in spec.files if _size(folder / f.name) != f.size)

    def ready(self, spec: ModelSpec) -> bool:
        """Every file is present with its spec size (checksums are checked
        when downloading, not at every start)."""
        return not self.missing(spec)

    async def ensure(
        self, spec: ModelSpec, progress: ProgressCallback | None = None, *, base_url: str = ""
    ) -> Path:
        """The model's folder, downloading the missing files first (from
        ``base_url``, another source, instead of the spec's when given: its
        host says which source an error names). Concurrent calls for one
        model share one download. Raises :class:`ModelDownloadError`; a
        cancelled download is cleaned up and the ``CancelledError`` goes on."""
        folder = self.folder(spec)
        if self.ready(spec):
            return folder
        locks = self._locks.setdefault(asyncio.get_running_loop(), {})
        async with locks.setdefault(spec.key, asyncio.Lock()):
            missing = self.missing(spec)  # another call may have fetched them meanwhile
            if missing:
                _refuse_if_offline(spec, missing, base_url)
                self._prepare(spec, folder, sum(f.size for f in missing))
                await _Download(spec, missing, folder, base_url, progress, self._clock).run()
        return folder

    def _prepare(self, spec: ModelSpec, folder: Path, needed: int) -> None:
        try:
            self.root.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
            folder.mkdir(mode=PRIVATE_DIR, exist_ok=True)
            free = shutil.disk_usage(folder).free
        except OSError as exc:
            raise ModelDownloadError("folder", model=spec.label, path=folder, detail=os_reason(exc)) from exc
        if free < needed:
            raise ModelDownloadError("disk_space", model=spec.label, path=folder,
                                     needed=format_mb(needed, precise=True), free=format_mb(free, precise=True))


class _Download:
    """One :meth:`ModelStore.ensure` download: the missing files in turn."""

    def __init__(
        self,
        spec: ModelSpec,
        files: tuple[ModelFile, ...],
        folder: Path,
        base_url: str,
        progress: ProgressCallback | None,
        clock: Callable[[], float],
    ) -> None:
        self.spec, self.files, self.folder, self.base_url = spec, files, folder, base_url
        self._progress, self._clock = progress, clock
        base = base_url or spec.base_url
        self._source, self._host = source_of(base), _host(base)
        self._total = sum(f.size for f in files)
        self._done = 0
        self._started = clock()
        self._last_report: float | None = None

    async def run(self) -> None:
        log.info("downloading %s (%d bytes) to %s", self.spec.label, self._total, self.folder)
        timeout = httpx2.Timeout(30.0, read=60.0)
        self._report(self.files[0].name)  # at 0 %: the window shows the download before a byte is in
        async with httpx2.AsyncClient(timeout=timeout, follow_redirects=True) as client:
            for file in self.files:
                await self._fetch(client, file)
        self._report(self.files[-1].name, final=True)
        log.info("downloaded %s in %.1f s", self.spec.label, self._clock() - self._started)

    async def _fetch(self, client: httpx2.AsyncClient, file: ModelFile) -> None:
        url = self.spec.url(file, self.base_url)
        part = self.folder / f"{file.name}.part"
        try:
            out = _open_part(part)
        except OSError as exc:
            raise self._error("folder", path=part, detail=os_reason(exc)) from exc
        try:
            with out:
                digest = await self._stream(client, file, url, out)
            if digest != file.sha256:
                raise self._error("checksum", file=file.name, url=url)
            os.replace(part, self.folder / file.name)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                part.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise self._error("folder", path=part, detail=os_reason(exc)) from exc
            raise

    def _error(self, kind: FailureKind, **fields: Any) -> ModelDownloadError:
        """An error naming this download's model, source and host (a
        failure on this machine names neither source nor host)."""
        if kind == "folder":
            return ModelDownloadError(kind, model=self.spec.label, **fields)
        return ModelDownloadError(kind, source=self._source, host=self._host, model=self.spec.label, **fields)

    async def _stream(
        self, client: httpx2.AsyncClient, file: ModelFile, url: str, out: BinaryIO
    ) -> str:
        digest = hashlib.sha256()
        written = 0
        try:
            # identity: the bytes hashed are the bytes the spec's checksum is of
            async with client.stream("GET", url, headers={"Accept-Encoding": "identity"}) as response:
                if response.status_code != 200:
                    raise self._error("http", file=file.name, status=response.status_code, url=url)
                length = response.headers.get("content-length")
                if length is not None and length.isdigit() and int(length) != file.size:
                    raise self._error("size", file=file.name, url=url, got=length, expected=file.size)
                async for chunk in response.aiter_bytes():  # as it arrives: progress on a slow link too
                    written += len(chunk)
                    if written > file.size:
                        raise self._error("size", file=file.name, url=url, got=written, expected=file.size)
                    digest.update(chunk)
                    out.write(chunk)
                    self._done += len(chunk)
                    self._report(file.name)
        except httpx2.HTTPError as exc:
            kind, detail = connection_failure(exc)
            if written:
                raise self._error("broken", file=file.name, done=written, total=file.size,
                                  detail=detail or _BROKEN_WORDS.get(kind, kind)) from exc
            raise self._error(kind, detail=detail) from exc
        if written != file.size:
            raise self._error("size", file=file.name, url=url, got=written, expected=file.size)
        out.flush()
        os.fsync(out.fileno())
        return digest.hexdigest()

    def _report(self, name: str, *, final: bool = False) -> None:
        if self._progress is None:
            return
        now = self._clock()
        if not final and self._last_report is not None and now - self._last_report < PROGRESS_INTERVAL_S:
            return
        if not final and self._done >= self._total:
            return  # the final report says 100 % once the files are in place
        self._last_report = now
        self._progress(DownloadProgress(self.spec.label, name, self._done, self._total, now - self._started))


def default_store() -> ModelStore:
    """The store under ``<data folder>/models``; one per folder, so every
    caller shares its download locks."""
    root = data_dir() / "models"
    store = _STORES.get(root)
    if store is None:
        store = _STORES[root] = ModelStore(root)
    return store


_STORES: dict[Path, ModelStore] = {}


def source_of(base_url: str) -> str:
    """The source a base URL belongs to, by its host: the name an error
    gives it (a mirror such as hf-mirror.com is a custom address)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "huggingface.co" or host.endswith(".huggingface.co"):
        return "huggingface"
    if host in ("modelscope.cn", "www.modelscope.cn"):
        return "modelscope"
    return "custom"


_BROKEN_WORDS = {"timeout": "timed out", "refused": "the connection was refused",
                 "no_network": "the name could not be resolved"}


def _refuse_if_offline(spec: ModelSpec, files: tuple[ModelFile, ...], base_url: str) -> None:
    if not os.environ.get(NO_DOWNLOADS_ENV):
        return
    for file in files:
        url = spec.url(file, base_url)
        if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ModelDownloadError("turned_off", model=spec.label, variable=NO_DOWNLOADS_ENV, url=url)


def _open_part(path: Path) -> BinaryIO:
    """A fresh ``.part`` (a stale one from a killed run is overwritten)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "wb")


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size if path.is_file() else None
    except OSError:
        return None


def _host(url: str) -> str:
    return urlsplit(url).netloc or url
