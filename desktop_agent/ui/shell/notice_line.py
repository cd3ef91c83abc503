"""The notice line: start-up notices in a slim bar above the input, each
with a × that dismisses it, instead of a chat bubble in every session.

What goes here is said about the set-up, not the conversation ("Online voice
unavailable…", "No audio output device…", a skill or MCP servers file that
could not be read): as bubbles they came back into every new chat and
pushed the conversation down. Each notice has a *key*, its English wording:
the same condition worded the same way is the same notice, and a different
wording (another server, another reason) is a new one. A dismissed key
stays hidden in later sessions (``Settings.dismissed_notices``, saved by the
window through :attr:`NoticeLine.dismissals_changed`) until its condition
changes: :meth:`NoticeLine.show_start_up` forgets a dismissed start-up
notice that this start-up no longer has (kept as ``start-up:`` and its
wording, since only a start-up can tell that it is gone), and
:meth:`NoticeLine.withdraw` one whose condition ended while the window runs
(an audio output plugged in). A notice said while the window runs (an MCP
server's warning, the online voice's fallback) stays dismissed until then. The headless mode prints its ``notice:`` lines as before
(contracts §10); this is the window's way only.

Signals:
    dismissals_changed(keys: tuple)  the dismissed keys to keep, after a
                                     × or a condition that ended
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeAlias

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop_agent.core.notice import Notice
from desktop_agent.texts import ENGLISH, Texts
from desktop_agent.ui.shell.notice_wording import notice_text

Wording: TypeAlias = "str | Callable[[Texts], str]"
"""A notice: a line (a :class:`~desktop_agent.core.notice.Notice` is worded
in the window's language) or a function giving it in a language."""

START_UP = "start-up:"
"""The prefix of a dismissed start-up notice's key."""


def worded(wording: Wording, texts: Texts) -> str:
    """``wording`` in ``texts``' language."""
    return wording(texts) if callable(wording) else notice_text(texts, wording)


def notice_key(wording: Wording) -> str:
    """What a dismissal remembers: the English wording; for a notice that
    counts (``count`` among its fields: "wrote 5 more lines…", said again
    with another number), its UI text and what it is about, so the next
    count takes the same row and a dismissal holds for every count."""
    if isinstance(wording, Notice) and "count" in wording.fields:
        about = ",".join(f"{k}={v}" for k, v in sorted(wording.fields.items()) if k != "count")
        return f"{wording.key}:{about}"
    return worded(wording, ENGLISH)


class _Row(QWidget):
    """One notice: ⚠, its text, and ×."""

    def __init__(self, key: str, wording: Wording, texts: Texts, on_close: Callable[[str], None], parent: QWidget):
        super().__init__(parent)
        self.key = key
        """What a dismissal keeps (``start-up:`` and the wording, for a start-up notice)."""
        self.wording = wording
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # a path or server reply is shown, never interpreted
        self.label.setWordWrap(True)
        self.close_button = QToolButton(self)
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(lambda: on_close(key))
        layout.addWidget(self.label, 1)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.retranslate(texts)

    def retranslate(self, texts: Texts) -> None:
        self.label.setText(f"⚠ {worded(self.wording, texts)}")
        self.close_button.setToolTip(texts.tr("notice_dismiss"))
        self.close_button.setAccessibleName(texts.tr("notice_dismiss"))


class NoticeLine(QFrame):
    """The bar; hidden while it shows nothing."""

    dismissals_changed = Signal(tuple)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeLine")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#noticeLine { background: rgba(210, 153, 34, 0.14); border-radius: 4px; }")
        self._texts = texts
        self._rows: dict[str, _Row] = {}
        self._dismissed: tuple[str, ...] = ()
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(10, 2, 4, 2)
        self._column.setSpacing(0)
        self.setVisible(False)

    # ------------------------------------------------------------ what shows

    def show_start_up(self, notices: Iterable[Wording], dismissed: Iterable[str]) -> None:
        """This start-up's notices, less those dismissed; a dismissed
        start-up notice this start-up no longer has is forgotten (its
        condition changed: the next time it comes back it shows)."""
        notices = list(notices)
        now = {START_UP + notice_key(n) for n in notices}
        before = tuple(dismissed)
        self._dismissed = tuple(k for k in before if k in now or not k.startswith(START_UP))
        for notice in notices:
            self.post(notice, start_up=True)
        if self._dismissed != before:
            self.dismissals_changed.emit(self._dismissed)

    def post(self, wording: Wording, *, start_up: bool = False) -> bool:
        """Show ``wording`` unless it shows already or was dismissed (False then)."""
        key = notice_key(wording)
        if key in self._dismissed or START_UP + key in self._dismissed:
            return False
        if key in self._rows:  # the same notice said again: its words now (a new count)
            shown = self._rows[key]
            if worded(shown.wording, ENGLISH) == worded(wording, ENGLISH):
                return False
            shown.wording = wording
            shown.retranslate(self._texts)
            return True
        row = _Row(START_UP + key if start_up else key, wording, self._texts, self.dismiss, self)
        self._rows[key] = row
        self._column.addWidget(row)
        self.setVisible(True)
        return True

    def dismiss(self, key: str) -> None:
        """The user's × (``key``: the row's): hidden now and in later sessions while it holds."""
        self._remove(key.removeprefix(START_UP))
        if key not in self._dismissed:
            self._dismissed = (*self._dismissed, key)
            self.dismissals_changed.emit(self._dismissed)

    def withdraw(self, wording: Wording) -> None:
        """Its condition ended: hidden, and a dismissal of it forgotten."""
        key = notice_key(wording)
        self._remove(key)
        kept = tuple(k for k in self._dismissed if k not in (key, START_UP + key))
        if kept != self._dismissed:
            self._dismissed = kept
            self.dismissals_changed.emit(kept)

    def _remove(self, key: str) -> None:
        row = self._rows.pop(key, None)
        if row is not None:
            row.setParent(None)
            row.deleteLater()
        self.setVisible(bool(self._rows))

    # ------------------------------------------------------------ reading

    def shown(self) -> list[str]:
        """The lines on show, in order, as the user reads them."""
        return [row.label.text() for row in self._rows.values()]

    def row(self, wording: Wording) -> _Row:
        """The row showing ``wording``."""
        return self._rows[notice_key(wording)]

    @property
    def dismissed(self) -> tuple[str, ...]:
        return self._dismissed

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        for row in self._rows.values():
            row.retranslate(texts)


__all__ = ["START_UP", "NoticeLine", "Wording", "notice_key", "worded"]
