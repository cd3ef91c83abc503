"""The speech model's first-use download, shown above the input: a line
saying how far it is ("Downloading the speech model: 42 % · 96 of 240 MB ·
about 1 min left"), a thin bar and Cancel. Hidden when the download is
done; a failed one shows its reason in one line until closed.

It takes plain :class:`~desktop_agent.voice.stt.models.DownloadProgress`
values and knows nothing of the download itself; whoever runs it connects
:attr:`ModelDownloadPanel.cancel_requested` to cancelling it. Imported when
the window is built, so it imports neither the store nor the core (the
window shows before them).

It also says why a download failed — one line in the UI language naming
the source and the reason, with Retry, "Try <the other source>" and Close —
and offers the first download (the model, its size, its source, with
Download and Not now) when speech input starts with no offline model for
Chinese and English on this computer.

Signals:
    cancel_requested()        the user pressed Cancel during a download (the
                              panel hides at once)
    retry_requested()         Retry on a failed download
    source_requested(str)     "Try …" on a failed download: the source's name
    offer_answered(bool)      the offer's Download (True) or Not now (False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop_agent.texts import Texts

if TYPE_CHECKING:
    from desktop_agent.voice.stt.models import DownloadProgress, ModelDownloadError


def download_caption(texts: Texts, progress: DownloadProgress) -> str:
    """``Downloading the speech model: 42 % · 96 of 240 MB · about 1 min left``."""
    from desktop_agent.ui.cards.wording import format_eta  # not at window start-up: it pulls in the core
    from desktop_agent.voice.stt.models import format_mb

    precise = progress.total < 10 << 20
    parts = [
        texts.tr("model_download_percent", n=int(progress.percent)),
        texts.tr(
            "model_download_size",
            done=format_mb(progress.done, precise=precise),
            total=format_mb(progress.total, precise=precise),
        ),
    ]
    eta = progress.eta_s
    if eta is not None and progress.done < progress.total:
        parts.append(texts.tr("model_download_eta", eta=format_eta(texts, eta)))
    return texts.tr("model_downloading", details=" · ".join(parts))


class ModelDownloadPanel(QWidget):
    cancel_requested = Signal()
    retry_requested = Signal()
    source_requested = Signal(str)
    offer_answered = Signal(bool)
    _posted = Signal(object)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.frame = QFrame(self)
        self.frame.setObjectName("modelDownload")
        self.label = QLabel(self.frame)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = QProgressBar(self.frame)
        self.bar.setRange(0, 100)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.button = QPushButton(texts.tr("model_download_cancel"), self.frame)
        self.button.clicked.connect(self._on_button)
        self.retry = QPushButton(self.frame)
        self.retry.clicked.connect(self._on_retry)
        self.other_source = QPushButton(self.frame)
        self.other_source.clicked.connect(self._on_other_source)
        self._source = ""
        """The source "Try …" names (a failed download), or ""."""
        self._mode = "downloading"
        """``downloading``, ``failed``, ``offer``."""
        self._text: Callable[[Texts], str] = lambda _texts: ""

        row = QHBoxLayout()
        row.setSpacing(10)
        row.addWidget(self.label, 1)
        row.addWidget(self.retry, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.other_source, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)
        inner = QVBoxLayout(self.frame)
        inner.setContentsMargins(10, 6, 10, 8)
        inner.setSpacing(6)
        inner.addLayout(row)
        inner.addWidget(self.bar)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 6, 12, 0)  # lined up with the input row below
        outer.addWidget(self.frame)
        self._failed = False
        # post() may be called from a worker thread: the signal queues it onto ours.
        self._posted.connect(self._on_posted)
        self.hide()

    @property
    def state(self) -> str:
        """``hidden``, ``downloading``, ``failed`` or ``offer``."""
        if self.isHidden():
            return "hidden"
        return self._mode

    def post(self, progress: DownloadProgress) -> None:
        """:meth:`progress` from any thread (a recogniser's progress callback)."""
        self._posted.emit(progress)

    def _on_posted(self, progress: object) -> None:
        from desktop_agent.voice.stt.models import DownloadProgress

        if isinstance(progress, DownloadProgress):
            self.progress(progress)

    def progress(self, progress: DownloadProgress) -> None:
        """Show how far it is; the final report (all bytes in) hides the panel."""
        if progress.total > 0 and progress.done >= progress.total:
            self.finished()
            return
        self._set_mode("downloading", lambda texts: download_caption(texts, progress))
        self.bar.setValue(int(progress.percent))
        self.show()

    def finished(self) -> None:
        self._set_mode("downloading", lambda _texts: "")
        self.hide()

    def failed(self, message: str) -> None:
        """Show why it failed (one line) with Close instead of Cancel."""
        reason = " ".join(message.split())
        self._set_mode("failed", lambda texts: texts.tr("model_download_failed", reason=reason))
        self.show()

    def failed_download(self, error: ModelDownloadError, *, kept: bool = False) -> None:
        """A download that failed, in the UI language: the source and why,
        with Retry and "Try <the other source>" (``kept``: a recording
        waits, and the line says it is kept)."""
        from desktop_agent.ui.voice.model_wording import download_error_text, next_source

        self._source = next_source(error.source) if error.source else ""

        def line(texts: Texts) -> str:
            reason = download_error_text(texts, error)
            reason = reason[:1].upper() + reason[1:]
            return texts.tr("model_download_failed_line", reason=reason) if kept else reason

        self._set_mode("failed", line)
        self.show()

    def offer(self, model: str, size: int, source: str) -> None:
        """Offer the first download of ``model`` (``size`` bytes from ``source``)."""
        from desktop_agent.ui.voice.model_wording import size_mb

        self._set_mode("offer", lambda texts: texts.tr("model_offer", model=model, mb=size_mb(size),
                                                       source=texts.tr(f"model_source_{source}")))
        self.show()

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        self._set_mode(self._mode, self._text)

    def _set_mode(self, mode: str, text: Callable[[Texts], str]) -> None:
        self._mode, self._text = mode, text
        self._failed = mode == "failed"
        self.label.setText(text(self._texts))
        self.bar.setVisible(mode == "downloading")
        self.button.setText(self._texts.tr({"failed": "model_download_close", "offer": "model_offer_not_now"}.get(
            mode, "model_download_cancel")))
        self.retry.setVisible(mode in ("failed", "offer"))
        self.retry.setText(self._texts.tr("model_offer_download" if mode == "offer" else "model_download_retry"))
        self.other_source.setVisible(mode == "failed" and bool(self._source))
        if self._source:
            self.other_source.setText(self._texts.tr("model_download_try_source", source=self._texts.tr(f"model_source_{self._source}")))
        self.frame.setProperty("state", "failed" if mode == "failed" else "downloading")
        self.frame.style().unpolish(self.frame)
        self.frame.style().polish(self.frame)

    def _on_button(self) -> None:
        mode = self._mode
        self.finished()
        if mode == "downloading":
            self.cancel_requested.emit()
        elif mode == "offer":
            self.offer_answered.emit(False)

    def _on_retry(self) -> None:
        mode = self._mode
        self.finished()
        if mode == "offer":
            self.offer_answered.emit(True)
        else:
            self.retry_requested.emit()

    def _on_other_source(self) -> None:
        source = self._source
        self.finished()
        if source:
            self.source_requested.emit(source)
