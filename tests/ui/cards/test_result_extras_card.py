"""A finished card shows structured content (fields or a table) and the
result's resource links; a web link opens in the browser, an MCP one is asked
of whoever reads resources, an embedded text resource opens in place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from desktop_agent.core.messages import ResourceRef, ToolCallMessage
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import ToolCardState, apply_message
from desktop_agent.ui.cards.structured_view import StructuredLayout, layout_of
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.common.theme import apply_theme

SHOTS = Path("/work/shots25/b")
CITIES = [
    {"city": "Chicago", "temperature": 36, "conditions": "Light rain"},
    {"city": "Los Angeles", "temperature": 73, "conditions": "Sunny", "alerts": ["heat", "wind"]},
]
LINKS = (
    ResourceRef("demo://resource/dynamic/text/2", "Text Resource 2", "text/plain", "Resource 2: plaintext resource"),
    ResourceRef("https://example.org/report.pdf", "Report", "application/pdf"),
    ResourceRef("demo://resource/dynamic/text/3", "3", "text/plain", text="Resource 3: This is a plaintext resource"),
)


def finished(**fields: object) -> ToolCardState:
    state = ToolCardState("call-1", "weather", phase=CardPhase.EXECUTING, arguments={}, server="everything")
    return apply_message(state, ToolCallMessage("result", "call-1", "weather", {}, result="…", is_error=False,
                                                **fields))  # type: ignore[arg-type]


def card_for(qtbot: QtBot, state: ToolCardState, texts: Texts = ENGLISH) -> ToolCardWidget:
    card = ToolCardWidget(state, texts)
    qtbot.add_widget(card)
    apply_theme(card)
    card.resize(560, card.sizeHint().height())
    card.show()
    return card


def save(card: ToolCardWidget, tmp_path: Path, name: str) -> None:
    card.resize(560, card.sizeHint().height())
    path = tmp_path / name
    assert card.grab().save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)


def test_a_flat_object_is_label_value_rows_and_nested_values_compact_json() -> None:
    assert layout_of({"temperature": 36, "where": {"lat": 41.8}, "ok": True}) == StructuredLayout(
        "fields", rows=(("temperature", "36"), ("where", '{"lat": 41.8}'), ("ok", "true"))
    )


def test_an_array_of_objects_is_a_table_with_every_key_as_a_column() -> None:
    assert layout_of(CITIES) == StructuredLayout(
        "table",
        ("city", "temperature", "conditions", "alerts"),
        (("Chicago", "36", "Light rain", ""), ("Los Angeles", "73", "Sunny", '["heat", "wind"]')),
    )


def test_anything_else_is_json() -> None:
    assert layout_of([1, 2]) == StructuredLayout("json", text="[\n  1,\n  2\n]")


@pytest.mark.parametrize(("texts", "lang"), [(ENGLISH, "en"), (CHINESE, "zh")])
def test_a_finished_card_shows_a_table_of_structured_content(
    qtbot: QtBot, tmp_path: Path, texts: Texts, lang: str
) -> None:
    card = card_for(qtbot, finished(structured_content=CITIES), texts)

    assert card.structured.isVisibleTo(card) and card.structured.table.isVisibleTo(card)
    table = card.structured.table
    headers = [table.horizontalHeaderItem(c) for c in range(table.columnCount())]
    assert [h.text() if h else None for h in headers] == ["city", "temperature", "conditions", "alerts"]
    cells = [table.item(1, c) for c in range(4)]
    assert [c.text() if c else None for c in cells] == ["Los Angeles", "73", "Sunny", '["heat", "wind"]']
    assert not card.resource_links.isVisibleTo(card)
    save(card, tmp_path, f"card_structured_table_{lang}.png")


def test_a_flat_object_shows_as_fields(qtbot: QtBot) -> None:
    card = card_for(qtbot, finished(structured_content={"temperature": 36, "conditions": "Light rain"}))

    assert card.structured.field_rows() == [("temperature", "36"), ("conditions", "Light rain")]
    assert not card.structured.table.isVisibleTo(card)


def test_no_structured_content_no_table(qtbot: QtBot) -> None:
    card = card_for(qtbot, finished())

    assert not card.structured.isVisibleTo(card)
    assert not card.resource_links.isVisibleTo(card)


@pytest.mark.parametrize(("texts", "lang"), [(ENGLISH, "en"), (CHINESE, "zh")])
def test_resource_links_are_listed_and_open_where_they_live(
    qtbot: QtBot, tmp_path: Path, texts: Texts, lang: str
) -> None:
    card = card_for(qtbot, finished(resources=LINKS), texts)
    links = card.resource_links
    opened: list[QUrl] = []
    links.open_url = opened.append

    assert links.isVisibleTo(card)
    assert links.title.text() == texts.tr("card_resources", n=3)
    assert [label.text().split("</a>")[0].split(">")[-1] for label in links.links] == ["Text Resource 2", "Report", "3"]
    assert "demo://resource/dynamic/text/2 · text/plain" in links.links[0].text()
    with qtbot.waitSignal(card.resource_requested) as asked:
        links.links[0].linkActivated.emit("demo://resource/dynamic/text/2")
    assert asked.args == ["everything", "demo://resource/dynamic/text/2"]
    with qtbot.assertNotEmitted(card.resource_requested):
        links.activate(1)
    assert opened == [QUrl("https://example.org/report.pdf")]

    # The embedded text is there, collapsed until asked for.
    assert list(links.toggles) == [2]
    assert not links.bodies[2].isVisibleTo(card)
    links.toggles[2].click()
    assert links.bodies[2].isVisibleTo(card)
    assert links.bodies[2].toPlainText() == "Resource 3: This is a plaintext resource"
    assert links.toggles[2].text() == texts.tr("card_resource_hide")
    save(card, tmp_path, f"card_resource_links_{lang}.png")


def test_a_language_switch_says_the_links_again(qtbot: QtBot) -> None:
    card = card_for(qtbot, finished(resources=LINKS))

    card.retranslate(CHINESE)

    assert card.resource_links.title.text() == "资源（3）"
    assert card.resource_links.toggles[2].text() == "展开"
