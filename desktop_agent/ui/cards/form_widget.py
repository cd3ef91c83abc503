"""The ``ask_user_question`` form: free-text and choice questions with
Submit / Cancel.

Signals:
    submitted(form_id: str, answers: dict)
        ``{question id: text | option | [options]}``; empty answers left out.
    cancelled(form_id: str)

The answers are checked by ``FormManager.respond`` (core); a wrong answer
comes back through :meth:`show_error` and the form stays open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.texts import Texts
from desktop_agent.ui.common.dialog_parts import ERROR_COLOUR

FormEnd = Literal["submitted", "cancelled", "closed"]


class _Question:
    """The input widgets of one question."""

    def __init__(self, spec: Mapping[str, Any], texts: Texts, parent: QWidget, layout: QVBoxLayout) -> None:
        self.id = str(spec.get("id", ""))
        self.type = str(spec.get("type", "text"))
        self.options = [str(o) for o in spec.get("options") or []]
        self.question = str(spec.get("question", ""))
        self.optional = not spec.get("required", True)
        self.label = QLabel(parent)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.label)
        self.line: QLineEdit | None = None
        self.radios: list[QRadioButton] = []
        self.checks: list[QCheckBox] = []
        if self.type == "choice":
            group = QButtonGroup(parent)
            for option in self.options:
                radio = QRadioButton(option, parent)
                group.addButton(radio)
                layout.addWidget(radio)
                self.radios.append(radio)
        elif self.type == "multi_choice":
            for option in self.options:
                check = QCheckBox(option, parent)
                layout.addWidget(check)
                self.checks.append(check)
        else:
            self.line = QLineEdit(parent)
            layout.addWidget(self.line)
        self.retranslate(texts)

    def retranslate(self, texts: Texts) -> None:
        """The app's words around the question (the question is the model's)."""
        self.label.setText(self.question + (" " + texts.tr("form_optional") if self.optional else ""))
        if self.line is not None:
            self.line.setPlaceholderText(texts.tr("form_text_placeholder"))

    def answer(self) -> str | list[str] | None:
        if self.line is not None:
            text = self.line.text().strip()
            return text or None
        if self.radios:
            chosen = [r.text() for r in self.radios if r.isChecked()]
            return chosen[0] if chosen else None
        picked = [c.text() for c in self.checks if c.isChecked()]
        return picked or None

    def inputs(self) -> list[QWidget]:
        widgets: list[QWidget] = [*self.radios, *self.checks]
        if self.line is not None:
            widgets.append(self.line)
        return widgets


class FormWidget(QFrame):
    submitted = Signal(str, dict)
    cancelled = Signal(str)

    def __init__(
        self,
        form_id: str,
        questions: Sequence[Mapping[str, Any]],
        title: str | None,
        texts: Texts,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("formCard")
        self.form_id = form_id
        self.ended: FormEnd | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        self._title = title
        self._texts = texts
        self.heading = QLabel(title or texts.tr("form_title"), self)
        self.heading.setObjectName("cardTitle")
        self.heading.setWordWrap(True)
        layout.addWidget(self.heading)
        self.questions = [_Question(q, texts, self, layout) for q in questions]
        self.error = QLabel(self)
        self.error.setObjectName("cardMuted")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.error.hide()
        layout.addWidget(self.error)
        self.status = QLabel(self)
        self.status.setObjectName("cardMuted")
        self.status.hide()
        layout.addWidget(self.status)
        self.submit_button = QPushButton(texts.tr("form_submit"), self)
        self.submit_button.setDefault(True)
        self.cancel_button = QPushButton(texts.tr("form_cancel"), self)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.submit_button)
        layout.addLayout(buttons)
        self.submit_button.clicked.connect(self._submit)
        self.cancel_button.clicked.connect(self._cancel)
        for q in self.questions:
            if q.line is not None:
                q.line.returnPressed.connect(self._submit)

    def answers(self) -> dict[str, str | list[str]]:
        out: dict[str, str | list[str]] = {}
        for q in self.questions:
            value = q.answer()
            if value is not None:
                out[q.id] = value
        return out

    def fill(self, answers: Mapping[str, Any]) -> None:
        """Put given answers into the inputs (a restored form)."""
        for q in self.questions:
            value = answers.get(q.id)
            chosen = {str(v) for v in value} if isinstance(value, list) else {str(value)} if value is not None else set()
            if q.line is not None:
                q.line.setText(str(value) if value is not None and not isinstance(value, list) else "")
            for button in [*q.radios, *q.checks]:
                button.setChecked(button.text() in chosen)

    def _submit(self) -> None:
        if self.ended is None:
            self.submitted.emit(self.form_id, self.answers())

    def _cancel(self) -> None:
        if self.ended is None:
            self.cancelled.emit(self.form_id)

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()

    def finish(self, end: FormEnd) -> None:
        """The form is over: lock it and say how it ended."""
        if self.ended is not None:
            return
        self.ended = end
        self.error.hide()
        for q in self.questions:
            for widget in q.inputs():
                widget.setEnabled(False)
        self.submit_button.hide()
        self.cancel_button.hide()
        self.status.setText(_end_text(self._texts, end))
        self.status.show()

    def retranslate(self, texts: Texts) -> None:
        """The app's own texts again in ``texts``' language (a language
        switch); the model's title and questions stay as they are."""
        self._texts = texts
        self.heading.setText(self._title or texts.tr("form_title"))
        for q in self.questions:
            q.retranslate(texts)
        self.submit_button.setText(texts.tr("form_submit"))
        self.cancel_button.setText(texts.tr("form_cancel"))
        if self.ended is not None:
            self.status.setText(_end_text(texts, self.ended))


def _end_text(texts: Texts, end: FormEnd) -> str:
    return texts.tr({"submitted": "form_submitted", "cancelled": "form_cancelled"}.get(end, "form_closed"))
