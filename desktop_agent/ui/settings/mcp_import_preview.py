"""The preview of an MCP servers import: each server of the other host's
file with what importing it would do (``mcp_engine.server_import``), a
choice for a name clash, and Import / Cancel.

Before it, an import wrote the file at once: an identical server came in
again as ``name-2`` and nothing showed what would happen. Opened with
``open()`` (window-modal, no nested event loop); ``accepted`` does the work,
through :meth:`McpImportPreview.choices`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.mcp_engine.server_import import CLASH_CHOICES, ClashChoice, ImportItem, changes
from desktop_agent.texts import Texts
from desktop_agent.ui.settings.mcp_wording import problem_text


def item_words(texts: Texts, item: ImportItem) -> str:
    """What importing ``item`` would do, in ``texts``' language."""
    if item.kind == "same":
        return texts.tr("mcp_import_same", existing=item.existing)
    if item.kind == "clash":
        return texts.tr("mcp_import_clash", existing=item.existing)
    if item.kind == "unusable" and item.problem is not None:
        return texts.tr("mcp_import_unusable", problem=problem_text(texts, item.problem))
    if item.target != item.name:
        return texts.tr("mcp_import_new_as", target=item.target)
    return texts.tr("mcp_import_new")


class McpImportPreview(QDialog):
    """One row a server: its name, what would happen, and a choice for a clash."""

    def __init__(self, texts: Texts, path: Path, items: tuple[ImportItem, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.items = items
        self.setWindowTitle(texts.tr("mcp_import_preview_title"))
        layout = QVBoxLayout(self)
        intro = QLabel(texts.tr("mcp_import_preview_intro", path=path), self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        self.words: dict[str, QLabel] = {}
        """Each server's line (by its name in the other file)."""
        self.clash_choices: dict[str, QComboBox] = {}
        """A clash's choice: add under a numbered name, replace, or skip."""
        for row, item in enumerate(items):
            name = QLabel(f"<b>{_escape(item.name)}</b>", self)
            words = QLabel(item_words(texts, item), self)
            words.setWordWrap(True)
            words.setObjectName("cardMuted" if item.kind in ("same", "unusable") else "")
            self.words[item.name] = words
            grid.addWidget(name, row, 0)
            grid.addWidget(words, row, 1)
            if item.kind == "clash":
                choice = QComboBox(self)
                for option in CLASH_CHOICES:
                    choice.addItem(texts.tr(f"mcp_import_choice_{option}", target=item.renamed_to), option)
                self.clash_choices[item.name] = choice
                grid.addWidget(choice, row, 2)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, parent=self)
        self.import_button: QPushButton = self.buttons.addButton(
            texts.tr("mcp_import_do"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.import_button.setEnabled(changes(items))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(texts.tr("mcp_import_cancel"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

    def choices(self) -> dict[str, ClashChoice]:
        """Each clash's choice, by the server's name in the other file."""
        chosen: dict[str, ClashChoice] = {}
        for name, box in self.clash_choices.items():
            data = box.currentData()
            chosen[name] = next((option for option in CLASH_CHOICES if option == data), "rename")
        return chosen


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["McpImportPreview", "item_words"]
