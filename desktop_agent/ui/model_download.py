"""The speech model's first-use download, shown above the input: a line
saying how far it is ("Downloading the speech model: 42 % · 96 of 240 MB ·
about 1 min left"), a thin bar and Cancel. Hidden when the download is
done; a failed one shows its reason in one line until closed.

It takes plain :class:`~desktop_agent.voice.stt.models.DownloadProgress`
values and knows nothing of the download itself; whoever runs it connects
:attr:`ModelDownloadPanel.cancel_requested` to cancelling it. Imported when
the window is built, so it imports neither the store nor the core (the
window shows before them).

Signals:
    cancel_requested()  the user pressed Cancel during a download (the
                        panel hides at once)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop_agent.ui.i18n import tr

if TYPE_CHECKING:
    from desktop_agent.voice.stt.models import DownloadProgress


def download_caption(progress: DownloadProgress) -> str:
    """``Downloading the speech model: 42 % · 96 of 240 MB · about 1 min left``."""
    from desktop_agent.ui.card_wording import format_eta  # not at window start-up: it pulls in the core
    from desktop_agent.voice.stt.models import format_mb

    precise = progress.total < 10 << 20
    parts = [
        tr("model_download_percent", n=int(progress.percent)),
        tr(
            "model_download_size",
            done=format_mb(progress.done, precise=precise),
            total=format_mb(progress.total, precise=precise),
        ),
    ]
    eta = progress.eta_s
    if eta is not None and progress.done < progress.total:
        parts.append(tr("model_download_eta", eta=format_eta(eta)))
    return tr("model_downloading", details=" · ".join(parts))


class ModelDownloadPanel(QWidget):
    cancel_requested = Signal()
    _posted = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.frame = QFrame(self)
        self.frame.setObjectName("modelDownload")
        self.label = QLabel(self.frame)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = QProgressBar(self.frame)
        self.bar.setRange(0, 100)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.button = QPushButton(tr("model_download_cancel"), self.frame)
        self.button.clicked.connect(self._on_button)

        row = QHBoxLayout()
        row.setSpacing(10)
        row.addWidget(self.label, 1)
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
        """``hidden``, ``downloading`` or ``failed``."""
        if self.isHidden():
            return "hidden"
        return "failed" if self._failed else "downloading"

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
        self._set_failed(False)
        self.bar.setValue(int(progress.percent))
        self.label.setText(download_caption(progress))
        self.show()

    def finished(self) -> None:
        self._set_failed(False)
        self.hide()

    def failed(self, message: str) -> None:
        """Show why it failed (one line) with Close instead of Cancel."""
        self._set_failed(True)
        self.label.setText(tr("model_download_failed", reason=" ".join(message.split())))
        self.show()

    def _set_failed(self, failed: bool) -> None:
        self._failed = failed
        self.bar.setVisible(not failed)
        self.button.setText(tr("model_download_close" if failed else "model_download_cancel"))
        self.frame.setProperty("state", "failed" if failed else "downloading")
        self.frame.style().unpolish(self.frame)
        self.frame.style().polish(self.frame)

    def _on_button(self) -> None:
        was_downloading = not self._failed
        self.finished()
        if was_downloading:
            self.cancel_requested.emit()
