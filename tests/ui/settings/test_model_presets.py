"""Choosing a provider preset fills a model name it serves (not an empty
field), Fetch models still lists the server's models and replaces a
preset's guess the server does not have, and the count is worded with
the right number ("1 model found"). Screenshots:
/work/shots26/small/model_preset_{en,zh}.png."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.llm.endpoint_check import PRESETS
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.scripted_server import ScriptedLLMServer
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.settings.model_page import ModelPage

SHOTS = Path("/work/shots26/small")


async def _until(condition: Callable[[], bool], timeout_s: float = 15) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _page(qtbot: QtBot, texts: Texts = ENGLISH, settings: Settings | None = None) -> tuple[SettingsDialog, ModelPage]:
    dialog = SettingsDialog(settings or Settings(), texts=texts)
    qtbot.add_widget(dialog)
    return dialog, dialog.model_page


def _choose(page: ModelPage, key: str) -> None:
    index = page.preset.findData(key)
    page.preset.setCurrentIndex(index)
    page.preset.activated.emit(index)


def test_every_preset_fills_its_own_model_into_an_empty_field(qtbot: QtBot) -> None:
    _dialog, page = _page(qtbot)
    assert page.model.text() == ""
    chosen: dict[str, str] = {}
    for preset in PRESETS:
        _choose(page, preset.key)
        chosen[preset.key] = page.model.text()
    assert chosen == {
        "openai": "gpt-4o-mini", "deepseek": "deepseek-chat", "dashscope": "qwen-plus",
        "moonshot": "moonshot-v1-8k", "zhipu": "glm-4-flash", "openrouter": "openai/gpt-4o-mini",
        "ollama": "qwen2.5:7b", "lmstudio": "qwen2.5-7b-instruct", "vllm": "Qwen/Qwen2.5-7B-Instruct",
    }


def test_a_typed_model_stays_when_its_own_provider_is_chosen_again_and_goes_with_another(qtbot: QtBot) -> None:
    _dialog, page = _page(qtbot, settings=Settings(base_url="https://api.openai.com/v1", model="gpt-4.1"))
    _choose(page, "openai")
    assert page.model.text() == "gpt-4.1"
    _choose(page, "deepseek")
    assert (page.base_url.text(), page.model.text()) == ("https://api.deepseek.com/v1", "deepseek-chat")


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE])
async def test_fetch_after_a_preset_lists_the_servers_models_and_counts_them_in_words(
    qtbot: QtBot, tmp_path: Path, texts: Texts
) -> None:
    dialog, page = _page(qtbot, texts)
    _choose(page, "ollama")
    assert page.model.text() == "qwen2.5:7b"
    async with ScriptedLLMServer([], models=("llama3.2:3b",)) as server:
        page.base_url.setText(server.base_url)  # the same kind of server, elsewhere
        page.fetch.click()
        await _until(lambda: not page.busy())
        one = page.result.text()
    assert [page.model.itemText(i) for i in range(page.model.count())] == ["llama3.2:3b"]
    assert page.model.text() == "llama3.2:3b"  # the preset's guess is not served there: the server's own
    assert one == {"en": "1 model found — type to filter", "zh": "找到 1 个模型 —— 输入可筛选"}[texts.language]
    _choose(page, "deepseek")
    dialog.show_page(page)
    dialog.show()
    for _ in range(3):
        await asyncio.sleep(0.02)
    name = f"model_preset_{texts.language}.png"
    assert dialog.grab().save(str(tmp_path / name))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / name, SHOTS / name)
    assert page.model.text() == "deepseek-chat"
    async with ScriptedLLMServer([], models=("a", "b")) as server:
        page.base_url.setText(server.base_url)
        page.fetch.click()
        await _until(lambda: not page.busy())
    assert page.result.text() == texts.tr("model_fetched", count=2)
    assert page.model.text() == "a"
    assert texts.tr("model_fetched", count=2).startswith("2 models" if texts is ENGLISH else "找到 2 个模型")
