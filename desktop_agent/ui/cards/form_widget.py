"""A form in the chat: ``ask_user_question``'s questions, or an MCP server's
elicitation (``source``, contracts §10), with Submit / Cancel and, for a
server's form, Decline.

A server's form names the server above its message ("Server “everything”
asks:"), so the user knows who wants the answers. A server asking the user
to open a web address (``source.url``) shows the message, the address's
host in plain sight and the whole address, and an Open button: the browser
opens only when the user clicks it (:attr:`FormWidget.open_url`), and only
for an http(s) address.

Signals:
    submitted(form_id: str, answers: dict)
        ``{question id: text | option | [options] | bool}``; empty answers
        left out (a URL form: ``{}`` once the browser was opened).
    cancelled(form_id: str)
    declined(form_id: str)

The answers are checked by ``FormManager.respond`` (core); a wrong answer
comes back through :meth:`show_error` and the form stays open.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.cards.form_inputs import QuestionInputs
from desktop_agent.ui.common.dialog_parts import ERROR_COLOUR

FormEnd = Literal["submitted", "cancelled", "closed", "declined"]


def _open_in_browser(url: str) -> bool:
    return QDesktopServices.openUrl(QUrl(url))


class FormWidget(QFrame):
    submitted = Signal(str, dict)
    cancelled = Signal(str)
    declined = Signal(str)

    def __init__(
        self,
        form_id: str,
        questions: Sequence[Mapping[str, Any]],
        title: str | None,
        texts: Texts,
        parent: QWidget | None = None,
        *,
        source: Mapping[str, Any] | None = None,
    ) -> None:
        """``source``: the ``form_request``'s (a server's form), None for the model's."""
        super().__init__(parent)
        self.setObjectName("formCard")
        self.form_id = form_id
        self.ended: FormEnd | None = None
        self.server: str | None = str(source["server"]) if source and source.get("server") is not None else None
        self.url: str | None = str(source["url"]) if source and source.get("url") is not None else None
        self.open_url: Callable[[str], bool] = _open_in_browser
        """Opens the address in the browser (a test puts its own here)."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        self._title = title
        self._texts = texts
        self.heading = QLabel(self)
        self.heading.setObjectName("cardTitle")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.heading)
        self.message: QLabel | None = None
        if self.server is not None and title:
            self.message = self._plain_label(title, layout)
        self.host: QLabel | None = None
        self.address: QLabel | None = None
        if self.url is not None:
            self.host = self._plain_label("", layout)
            self.host.setStyleSheet("font-weight: bold;")
            self.address = self._plain_label(self.url, layout)
            self.address.setObjectName("cardMuted")
            self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.questions = [QuestionInputs(q, texts, self, layout) for q in questions]
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
        self.submit_button = QPushButton(self)
        self.submit_button.setDefault(True)
        self.cancel_button = QPushButton(self)
        self.decline_button = QPushButton(self)
        self.decline_button.setVisible(self.server is not None)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.decline_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.submit_button)
        layout.addLayout(buttons)
        self.submit_button.clicked.connect(self._submit)
        self.cancel_button.clicked.connect(self._cancel)
        self.decline_button.clicked.connect(self._decline)
        for q in self.questions:
            if q.line is not None:
                q.line.returnPressed.connect(self._submit)
        self.retranslate(texts)
        if self.url is not None and not self._web_address:
            self.submit_button.setEnabled(False)
            self.show_error(texts.tr("form_url_not_web"))

    def _plain_label(self, text: str, layout: QVBoxLayout) -> QLabel:
        label = QLabel(text, self)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(label)
        return label

    @property
    def _web_address(self) -> bool:
        parts = urlsplit(self.url or "")
        return parts.scheme in ("http", "https") and bool(parts.hostname)

    def answers(self) -> dict[str, str | list[str] | bool]:
        out: dict[str, str | list[str] | bool] = {}
        for q in self.questions:
            value = q.answer()
            if value is not None:
                out[q.id] = value
        return out

    def fill(self, answers: Mapping[str, Any]) -> None:
        """Put given answers into the inputs (a restored form)."""
        for q in self.questions:
            q.fill(answers.get(q.id))

    def _submit(self) -> None:
        if self.ended is not None:
            return
        if self.url is not None:
            # The browser opens here, on the user's click, and nowhere else.
            if not self._web_address:
                return
            if not self.open_url(self.url):
                self.show_error(self._texts.tr("form_url_failed"))
                return
        self.submitted.emit(self.form_id, self.answers())

    def _cancel(self) -> None:
        if self.ended is None:
            self.cancelled.emit(self.form_id)

    def _decline(self) -> None:
        if self.ended is None:
            self.declined.emit(self.form_id)

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
        self.decline_button.hide()
        self.status.setText(self._end_text(self._texts, end))
        self.status.show()

    def retranslate(self, texts: Texts) -> None:
        """The app's own texts again in ``texts``' language (a language
        switch); the model's or server's title and questions stay as they are."""
        self._texts = texts
        if self.server is not None:
            self.heading.setText(texts.tr("form_server_asks", server=self.server))
        else:
            self.heading.setText(self._title or texts.tr("form_title"))
        if self.host is not None:
            host = urlsplit(self.url or "").hostname or self.url or ""
            self.host.setText(texts.tr("form_url_host", host=host))
        for q in self.questions:
            q.retranslate(texts)
        self.submit_button.setText(texts.tr("form_url_open" if self.url is not None else "form_submit"))
        self.cancel_button.setText(texts.tr("form_cancel"))
        self.decline_button.setText(texts.tr("form_decline"))
        if self.ended is not None:
            self.status.setText(self._end_text(texts, self.ended))

    def _end_text(self, texts: Texts, end: FormEnd) -> str:
        if end == "submitted" and self.url is not None:
            return texts.tr("form_url_opened")
        keys = {"submitted": "form_submitted", "cancelled": "form_cancelled", "declined": "form_declined"}
        return texts.tr(keys.get(end, "form_closed"))
