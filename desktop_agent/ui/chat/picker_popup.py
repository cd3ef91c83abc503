"""The list the pickers show above the input box: one row per choice (its
name in bold, where it comes from on the right, a one-line description
under it), and, while a resource template's variables are asked, a line
naming the variable and a field to type its value in.

A child of the window, not a popup window: a Qt popup takes the keyboard,
and the user goes on typing in the input box, which passes Up, Down,
Enter, Tab and Esc on (:class:`~desktop_agent.ui.chat.picker.Picker`). The
list never takes the focus; a click on a row picks it.

Signals:
    clicked(row: int)   a row was clicked
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.ui.chat.picker_choices import Choice

VISIBLE_ROWS = 6
"""Rows shown before the list scrolls (fits a 600 px high window)."""
_GAP = 4
"""Pixels between the list and the input box."""
_MIN_WIDTH = 520
"""Wider than the input box when it is narrow (an 800 px window): names stay whole."""


class _Row(QWidget):
    """A choice as a row: name and origin on the first line, description under them."""

    def __init__(self, choice: Choice, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(8, 3, 8, 3)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(0)
        self.name = QLabel(choice.label, self)
        self.name.setObjectName("pickerName")
        self.origin = QLabel(choice.origin, self)
        self.origin.setObjectName("pickerMuted")
        self.description = QLabel(choice.description, self)
        self.description.setObjectName("pickerMuted")
        for label in (self.name, self.origin, self.description):
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        grid.addWidget(self.name, 0, 0)
        grid.addWidget(self.origin, 0, 1, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.description, 1, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        self.description.setVisible(bool(choice.description))

    def elide(self, width: int) -> None:
        """One line each: the description (and a long name) cut with an ellipsis."""
        metrics = self.description.fontMetrics()
        self.description.setText(
            metrics.elidedText(self.description.text(), Qt.TextElideMode.ElideRight, max(40, width - 16))
        )
        room = max(60, width - self.origin.sizeHint().width() - 30)
        self.name.setText(self.name.fontMetrics().elidedText(self.name.text(), Qt.TextElideMode.ElideMiddle, room))


class PickerPopup(QFrame):
    clicked = Signal(int)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("picker")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        self.heading = QLabel(self)
        """What is asked, while a template's variables are (hidden otherwise)."""
        self.heading.setObjectName("pickerName")
        self.field = QLineEdit(self)
        """Where a template variable's value is typed."""
        self.field.setObjectName("pickerField")
        self.list = QListWidget(self)
        self.list.setObjectName("pickerList")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.itemClicked.connect(lambda item: self.clicked.emit(self.list.row(item)))
        layout.addWidget(self.heading)
        layout.addWidget(self.field)
        layout.addWidget(self.list)
        self.heading.hide()
        self.field.hide()
        self._choices: list[Choice] = []
        self.hide()

    @property
    def choices(self) -> list[Choice]:
        """The rows listed now."""
        return list(self._choices)

    @property
    def asking(self) -> bool:
        """A template variable is asked (the field shows)."""
        return self.isVisible() and not self.field.isHidden()

    def show_choices(self, choices: Sequence[Choice], anchor: QWidget) -> None:
        """List ``choices`` (the first one current) above ``anchor``; none: hide the list."""
        self._choices = list(choices)
        self.list.clear()
        for choice in self._choices:
            item = QListWidgetItem(self.list)
            row = _Row(choice)
            item.setSizeHint(row.sizeHint())
            self.list.setItemWidget(item, row)
        self.list.setVisible(bool(self._choices))
        if self._choices:
            self.list.setCurrentRow(0)
        if not self._choices and self.field.isHidden():
            self.hide()
            return
        self.place(anchor)

    def ask(self, heading: str, placeholder: str, anchor: QWidget) -> None:
        """Show the field under ``heading``, empty, with the keyboard."""
        self.heading.setText(heading)
        self.heading.show()
        self.field.clear()
        self.field.setPlaceholderText(placeholder)
        self.field.show()
        self.show_choices((), anchor)
        self.field.setFocus(Qt.FocusReason.OtherFocusReason)

    def close_list(self) -> None:
        self.hide()
        self.heading.hide()
        self.field.hide()
        self._choices = []
        self.list.clear()

    def move_current(self, step: int) -> None:
        """Make the row ``step`` away current, wrapping at the ends."""
        count = self.list.count()
        if count:
            self.list.setCurrentRow((self.list.currentRow() + step) % count)

    def current(self) -> Choice | None:
        row = self.list.currentRow()
        return self._choices[row] if 0 <= row < len(self._choices) else None

    def place(self, anchor: QWidget) -> None:
        """Above ``anchor`` (the input box), as wide as it, as high as its rows need."""
        parent = self.parentWidget()
        if parent is None:
            return
        width = min(max(anchor.width(), _MIN_WIDTH), parent.width() - 2 * _GAP)
        rows = min(self.list.count(), VISIBLE_ROWS)
        shown = sum(self.list.sizeHintForRow(i) for i in range(rows))
        list_height = shown + 2 * self.list.frameWidth() if rows else 0
        self.list.setFixedHeight(list_height)
        for index in range(self.list.count()):
            row = self.list.itemWidget(self.list.item(index))
            if isinstance(row, _Row):
                row.elide(width - 24)
        self.setFixedWidth(width)
        self.adjustSize()
        top_left = anchor.mapTo(parent, QPoint(0, 0))
        x = max(0, min(top_left.x(), parent.width() - width - _GAP))
        y = max(0, top_left.y() - self.height() - _GAP)
        self.move(x, y)
        self.show()
        self.raise_()
