"""Texts that follow the language (switching it in Settings changes what
is open at once). A widget's text is bound once with the key
it comes from; :meth:`Texts.retranslate` sets every bound text again."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QWidget

from desktop_agent.ui.i18n import tr


class Texts:
    def __init__(self) -> None:
        self._setters: list[Callable[[], None]] = []

    def bind(self, setter: Callable[[str], None], key: str, **fields: object) -> None:
        """``setter(tr(key, **fields))`` now and at every :meth:`retranslate`."""

        def apply() -> None:
            setter(tr(key, **fields))

        apply()
        self._setters.append(apply)

    def label(self, key: str, parent: QWidget | None = None) -> QLabel:
        """A form row's label, bound to ``key``."""
        label = QLabel(parent)
        self.bind(label.setText, key)
        return label

    def retranslate(self) -> None:
        for apply in self._setters:
            apply()


def item_text(combo: QComboBox, index: int) -> Callable[[str], None]:
    """A setter for one combo item's text (for :meth:`Texts.bind`)."""

    def set_text(text: str) -> None:
        combo.setItemText(index, text)

    return set_text


class KeyedButton(QPushButton):
    """A button in the chat column whose text is one of the app's (the
    restored conversation's "Show earlier messages"): the chat view's
    language switch reaches it through :meth:`retranslate`."""

    def __init__(self, key: str, parent: QWidget | None = None, **fields: object) -> None:
        super().__init__(parent)
        self.set_key(key, **fields)

    def set_key(self, key: str, **fields: object) -> None:
        self._key, self._fields = key, fields
        self.retranslate()

    def retranslate(self) -> None:
        self.setText(tr(self._key, **self._fields))
