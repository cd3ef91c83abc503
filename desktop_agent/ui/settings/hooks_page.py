"""Settings → Hooks: every prompt hook found (contracts §9), with its
checkpoint, role, lifetime and source, and a checkbox to switch it on or
off. A broken hook is greyed out with the reason.

No signals: the page is a form. The window reads it when the Settings
dialog's OK is clicked (:meth:`HooksPage.apply_to`), so its changes go
through the window's one settings path with the rest of the dialog, and
Cancel drops them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from PySide6.QtWidgets import QCheckBox, QLabel, QScrollArea, QVBoxLayout, QWidget

from desktop_agent.hooks_engine import HookInfo
from desktop_agent.storage.settings import Settings
from desktop_agent.texts import Texts
from desktop_agent.ui.common.os_wording import with_os_reason

_INDENT = 22
"""Pixels: a hook's detail lines start under its name."""


def hook_detail(texts: Texts, info: HookInfo) -> str:
    """The line under a hook's name: when, as what, for how long, from where."""
    checkpoint_key, role_key = f"hooks_cp_{info.checkpoint}", f"hooks_role_{info.role}"
    return texts.tr(
        "hooks_detail",
        checkpoint=_or(texts, checkpoint_key, info.checkpoint),
        role=_or(texts, role_key, info.role),
        lifetime=texts.tr("hooks_persistent" if info.persistent else "hooks_once"),
        source=texts.tr(f"hooks_source_{info.source}"),
    )


def hook_problem(texts: Texts, info: HookInfo) -> str:
    """Why a broken hook is not used, in the window's language."""
    problem = info.problem
    if problem is None:
        return texts.tr("hooks_broken", problem="")
    return texts.tr("hooks_broken", problem=texts.tr(problem.key, **with_os_reason(texts, problem.fields)))


def _or(texts: Texts, key: str, raw: str) -> str:
    """The translation of ``key``; ``raw`` for a value no hook may have
    (a broken entry's)."""
    try:
        return texts.tr(key)
    except KeyError:
        return raw


class HooksPage(QWidget):
    def __init__(
        self, hooks: Sequence[HookInfo], *, texts: Texts, folder: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._initial = {info.name: info.enabled for info in hooks if info.problem is None}
        self.boxes: dict[str, QCheckBox] = {}
        self._texts: list[tuple[QLabel, Callable[[Texts], str]]] = []
        """Each label with what it says, for :meth:`retranslate`."""

        intro = QLabel(texts.tr("hooks_intro", folder=folder), self)
        self._texts.append((intro, lambda texts: texts.tr("hooks_intro", folder=folder)))
        intro.setWordWrap(True)
        intro.setObjectName("cardMuted")
        rows = QWidget(self)
        column = QVBoxLayout(rows)
        for info in hooks:
            box = QCheckBox(info.name, rows)
            box.setChecked(info.enabled)
            detail = QLabel(hook_detail(texts, info), rows)
            self._texts.append((detail, partial(hook_detail, info=info)))
            detail.setObjectName("cardMuted")
            detail.setWordWrap(True)
            detail.setContentsMargins(_INDENT, 0, 0, 4)  # under the name, not under the box
            column.addWidget(box)
            column.addWidget(detail)
            if info.problem is None:
                self.boxes[info.name] = box
            else:
                box.setEnabled(False)
                detail.setEnabled(False)
                problem = QLabel(hook_problem(texts, info), rows)
                self._texts.append((problem, partial(hook_problem, info=info)))
                problem.setWordWrap(True)
                problem.setEnabled(False)
                problem.setContentsMargins(_INDENT, 0, 0, 4)
                box.setToolTip(problem.text())
                column.addWidget(problem)
        if not hooks:
            none = QLabel(texts.tr("hooks_none"), rows)
            self._texts.append((none, lambda texts: texts.tr("hooks_none")))
            column.addWidget(none)
        column.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(rows)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(scroll, 1)

    def retranslate(self, texts: Texts) -> None:
        """Texts again in ``texts``' language (Settings → Appearance)."""
        for label, text in self._texts:
            label.setText(text(texts))

    def choices(self) -> dict[str, bool]:
        """The hooks the user switched on or off here, by name."""
        return {
            name: box.isChecked() for name, box in self.boxes.items() if box.isChecked() != self._initial[name]
        }

    def apply_to(self, settings: Settings) -> Settings:
        """``settings`` with this page's changes (the others' choices kept)."""
        changed = self.choices()
        if not changed:
            return settings
        return replace(settings, hooks_enabled={**settings.hooks_enabled, **changed})
