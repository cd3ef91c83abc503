"""Texts that follow the language (switching it in Settings changes what
is open at once). A widget's text is bound once with the key it comes
from; :meth:`TextBindings.retranslate` sets every bound text again in the
:class:`~desktop_agent.texts.Texts` it is handed."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QWidget

from desktop_agent.texts import Texts


class TextBindings:
    """One widget's fixed texts and the language they are in (``texts``:
    what the widget also draws its changing texts from)."""

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self._setters: list[Callable[[], None]] = []

    def tr(self, key: str, **fields: object) -> str:
        """The text for ``key`` in the widget's language now."""
        return self.texts.tr(key, **fields)

    def bind(self, setter: Callable[[str], None], key: str, **fields: object) -> None:
        """``setter(texts.tr(key, **fields))`` now and at every :meth:`retranslate`."""

        def apply() -> None:
            setter(self.texts.tr(key, **fields))

        apply()
        self._setters.append(apply)

    def label(self, key: str, parent: QWidget | None = None) -> QLabel:
        """A form row's label, bound to ``key``."""
        label = QLabel(parent)
        self.bind(label.setText, key)
        return label

    def retranslate(self, texts: Texts) -> None:
        self.texts = texts
        for apply in self._setters:
            apply()


def item_text(combo: QComboBox, index: int) -> Callable[[str], None]:
    """A setter for one combo item's text (for :meth:`TextBindings.bind`)."""

    def set_text(text: str) -> None:
        combo.setItemText(index, text)

    return set_text


class KeyedButton(QPushButton):
    """A button in the chat column whose text is one of the app's (the
    restored conversation's "Show earlier messages"): the chat view's
    language switch reaches it through :meth:`retranslate`."""

    def __init__(self, texts: Texts, key: str, parent: QWidget | None = None, **fields: object) -> None:
        super().__init__(parent)
        self._texts = texts
        self.set_key(key, **fields)

    def set_key(self, key: str, **fields: object) -> None:
        self._key, self._fields = key, fields
        self.retranslate(self._texts)

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        self.setText(texts.tr(self._key, **self._fields))
