"""A fenced code block in a reply: highlighted code under a header with its
language and a Copy button that copies the code exactly as written.

Highlighting is Pygments' HTML with inline styles (``noclasses``), which a
rich-text QLabel renders; the style follows the theme (light or dark) and
is redone when the window's colours change. Pygments is imported with the
first code block, not at start-up.

Signals:
    copied()   the code was put on the clipboard
"""

from __future__ import annotations

import functools
import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.common.theme import DARK, colors_for

if TYPE_CHECKING:
    from pygments.lexer import Lexer

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
"""Pygments styles whose token colours read well on the theme's ``code`` ground."""
COPIED_MS = 1500
"""How long the button says Copied."""


@functools.cache
def _lexer(language: str) -> Lexer:
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    plain: Lexer = TextLexer()  # pygments.lexers' stubs give its lexer classes as Any
    try:
        return get_lexer_by_name(language) if language else plain
    except ClassNotFound:
        return plain


def highlighted_html(code: str, language: str, *, dark: bool) -> str:
    """``code`` as HTML with inline colours (no background: the block's own
    ground shows), lines kept, long lines wrapping."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    formatter = HtmlFormatter(noclasses=True, nowrap=True, nobackground=True,
                              style=DARK_STYLE if dark else LIGHT_STYLE)
    lexer = _lexer(language.lower())
    body = highlight(code, lexer, formatter) if lexer.name != "Text only" else html.escape(code)
    return f'<div style="white-space: pre-wrap;">{body.rstrip(chr(10))}</div>'


def language_of(info: str) -> str:
    """The language a fence's info string names (its first word), or ""."""
    return info.strip().split(maxsplit=1)[0] if info.strip() else ""


class CodeBlock(QFrame):
    copied = Signal()

    def __init__(self, code: str, language: str, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeBlock")
        self.code = code
        """The code exactly as written (what Copy copies)."""
        self.language = language
        self._texts = texts
        self._dark: bool | None = None
        self.language_label = QLabel(language or self._texts.tr("code_plain"), self)
        self.language_label.setObjectName("codeLanguage")
        self.copy_button = QToolButton(self)
        self._copied = QTimer(self)  # "Copied" goes back to its label (a child timer: it dies with the row)
        self._copied.setSingleShot(True)
        self._copied.setInterval(COPIED_MS)
        self._copied.timeout.connect(lambda: self.copy_button.setText(self._texts.tr("code_copy")))
        self.copy_button.setObjectName("codeCopy")
        self.copy_button.setText(self._texts.tr("code_copy"))
        self.copy_button.setToolTip(self._texts.tr("code_copy_tip"))
        self.copy_button.setAutoRaise(True)
        self.copy_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.copy_button.clicked.connect(self.copy)
        self.body = QLabel(self)
        self.body.setObjectName("codeText")
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.language_label)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(10, 2, 4, 6)
        box.setSpacing(0)
        box.addLayout(header)
        box.addWidget(self.body)
        self._render()

    def text(self) -> str:
        """The code (as a code label's text would be)."""
        return self.code

    def copy(self) -> None:
        """Put the code on the clipboard; the button says so for a moment."""
        QApplication.clipboard().setText(self.code)
        self.copy_button.setText(self._texts.tr("copied"))
        self._copied.start()
        self.copied.emit()

    def retranslate(self, texts: Texts) -> None:
        """The header's texts again in ``texts``' language (a language switch)."""
        self._texts = texts
        if not self.language:
            self.language_label.setText(self._texts.tr("code_plain"))
        self.copy_button.setText(self._texts.tr("copied") if self._copied.isActive() else self._texts.tr("code_copy"))
        self.copy_button.setToolTip(self._texts.tr("code_copy_tip"))

    def _render(self) -> None:
        app = QApplication.instance()
        dark = isinstance(app, QApplication) and colors_for(app) is DARK
        if dark != self._dark:
            self._dark = dark
            self.body.setText(highlighted_html(self.code, self.language, dark=dark))

    def changeEvent(self, event: QEvent) -> None:
        # The window re-applies its style sheet when the system (or the
        # user's choice) switches between light and dark.
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.PaletteChange):
            self._render()
        super().changeEvent(event)
