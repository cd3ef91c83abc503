"""The tool card: a dumb widget that renders a :class:`ToolCardState`.

Signals:
    answered(tool_call_id: str, approved: bool, always_allow: bool)
        Approve or Reject was clicked (the checkbox rides along).

Which state follows which message is decided in :mod:`card_state`; this
widget only shows one state at a time. The details toggle is the only state
it keeps of its own (whether the user opened a finished card).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.ports import ImageContent
from desktop_agent.ui.card_state import (
    ToolCardState,
    arguments_summary,
    arguments_text,
    partial_text,
    progress_caption,
    title_for,
)
from desktop_agent.ui.i18n import tr
from desktop_agent.ui.spinner import Spinner

RESULT_MAX_CHARS = 6000
"""A card shows at most this much of a result (the model got all of it)."""
IMAGE_MAX_WIDTH = 360

# Style icons, not emoji: many desktops (and this project's CI) have no emoji font.
_SP = QStyle.StandardPixmap
_ICONS = {
    "preparing": _SP.SP_BrowserReload,
    "approval": _SP.SP_MessageBoxQuestion,
    "executing": _SP.SP_MediaPlay,
    "done": _SP.SP_DialogApplyButton,
    "rejected": _SP.SP_DialogCancelButton,
    "invalidated": _SP.SP_BrowserStop,
}
ICON_SIZE = 16


def _mono(parent: QWidget) -> QLabel:
    label = QLabel(parent)
    label.setObjectName("mono")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _clip(text: str, limit: int = RESULT_MAX_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters)"


class ToolCardWidget(QFrame):
    answered = Signal(str, bool, bool)

    def __init__(self, state: ToolCardState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.state = state
        self._expanded = False
        self._shown_images: tuple[ImageContent, ...] = ()

        self.icon = QLabel(self)
        self.spinner = Spinner(self)
        self.title = QLabel(self)
        self.title.setObjectName("cardTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.badge = QLabel(self)
        self.badge.setObjectName("cardMuted")
        self.toggle = QToolButton(self)
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setText(tr("details_show"))
        self.toggle.toggled.connect(self._on_toggle)
        header = QHBoxLayout()
        header.setSpacing(6)
        header.addWidget(self.spinner)
        header.addWidget(self.icon)
        header.addWidget(self.title)
        header.addWidget(self.badge, 1)
        header.addWidget(self.toggle)

        self.arguments = _mono(self)
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setFixedHeight(8)
        self.progress_caption = QLabel(self)
        self.progress_caption.setObjectName("cardMuted")
        self.result_label = QLabel(tr("result"), self)
        self.result_label.setObjectName("cardMuted")
        self.result = _mono(self)
        self.reason = QLabel(self)
        self.reason.setObjectName("cardMuted")
        self.reason.setWordWrap(True)
        self.images = QWidget(self)
        self._images_layout = QHBoxLayout(self.images)
        self._images_layout.setContentsMargins(0, 0, 0, 0)
        self._images_layout.addStretch(1)

        self.approve_button = QPushButton(tr("approve"), self)
        self.approve_button.setObjectName("approve")
        self.reject_button = QPushButton(tr("reject"), self)
        self.reject_button.setObjectName("reject")
        self.always = QCheckBox(tr("always_allow"), self)
        self.approval_row = QWidget(self)
        row = QHBoxLayout(self.approval_row)
        row.setContentsMargins(0, 2, 0, 0)
        row.addWidget(self.approve_button)
        row.addWidget(self.reject_button)
        row.addSpacing(8)
        row.addWidget(self.always)
        row.addStretch(1)
        self.approve_button.clicked.connect(lambda: self._answer(True))
        self.reject_button.clicked.connect(lambda: self._answer(False))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)
        layout.addLayout(header)
        layout.addWidget(self.arguments)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.progress_caption)
        layout.addWidget(self.approval_row)
        layout.addWidget(self.reason)
        layout.addWidget(self.result_label)
        layout.addWidget(self.result)
        layout.addWidget(self.images)
        self.show_state(state)

    # --------------------------------------------------------------- render

    def show_state(self, state: ToolCardState) -> None:
        self.state = state
        phase = state.phase
        if self.property("phase") != phase:
            self.setProperty("phase", phase)
            self.style().unpolish(self)
            self.style().polish(self)
        terminal = not state.pending
        args = arguments_text(state.arguments)
        result = state.result or ""
        partial = partial_text(state.partial_result)

        self.title.setText(title_for(state))
        icon = _ICONS[phase] if not (phase == "done" and state.is_error) else _SP.SP_MessageBoxWarning
        self.icon.setPixmap(self.style().standardIcon(icon).pixmap(ICON_SIZE, ICON_SIZE))
        self.spinner.setVisible(phase in ("preparing", "executing") and self._indeterminate(state))
        self.icon.setVisible(not self.spinner.isVisibleTo(self))
        if state.auto_approved and phase == "executing":
            self.badge.setText(tr("auto_approved"))
        else:
            self.badge.setText(arguments_summary(state.arguments) if terminal and not self._expanded else "")
        self.badge.setVisible(bool(self.badge.text()))

        expandable = terminal and bool(args or result or partial or state.images)
        self.toggle.setVisible(expandable)
        open_details = expandable and self._expanded
        show_args = bool(args) and (
            phase == "approval" or (phase == "executing" and not state.form_attached) or open_details
        )
        self.arguments.setText(args)
        self.arguments.setVisible(show_args)

        progress = state.progress
        show_progress = phase == "executing" and progress is not None
        if show_progress and progress is not None:
            percent = progress.percent
            if percent is None:
                self.progress_bar.setRange(0, 0)
            else:
                self.progress_bar.setRange(0, 100)
                self.progress_bar.setValue(percent)
            self.progress_caption.setText(progress_caption(progress))
        self.progress_bar.setVisible(show_progress and progress is not None and progress.percent is not None)
        self.progress_caption.setVisible(show_progress and bool(self.progress_caption.text()))

        self.approval_row.setVisible(phase == "approval")
        self.reason.setText(state.reason or "")
        self.reason.setVisible(phase in ("rejected", "invalidated") and bool(state.reason))

        shown_result = result if phase == "done" else partial
        self.result_label.setText(tr("result") if phase == "done" else tr("partial_result"))
        self.result.setText(_clip(shown_result))
        self.result_label.setVisible(open_details and bool(shown_result))
        self.result.setVisible(open_details and bool(shown_result))
        self._render_images(state.images)
        self.images.setVisible(phase == "done" and bool(state.images))

    @staticmethod
    def _indeterminate(state: ToolCardState) -> bool:
        return state.progress is None or state.progress.percent is None

    def _render_images(self, images: tuple[ImageContent, ...]) -> None:
        if images == self._shown_images:
            return
        self._shown_images = images
        while self._images_layout.count() > 1:
            item = self._images_layout.takeAt(0)
            old = item.widget() if item is not None else None
            if old is not None:
                old.deleteLater()
        for image in images:
            label = QLabel(self.images)
            pixmap = QPixmap()
            if pixmap.loadFromData(image.data):
                if pixmap.width() > IMAGE_MAX_WIDTH:
                    pixmap = pixmap.scaledToWidth(IMAGE_MAX_WIDTH, Qt.TransformationMode.SmoothTransformation)
                label.setPixmap(pixmap)
            else:
                label.setText(f"[image: {image.mime}, {len(image.data)} bytes]")
            label.setToolTip(image.mime)
            self._images_layout.insertWidget(self._images_layout.count() - 1, label)

    # --------------------------------------------------------------- input

    def _answer(self, approved: bool) -> None:
        if self.state.phase != "approval":
            return
        self.answered.emit(self.state.tool_call_id, approved, approved and self.always.isChecked())

    def _on_toggle(self, checked: bool) -> None:
        self._expanded = checked
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if checked else Qt.ArrowType.RightArrow)
        self.show_state(self.state)

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setChecked(expanded)
