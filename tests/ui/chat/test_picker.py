"""The ``/`` and ``@`` pickers in the input box, over a fake MCP catalogue:
what each list shows, its keys and mouse, and what picking writes (a
prompt's arguments and a template's variables completed by the server)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine.catalog import PromptInfo, TemplateInfo
from desktop_agent.testing.fake_mentions import (
    CompletionAsked,
    FakeArgument,
    FakeMentions,
    FakePrompt,
    FakeResource,
    FakeTemplate,
)
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.input_box import InputBox
from desktop_agent.ui.chat.picker import Picker
from desktop_agent.ui.chat.picker_choices import SkillEntry, enabled_skills

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

TEAM = FakePrompt("team", "completable-prompt", "First argument choice narrows values for second argument.", (
    FakeArgument("department", "Choose the department.", True),
    FakeArgument("name", "Choose a team member.", True),
    FakeArgument("note", "Anything else"),
), title="Team Management")
WEATHER = FakePrompt("weather", "args-prompt", "A prompt with two arguments", (
    FakeArgument("state", "Name of the state"), FakeArgument("city", "Name of the city", True),
))
DOC = FakeResource("docs", "demo://resource/static/document/architecture.md", "architecture.md", "The architecture")
DYNAMIC = FakeTemplate("docs", "demo://resource/dynamic/text/{resourceId}", "Dynamic Text Resource")


def _fake() -> FakeMentions:
    return FakeMentions(
        [TEAM, WEATHER], [DOC], [DYNAMIC],
        completions={
            ("completable-prompt", "department"): ["Engineering", "Sales", "Marketing", "Support"],
            ("completable-prompt", "name"): ["Alice", "Bob", "Charlie"],
            (DYNAMIC.uri_template, "resourceId"): ["1", "2", "12"],
        },
    )


class Rig:
    def __init__(self, qtbot: QtBot, source: FakeMentions, texts: Texts = ENGLISH) -> None:
        self.area = QWidget()
        qtbot.add_widget(self.area)
        layout = QVBoxLayout(self.area)
        layout.addStretch(1)
        self.box = InputBox(texts, self.area)
        layout.addWidget(self.box)
        self.source = source
        self.picker = Picker(self.box, lambda: texts, source=source,
                             skills=lambda: [SkillEntry("summarise", "Summarise a long text")])
        self.commands: list[str] = []
        self.picker.command.connect(self.commands.append)
        self.area.resize(800, 600)
        self.area.show()
        qtbot.wait_exposed(self.area)
        self.box.setFocus()

    def labels(self) -> list[str]:
        return [c.label for c in self.picker.popup.choices] if self.picker.popup.isVisible() else []

    def origins(self) -> list[str]:
        return [c.origin for c in self.picker.popup.choices]

    def key(self, key: Qt.Key, widget: QWidget | None = None) -> None:
        QTest.keyClick(widget or self.box, key)


@pytest.fixture
def rig(qtbot: QtBot) -> Iterator[Rig]:
    yield Rig(qtbot, _fake())


async def _until(condition: Callable[[], bool], timeout_s: float = 10) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.01)


def test_slash_lists_the_app_commands_a_skill_and_every_prompt_with_where_each_comes_from(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/")
    assert rig.labels() == [
        "/new", "/settings", "/help", "/summarise", "/mcp__team__completable-prompt", "/mcp__weather__args-prompt",
    ]
    assert rig.origins() == ["App", "App", "App", "Skill", "team · prompt", "weather · prompt"]
    assert rig.picker.popup.choices[4].description == TEAM.description
    popup, box = rig.picker.popup, rig.box
    assert popup.geometry().bottom() < box.geometry().top()  # above the box
    assert popup.width() == box.width()


def test_typing_filters_the_list_names_starting_with_it_first(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/se")
    assert rig.labels() == ["/settings"]
    QTest.keyClick(rig.box, Qt.Key.Key_Backspace)
    QTest.keyClick(rig.box, Qt.Key.Key_Backspace)
    QTest.keyClicks(rig.box, "mcp__w")
    assert rig.labels() == ["/mcp__weather__args-prompt"]
    QTest.keyClicks(rig.box, "zz")
    assert rig.labels() == [] and not rig.picker.popup.isVisible()


def test_down_and_enter_pick_a_command_which_runs_and_empties_the_box(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/")
    rig.key(Qt.Key.Key_Down)
    rig.key(Qt.Key.Key_Return)
    assert rig.commands == ["settings"]
    assert rig.box.toPlainText() == ""
    assert not rig.picker.popup.isVisible()


def test_up_wraps_to_the_last_row_and_tab_picks_it(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/")
    rig.key(Qt.Key.Key_Up)
    rig.key(Qt.Key.Key_Tab)
    assert rig.box.toPlainText() == "/mcp__weather__args-prompt "
    assert rig.box.hasFocus()  # Tab picked; it did not move the focus
    # its arguments follow, the required one first and marked
    assert rig.labels() == ["city=", "state="]
    assert rig.origins() == ["required", "optional"]


def test_esc_closes_the_list_keeps_the_text_and_it_stays_closed_while_the_word_is_typed(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/he")
    rig.key(Qt.Key.Key_Escape)
    assert not rig.picker.popup.isVisible()
    assert rig.box.toPlainText() == "/he"
    QTest.keyClicks(rig.box, "l")
    assert not rig.picker.popup.isVisible()
    rig.box.clear()
    QTest.keyClicks(rig.box, "/")
    assert rig.picker.popup.isVisible()


def test_enter_sends_as_before_when_no_list_is_open(qtbot: QtBot, rig: Rig) -> None:
    QTest.keyClicks(rig.box, "hello /new")
    with qtbot.wait_signal(rig.box.submitted):
        rig.key(Qt.Key.Key_Return)
    assert rig.commands == []


def test_a_click_picks_a_row(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/sum")
    view = rig.picker.popup.list
    rect = view.visualItemRect(view.item(0))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center()))
    assert rig.box.toPlainText() == "/summarise "
    assert not rig.picker.popup.isVisible()


def test_the_lists_follow_the_source_each_time_they_open(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/mcp")
    assert len(rig.labels()) == 2
    rig.source.prompt_list.append(FakePrompt("late", "hello"))
    rig.source.resource_list.clear()
    rig.box.clear()
    QTest.keyClicks(rig.box, "/mcp")
    assert rig.labels()[-1] == "/mcp__late__hello"
    rig.box.clear()
    QTest.keyClicks(rig.box, "@")
    assert rig.labels() == ["Dynamic Text Resource"]


def test_at_lists_resources_then_templates_and_a_resource_is_written_as_server_and_uri(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "read @")
    assert rig.labels() == ["architecture.md", "Dynamic Text Resource"]
    assert rig.origins() == ["docs · resource", "docs · template"]
    assert rig.picker.popup.choices[1].description == DYNAMIC.uri_template
    QTest.keyClicks(rig.box, "arch")
    assert rig.labels() == ["architecture.md"]
    rig.key(Qt.Key.Key_Return)
    assert rig.box.toPlainText() == f"read @docs:{DOC.uri} "


async def test_a_prompts_argument_values_are_completed_by_the_server_with_the_others_as_context(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/mcp__team")
    rig.key(Qt.Key.Key_Return)
    assert rig.labels() == ["department=", "name=", "note="]
    assert rig.origins() == ["required", "required", "optional"]
    rig.key(Qt.Key.Key_Return)
    await _until(lambda: rig.labels() == ["Engineering", "Sales", "Marketing", "Support"])
    QTest.keyClicks(rig.box, "S")
    await _until(lambda: rig.labels() == ["Sales", "Support"])
    rig.key(Qt.Key.Key_Down)
    rig.key(Qt.Key.Key_Return)
    assert rig.box.toPlainText() == "/mcp__team__completable-prompt department=Support "
    assert rig.labels() == ["name=", "note="]
    rig.key(Qt.Key.Key_Return)
    await _until(lambda: rig.labels() == ["Alice", "Bob", "Charlie"])
    assert rig.source.asked[-1] == CompletionAsked(
        "team", "completable-prompt", "name", "", {"department": "Support"}
    )


async def test_no_completion_offered_leaves_the_user_typing_and_enter_sends(qtbot: QtBot, rig: Rig) -> None:
    QTest.keyClicks(rig.box, "/mcp__weather__args-prompt city=Par")
    await _until(lambda: [a.value for a in rig.source.asked][-1:] == ["Par"])
    assert not rig.picker.popup.isVisible()
    with qtbot.wait_signal(rig.box.submitted):
        rig.key(Qt.Key.Key_Return)


async def test_a_templates_variables_are_asked_with_completion_then_the_uri_is_written(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "see @dyn")
    rig.key(Qt.Key.Key_Return)
    popup = rig.picker.popup
    assert popup.asking and popup.field.hasFocus()
    assert popup.heading.text() == "Dynamic Text Resource: resourceId (1/1)"
    await _until(lambda: rig.labels() == ["1", "2", "12"])
    QTest.keyClicks(popup.field, "1")
    await _until(lambda: rig.labels() == ["1", "12"])
    rig.key(Qt.Key.Key_Down, popup.field)
    rig.key(Qt.Key.Key_Return, popup.field)
    assert rig.box.toPlainText() == "see @docs:demo://resource/dynamic/text/12 "
    assert rig.box.hasFocus() and not popup.isVisible()


async def test_a_typed_template_value_without_a_suggestion_is_taken_and_esc_cancels(rig: Rig) -> None:
    QTest.keyClicks(rig.box, "@dyn")
    rig.key(Qt.Key.Key_Return)
    field = rig.picker.popup.field
    QTest.keyClicks(field, "77")
    await _until(lambda: [a.value for a in rig.source.asked][-1:] == ["77"] and not rig.picker.popup.list.isVisible())
    rig.key(Qt.Key.Key_Return, field)
    assert rig.box.toPlainText() == "@docs:demo://resource/dynamic/text/77 "
    rig.box.clear()
    QTest.keyClicks(rig.box, "@dyn")
    rig.key(Qt.Key.Key_Return)
    rig.key(Qt.Key.Key_Escape, rig.picker.popup.field)
    assert rig.box.toPlainText() == "@dyn" and rig.box.hasFocus()
    assert not rig.picker.popup.isVisible()


def test_the_lists_speak_chinese(qtbot: QtBot) -> None:
    rig = Rig(qtbot, _fake(), CHINESE)
    QTest.keyClicks(rig.box, "/")
    assert rig.origins()[:4] == ["应用", "应用", "应用", "技能"]
    assert rig.picker.popup.choices[0].description == "开始新对话"


def test_only_skills_found_whole_and_enabled_are_offered() -> None:
    from pathlib import Path

    from desktop_agent.core.notice import Notice
    from desktop_agent.skills_engine import SkillInfo

    infos = [SkillInfo("a", "A", "bundled", Path("/a")), SkillInfo("b", "B", "user", Path("/b")),
             SkillInfo("c", "C", "user", Path("/c"), Notice("c is broken", "skill_problem_file_unreadable"))]
    assert enabled_skills(infos, None) == [SkillEntry("a", "A"), SkillEntry("b", "B")]
    assert enabled_skills(infos, ("b", "c")) == [SkillEntry("b", "B")]


def test_a_template_without_variables_is_written_at_once(qtbot: QtBot) -> None:
    fixed = FakeTemplate("docs", "demo://resource/fixed", "Fixed")
    rig = Rig(qtbot, FakeMentions(template_list=[fixed]))
    QTest.keyClicks(rig.box, "@fix")
    assert rig.picker.popup.list.accessibleName() == "Suggestions"
    rig.key(Qt.Key.Key_Return)
    assert rig.box.toPlainText() == "@docs:demo://resource/fixed "
    assert not rig.picker.popup.isVisible()


class FailingMentions(FakeMentions):
    async def complete(
        self, server: str, ref: PromptInfo | TemplateInfo, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        await super().complete(server, ref, argument, value, context)
        raise RuntimeError("completion/complete failed: the server went away")


async def test_a_completion_that_fails_leaves_the_user_typing(qtbot: QtBot, caplog: pytest.LogCaptureFixture) -> None:
    rig = Rig(qtbot, FailingMentions([TEAM]))
    QTest.keyClicks(rig.box, "/mcp__team__completable-prompt department=En")
    await _until(lambda: any("completing department" in r.getMessage() for r in caplog.records))
    assert [a.value for a in rig.source.asked][-1:] == ["En"]
    assert not rig.picker.popup.isVisible()
    QTest.keyClicks(rig.box, "g")
    assert rig.box.toPlainText().endswith("department=Eng")
