"""The ``/`` and ``@`` pickers of the input box: what the user types is read
at the cursor (:mod:`.picker_query`), the matching rows listed above the
box (:mod:`.picker_choices`, :mod:`.picker_popup`), and the row picked
written into the message.

- ``/`` as the first word lists the app's commands (picked: run at once),
  the enabled skills and every server's prompts. A prompt picked is written
  with a space; its arguments are then offered (``key=``, the required ones
  first and marked), and each value is completed by the server
  (``completion/complete``, the other arguments as context); a server that
  offers nothing leaves the user typing.
- ``@`` lists every server's resources and resource templates. A resource is
  written as ``@SERVER:URI``; a template's variables are asked one by one in
  a field over the list (each completed by the server), then the expanded
  URI is written.

Keys, while the list shows: Up/Down move, Enter or Tab picks, Esc closes it
(until the word changes); a click picks a row. The box passes them on
(:meth:`InputBox.set_picker`), Esc included: it does not reach the
window's interrupt nor the Edit's cancel while the list is open.

Signals:
    command(name: str)   an app command was picked (the box is emptied)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.chat.input_box import InputBox
from desktop_agent.ui.chat.mention_source import MentionSource
from desktop_agent.ui.chat.picker_choices import (
    Choice,
    FillTemplate,
    Insert,
    RunCommand,
    SkillEntry,
    argument_choices,
    command_choices,
    find_prompt,
    mention_choices,
    value_choices,
)
from desktop_agent.ui.chat.picker_popup import PickerPopup
from desktop_agent.ui.chat.picker_query import CommandQuery, MentionQuery, Query, ValueQuery, query_at

if TYPE_CHECKING:
    from desktop_agent.mcp_engine.catalog import PromptInfo, TemplateInfo

log = logging.getLogger(__name__)

COMPLETION_TIMEOUT_S = 10.0
"""A server slower than this to suggest values is taken to offer none."""
_PICK_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab)
_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Escape, *_PICK_KEYS)


@dataclass
class _TemplateFill:
    """A template whose variables are being asked, and the ``@`` word it replaces."""

    template: TemplateInfo
    start: int
    end: int
    values: dict[str, str] = field(default_factory=dict)

    @property
    def variable(self) -> str:
        return list(self.template.variables)[len(self.values)]


class Picker(QObject):
    command = Signal(str)

    def __init__(
        self, box: InputBox, texts: Callable[[], Texts], *, source: MentionSource,
        skills: Callable[[], Sequence[SkillEntry]] = tuple, parent: QWidget | None = None,
    ) -> None:
        super().__init__(box)
        self._box, self._texts, self._source, self._skills = box, texts, source, skills
        self._area = parent or box.window()
        self.popup = PickerPopup(self._area)
        self.popup.clicked.connect(self._on_clicked)
        self.popup.field.textChanged.connect(self._on_field_text)
        self.popup.field.installEventFilter(self)
        self._area.installEventFilter(self)
        self._query: Query | None = None
        self._dismissed: tuple[str, int] | None = None
        """The query Esc closed the list for (it stays closed until the word changes)."""
        self._fill: _TemplateFill | None = None
        self._task: asyncio.Task[None] | None = None
        self._editing = False
        box.textChanged.connect(self.refresh)
        box.cursorPositionChanged.connect(self.refresh)
        box.set_picker(self)

    @property
    def query(self) -> Query | None:
        """What the cursor is in now, as last read."""
        return self._query

    # ------------------------------------------------------------ reading

    def refresh(self) -> None:
        """Read the box at the cursor again and list what fits (or close)."""
        if self._editing or self._fill is not None:
            return
        query = query_at(self._box.toPlainText(), self._box.textCursor().position())
        if isinstance(query, ValueQuery) and query == self._query:
            return  # its completion is asked already
        previous, self._query = self._query, query
        if query is None or self._dismissed != (query.type, query.start):
            self._dismissed = None
        if query is None or self._dismissed is not None:
            self._close()
            return
        texts, source = self._texts(), self._source
        self.popup.list.setAccessibleName(texts.tr("picker_list_name"))
        if isinstance(query, CommandQuery):
            choices = command_choices(query, texts, self._skills(), source)
        elif isinstance(query, MentionQuery):
            choices = mention_choices(query, texts, source)
        elif isinstance(query, ValueQuery):
            self._complete_value(query, keep=isinstance(previous, ValueQuery) and previous.start == query.start)
            return
        else:
            choices = argument_choices(query, texts, source)
        self._cancel_task()
        self.popup.show_choices(choices, self._box)

    def _complete_value(self, query: ValueQuery, *, keep: bool) -> None:
        prompt = find_prompt(self._source, query.command)
        if prompt is None or query.argument not in {a.name for a in prompt.arguments}:
            self._close()
            return
        if not keep:
            self.popup.close_list()  # the argument names no longer apply

        async def suggest() -> None:
            values = await self._suggest(prompt, query.argument, query.value, query.given)
            if self._query == query and self._fill is None:
                self.popup.show_choices(value_choices(values, query.argument), self._box)

        self._start(suggest())

    async def _suggest(
        self, ref: PromptInfo | TemplateInfo, argument: str, value: str, context: Mapping[str, str]
    ) -> list[str]:
        """The server's completions; none when it fails or is too slow (the user types)."""
        try:
            async with asyncio.timeout(COMPLETION_TIMEOUT_S):
                return await self._source.complete(ref.server, ref, argument, value, dict(context))
        except Exception:  # a server's failure to suggest never stops the typing
            log.warning("completing %s of %s on %s failed", argument, ref.name, ref.server, exc_info=True)
            return []

    def _start(self, coro: Coroutine[Any, Any, None]) -> None:
        self._cancel_task()
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a widget on its own): no completions
            coro.close()
            return
        self._task = asyncio.ensure_future(coro)

    def _cancel_task(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None

    # --------------------------------------------------------------- keys

    def wants_key(self, event: QKeyEvent) -> bool:
        """The list is open and ``event`` is one of its keys."""
        if self._fill is not None or not self.popup.isVisible() or not self.popup.choices:
            return False
        if event.key() not in _KEYS:
            return False
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        return modifiers == Qt.KeyboardModifier.NoModifier

    def handle_key(self, event: QKeyEvent) -> bool:
        """Do what the key does to the list; False: the box types it."""
        if not self.wants_key(event):
            return False
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            self.popup.move_current(-1 if key == Qt.Key.Key_Up else 1)
        elif key == Qt.Key.Key_Escape:
            self.dismiss()
        else:
            choice = self.popup.current()
            if choice is not None:
                self.pick(choice)
        return True

    def focus_left(self) -> None:
        """The box lost the keyboard: the list closes (not while a field over it has it)."""
        if self._fill is None:
            self._close()

    def dismiss(self) -> None:
        """Esc: close the list until the word being typed changes."""
        query = self._query
        if query is not None:
            self._dismissed = (query.type, query.start)
        self._close()

    # ------------------------------------------------------------ picking

    def pick(self, choice: Choice) -> None:
        """Do what ``choice`` says: run a command, write text, or ask a template's variables."""
        query = self._query
        if query is None:
            return
        action = choice.pick
        if isinstance(action, RunCommand):
            self._close()
            self._box.clear()
            self.command.emit(action.name)
        elif isinstance(action, Insert):
            self._replace(query.start, query.end, action.text if action.text.endswith("=") else action.text + " ")
        elif isinstance(action, FillTemplate):
            self._fill_template(action.template, query.start, query.end)

    def _on_clicked(self, row: int) -> None:
        choices = self.popup.choices
        if not 0 <= row < len(choices):
            return
        if self._fill is not None:
            self._accept_value(choices[row].label)
        else:
            self.pick(choices[row])
            self._box.setFocus(Qt.FocusReason.OtherFocusReason)

    def _replace(self, start: int, end: int, text: str) -> None:
        self._editing = True
        try:
            cursor = self._box.textCursor()
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(text)
            self._box.setTextCursor(cursor)
        finally:
            self._editing = False
        self.refresh()

    # ---------------------------------------------------------- templates

    def _fill_template(self, template: TemplateInfo, start: int, end: int) -> None:
        if not template.variables:
            self._replace(start, end, f"@{template.server}:{template.expand({})} ")
            return
        self._cancel_task()
        self._fill = _TemplateFill(template, start, end)
        self._ask()

    def _ask(self) -> None:
        fill = self._fill
        assert fill is not None
        texts, count = self._texts(), len(fill.template.variables)
        self.popup.ask(
            texts.tr("picker_template_ask", name=fill.template.title or fill.template.name, variable=fill.variable,
                     index=len(fill.values) + 1, count=count),
            texts.tr("picker_template_field", variable=fill.variable), self._box,
        )
        self._on_field_text("")

    def _on_field_text(self, text: str) -> None:
        fill = self._fill
        if fill is None:
            return
        variable, context = fill.variable, dict(fill.values)

        async def suggest() -> None:
            values = await self._suggest(fill.template, variable, text, context)
            if self._fill is fill and fill.variable == variable and self.popup.field.text() == text:
                self.popup.show_choices(value_choices(values, variable), self._box)

        self._start(suggest())

    def _accept_value(self, value: str) -> None:
        fill = self._fill
        if fill is None or not value:
            return
        fill.values[fill.variable] = value
        if len(fill.values) < len(fill.template.variables):
            self._ask()
            return
        self._fill = None
        self._close()
        self._box.setFocus(Qt.FocusReason.OtherFocusReason)
        uri = fill.template.expand(fill.values)
        self._replace(fill.start, fill.end, f"@{fill.template.server}:{uri} ")

    def _cancel_fill(self) -> None:
        self._fill = None
        self._close()
        self._box.setFocus(Qt.FocusReason.OtherFocusReason)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._area and event.type() == QEvent.Type.Resize and self.popup.isVisible():
            self.popup.place(self._box)
            return False
        if watched is not self.popup.field or event.type() != QEvent.Type.KeyPress:
            return False
        assert isinstance(event, QKeyEvent)
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            self.popup.move_current(-1 if key == Qt.Key.Key_Up else 1)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            current = self.popup.current()
            self._accept_value(current.label if current is not None else self.popup.field.text().strip())
        elif key == Qt.Key.Key_Tab:
            current = self.popup.current()
            if current is not None:
                self.popup.field.setText(current.label)
        elif key == Qt.Key.Key_Escape:
            self._cancel_fill()
        else:
            return False
        return True

    def _close(self) -> None:
        self._cancel_task()
        self.popup.close_list()
