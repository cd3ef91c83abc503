"""Settings → Skills: every skill found (contracts §9), each with a checkbox,
its description and where it comes from (bundled or the user's folder).
A skill whose SKILL.md breaks the format is listed greyed, with the reason,
and cannot be enabled.

A dumb form like the rest of the dialog: it gets :class:`SkillInfo` values
and the setting, and gives back the new ``enabled_skills``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.common.os_wording import with_os_reason

if TYPE_CHECKING:
    from desktop_agent.skills_engine.scan import SkillInfo


def skill_problem(texts: Texts, info: SkillInfo) -> str:
    """Why ``info`` is not loaded, in the window's language."""
    problem = info.problem
    if problem is None:
        return ""
    fields = with_os_reason(texts, problem.fields)
    return texts.tr("skill_problem", problem=texts.tr(problem.key, **fields), **fields)


class SkillRow(QFrame):
    """One skill: checkbox with its name, source, description or problem."""

    def __init__(self, info: SkillInfo, enabled: bool, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.info = info
        self.checkbox = QCheckBox(info.name, self)
        self.checkbox.setChecked(enabled and info.problem is None)
        self.source = QLabel(self)
        self.source.setObjectName("cardMuted")
        self.description = QLabel(self)
        self.retranslate(texts)
        self.description.setWordWrap(True)
        self.description.setObjectName("cardMuted")
        self.description.setToolTip(str(info.path))
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.checkbox)
        head.addStretch(1)
        head.addWidget(self.source)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 6)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addWidget(self.description)
        if info.problem is not None:
            self.setEnabled(False)  # greyed: a broken skill cannot be enabled

    def retranslate(self, texts: Texts) -> None:
        info = self.info
        self.source.setText(texts.tr(f"skills_source_{info.source}"))
        self.description.setText(
            texts.tr("skills_broken", problem=skill_problem(texts, info))
            if info.problem else info.description_in(texts.language)
        )


class SkillsPage(QWidget):
    def __init__(
        self,
        skills: Sequence[SkillInfo],
        enabled_skills: tuple[str, ...] | None,
        *,
        texts: Texts,
        user_folder: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._original = enabled_skills
        self.intro = QLabel(texts.tr("skills_intro"), self)
        self.intro.setWordWrap(True)
        self.rows: list[SkillRow] = []
        body = QWidget(self)
        rows = QVBoxLayout(body)
        rows.setContentsMargins(0, 0, 0, 0)
        for info in skills:
            on = enabled_skills is None or info.name in enabled_skills
            row = SkillRow(info, on, texts, body)
            self.rows.append(row)
            rows.addWidget(row)
        self.empty = QLabel(texts.tr("skills_none"), body)
        self.empty.setVisible(not skills)
        rows.addWidget(self.empty)
        rows.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        self._user_folder = user_folder
        self.folder = QLabel(texts.tr("skills_user_folder", folder=user_folder) if user_folder else "", self)
        self.folder.setObjectName("cardMuted")
        self.folder.setWordWrap(True)
        self.folder.setVisible(bool(user_folder))
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.folder)

    def retranslate(self, texts: Texts) -> None:
        """Texts again in ``texts``' language (Settings → Appearance)."""
        self.intro.setText(texts.tr("skills_intro"))
        self.empty.setText(texts.tr("skills_none"))
        if self._user_folder:
            self.folder.setText(texts.tr("skills_user_folder", folder=self._user_folder))
        for row in self.rows:
            row.retranslate(texts)

    def row(self, name: str) -> SkillRow:
        return next(r for r in self.rows if r.info.name == name)

    def enabled_skills(self) -> tuple[str, ...] | None:
        """The setting as the checkboxes say: unchanged when no box changed;
        None (all, also skills added later) when every usable skill is
        checked; else the checked names, plus names of the setting that match
        no skill listed here (a skill that may come back keeps its choice)."""
        usable = [r for r in self.rows if r.info.problem is None]
        original = self._original
        before = {r.info.name for r in usable if original is None or r.info.name in original}
        checked = [r.info.name for r in usable if r.checkbox.isChecked()]
        if set(checked) == before:
            return original
        if len(checked) == len(usable):
            return None
        listed = {r.info.name for r in usable}
        kept = [n for n in (original or ()) if n not in listed]
        return (*checked, *kept)
