"""The inputs of one form question, by its type (``form_request`` JSON,
contracts §5): a line for text and numbers, a box for yes/no, radio buttons
for one option, check boxes for several. A server's form adds a
description, a default filled in, bounds in the label and a placeholder
that shows the expected shape (an email, a date).

The inputs only collect: a number stays the text typed, and the core's
``FormManager.respond`` checks and types it, so the terminal and the window
give the same one-line error for the same mistake.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QCheckBox,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.texts import Texts

Answer = str | list[str] | bool

_PLACEHOLDERS = {
    "email": "form_email_placeholder",
    "uri": "form_uri_placeholder",
    "date": "form_date_placeholder",
    "date-time": "form_datetime_placeholder",
}


class QuestionInputs:
    """The label and input widgets of one question."""

    def __init__(self, spec: Mapping[str, Any], texts: Texts, parent: QWidget, layout: QVBoxLayout) -> None:
        self.id = str(spec.get("id", ""))
        self.type = str(spec.get("type", "text"))
        self.options = [str(o) for o in spec.get("options") or []]
        labels = [str(o) for o in spec.get("option_labels") or []]
        self.labels = labels if len(labels) == len(self.options) else self.options
        self.question = str(spec.get("question", ""))
        self.optional = not spec.get("required", True)
        self.format = spec.get("format")
        self.minimum: float | None = spec.get("minimum")
        self.maximum: float | None = spec.get("maximum")
        default = spec.get("default")
        self.label = QLabel(parent)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.label)
        self.description: QLabel | None = None
        if spec.get("description"):
            self.description = QLabel(str(spec["description"]), parent)
            self.description.setObjectName("cardMuted")
            self.description.setWordWrap(True)
            self.description.setTextFormat(Qt.TextFormat.PlainText)
            layout.addWidget(self.description)
        self.line: QLineEdit | None = None
        self.flag: QCheckBox | None = None
        self.radios: list[QRadioButton] = []
        self.checks: list[QCheckBox] = []
        if self.type == "choice":
            group = QButtonGroup(parent)
            for label in self.labels:
                radio = QRadioButton(label, parent)
                group.addButton(radio)
                layout.addWidget(radio)
                self.radios.append(radio)
        elif self.type == "multi_choice":
            for label in self.labels:
                check = QCheckBox(label, parent)
                layout.addWidget(check)
                self.checks.append(check)
        elif self.type == "boolean":
            self.flag = QCheckBox(parent)
            layout.addWidget(self.flag)
        else:
            self.line = QLineEdit(parent)
            layout.addWidget(self.line)
        if default is not None:
            self.fill(default)
        self.retranslate(texts)

    def retranslate(self, texts: Texts) -> None:
        """The app's words around the question (the question is the model's or the server's)."""
        words = [self.question]
        if self.type in ("number", "integer"):
            words.append(self._bounds(texts))
        if self.optional:
            words.append(texts.tr("form_optional"))
        self.label.setText(" ".join(w for w in words if w))
        if self.flag is not None:
            self.flag.setText(texts.tr("form_yes"))
        if self.line is not None:
            key = {"number": "form_number_placeholder", "integer": "form_integer_placeholder"}.get(self.type)
            key = key or _PLACEHOLDERS.get(str(self.format), "form_text_placeholder")
            self.line.setPlaceholderText(texts.tr(key))

    def _bounds(self, texts: Texts) -> str:
        low = f"{self.minimum:g}" if self.minimum is not None else None
        high = f"{self.maximum:g}" if self.maximum is not None else None
        if low is not None and high is not None:
            return texts.tr("form_range", low=low, high=high)
        if low is not None:
            return texts.tr("form_at_least", low=low)
        if high is not None:
            return texts.tr("form_at_most", high=high)
        return ""

    def answer(self) -> Answer | None:
        if self.line is not None:
            text = self.line.text().strip()
            return text or None
        if self.flag is not None:
            return self.flag.isChecked()
        if self.radios:
            chosen = [v for v, r in zip(self.options, self.radios, strict=True) if r.isChecked()]
            return chosen[0] if chosen else None
        picked = [v for v, c in zip(self.options, self.checks, strict=True) if c.isChecked()]
        return picked or None

    def fill(self, value: object) -> None:
        """Show ``value`` (a default, or a restored answer; None: empty)."""
        if self.line is not None:
            self.line.setText(_text(value))
        if self.flag is not None:
            self.flag.setChecked(value is True)
        chosen = {str(v) for v in value} if isinstance(value, list) else {str(value)} if value is not None else set()
        buttons: list[QAbstractButton] = [*self.radios, *self.checks]
        for option, button in zip(self.options, buttons, strict=False):
            button.setChecked(option in chosen)

    def inputs(self) -> list[QWidget]:
        widgets: list[QWidget] = [*self.radios, *self.checks]
        if self.line is not None:
            widgets.append(self.line)
        if self.flag is not None:
            widgets.append(self.flag)
        return widgets


def _text(value: object) -> str:
    if value is None or isinstance(value, list | bool):
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
